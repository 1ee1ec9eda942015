/* Named regions of the program (mpiwatch_region_begin/end), so that the
 * report splits MPI time by region. A region boundary sums this thread's
 * table, so regions cost nothing per MPI call. Regions nest; an inner
 * region's time also counts in the outer one. */
#ifndef MW_REGIONS_H
#define MW_REGIONS_H

#include <stddef.h>
#include <stdint.h>

#include "core/compiler.h"

#define MW_MAX_REGIONS 64
#define MW_REGION_DEPTH 32
#define MW_REGION_NAME 64

typedef struct mw_region_stats {
    uint64_t entries;
    uint64_t wall_ticks;     /* time between begin and end */
    uint64_t mpi_ticks;      /* time inside MPI calls in between */
    uint64_t calls;          /* MPI calls in between */
} mw_region_stats;

typedef struct mw_region_frame {
    int id;
    uint64_t t0, mpi_ticks0, calls0;
} mw_region_frame;

/* A thread's open regions and totals (allocated at its first region). */
typedef struct mw_regions {
    int depth;
    mw_region_frame stack[MW_REGION_DEPTH];
    mw_region_stats stats[MW_MAX_REGIONS];
} mw_regions;

/* Number of region names registered in this process, and each name. */
MW_HIDDEN int mw_region_count(void);
MW_HIDDEN const char *mw_region_name(int id);

/* The calling thread enters the region name (len bytes) at tick now: its
 * id, -1 when not recorded (too deep, too many names). */
MW_HIDDEN int mw_region_enter(const char *name, size_t len, uint64_t now);

/* It leaves its innermost region (said to be name) at tick now: the id of
 * the region left, -1 when none was recorded. */
MW_HIDDEN int mw_region_leave(const char *name, size_t len, uint64_t now);

/* Every thread's region totals summed into out[MW_MAX_REGIONS]. */
MW_HIDDEN void mw_regions_merge(mw_region_stats *out);

#endif
