/* The runtime's process-wide state. */
#ifndef MW_STATE_H
#define MW_STATE_H

#include <mpi.h>
#include <stdint.h>

#include "mw_compiler.h"

typedef struct mw_config {
    char outdir[4096];       /* MPIWATCH_OUTDIR: where reports go */
    int initial_level;       /* MPIWATCH_LEVEL: 0 off, 1 on */
    const char *timer;       /* MPIWATCH_TIMER: auto, tsc, clock_gettime */
} mw_config;

typedef struct mw_process_state {
    int world_rank;          /* -1 until MPI_Init has returned */
    int world_size;
    int started;             /* mw_on_init has run */
    int finished;            /* the report has been written (or given up) */
    MPI_Comm comm;           /* private duplicate of MPI_COMM_WORLD for our reductions */
    uint64_t init_ticks;     /* when MPI_Init returned */
    mw_config config;
} mw_process_state;

extern MW_HIDDEN mw_process_state mw_state;

/* Profiling level from MPI_Pcontrol: 0 off, nonzero on. Read on every call. */
extern MW_HIDDEN int mw_level;

/* Re-entry guard: nonzero while this thread is inside a profiled MPI call, so
 * MPI calls made by the MPI itself (or by our Fortran shims) count once. */
extern MW_HIDDEN _Thread_local int mw_depth MW_TLS_MODEL;

/* Read MPIWATCH_* variables into config; warn about bad values if asked. */
MW_HIDDEN void mw_config_load(mw_config *config, int report_problems);

#endif
