/* Call sites in the report (report/callsites.c) and what they resolve to
 * (report/resolve.c). */
#ifndef MW_REPORT_CALLSITES_H
#define MW_REPORT_CALLSITES_H

#include <mpi.h>
#include <stdint.h>

#include "core/callstacks.h"
#include "core/compiler.h"

/* The call sites each rank passes on to the merge: its busiest ones by time. */
#define MW_SITES_PER_RANK 256

/* One rank's figures for one call site, as gathered (plain bytes). The site
 * is named by its module (a hash of the module's build-id, or of its path
 * without one) and the return address's offset from the module's load
 * address: the same for every rank however ASLR placed the module. */
typedef struct mw_site_record {
    uint64_t module;
    uint64_t offset;
    /* With MPIWATCH_CALLSITE_DEPTH > 1: the return addresses further up, the
     * same way (depth - 1 of them). */
    uint64_t up_module[MW_CALLSTACK_MAX - 1], up_offset[MW_CALLSTACK_MAX - 1];
    uint64_t calls, sent, recv;
    uint64_t sizes;              /* bit b: messages in size bucket b (see MW_HIST_BUCKETS) */
    double time, min, max;       /* seconds: in all, shortest and longest call */
    int32_t fn;
    int32_t rank;
    int32_t depth;               /* frames: 1 + the ones in up_* */
} mw_site_record;

/* a gains b, the same site's figures over more calls or ranks: the one rule
 * of MPI_Finalize's tree merge (report/callsites.c) and of mpiwatch --merge
 * (client/merge_tables.c). */
static inline void mw_site_record_add(mw_site_record *a, const mw_site_record *b)
{
    a->calls += b->calls;
    a->sent += b->sent;
    a->recv += b->recv;
    a->sizes |= b->sizes;
    a->time += b->time;
    a->min = b->min < a->min ? b->min : a->min;
    a->max = b->max > a->max ? b->max : a->max;
}

/* A return address resolved (rank 0). */
typedef struct mw_frame_name {
    char function[128];
    char file[256];
    int line;
} mw_frame_name;

/* One call site over the job (rank 0). */
typedef struct mw_site_summary {
    mw_site_record all;          /* sums; min/max over every call; rank unused */
    int ranks;                   /* ranks that made calls from here */
    double rank_min, rank_max;   /* least and most time one rank spent here */
    int rank_min_at, rank_max_at;   /* their ranks; -1 for "a rank that never called from here" */
    double squares;              /* sum over ranks of time squared, for the variation */
    double cv;
    char function[128];          /* the enclosing function, or "" */
    char file[256];              /* source file, or "" without line information */
    int line;
    char module[256];            /* the module's path */
    mw_frame_name *up;           /* all.depth - 1 callers further up, or NULL */
} mw_site_summary;

/* Merge every rank's call sites onto rank 0 of comm, by site, in a tree; on
 * rank 0, *sites (sorted by time, most first; free it) and *nsites, and
 * *other: the calls that no site kept (a full table, or past
 * MW_SITES_PER_RANK on a rank). */
MW_HIDDEN int mw_callsites_gather(MPI_Comm comm, mw_site_summary **sites, int *nsites,
                                  uint64_t *other);

/* This rank's sites alone, without communication (a partial profile), in
 * the same form; *sites may be NULL (no memory). */
MW_HIDDEN void mw_callsites_local(mw_site_summary **sites, int *nsites, uint64_t *other);

/* Where this process has the module of a record: its path and load bias;
 * 0 when no loaded module has that hash. */
MW_HIDDEN int mw_module_find(uint64_t module, char *path, size_t size, uintptr_t *bias);

/* The program's GNU build-id (NT_GNU_BUILD_ID of the executable) in hex;
 * "" when it has none. */
#define MW_BUILD_ID_MAX 64
MW_HIDDEN void mw_program_build_id(char out[2 * MW_BUILD_ID_MAX + 1]);

/* The module hash and offset of an address in this process; 0 if no
 * loaded module holds it. */
MW_HIDDEN int mw_module_of(uintptr_t address, uint64_t *module, uint64_t *offset);

/* Fill function, file and line of each site and of the callers above it
 * (rank 0), with libdw when it can be loaded, else from the dynamic symbols. */
MW_HIDDEN void mw_callsites_resolve(mw_site_summary *sites, int n);

/* A note for the report on how sites were resolved ("libdw", or why not). */
MW_HIDDEN const char *mw_callsites_resolver(void);

#endif
