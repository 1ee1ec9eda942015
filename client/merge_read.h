/* One rank's partial profile (docs/partial-reports.md) read from its JSON
 * file for mpiwatch --merge; the file is untrusted: every fault is refused
 * with a message naming the file and the field. */
#ifndef MWC_MERGE_READ_H
#define MWC_MERGE_READ_H

#include <stdint.h>

#include "mw_functions.h"
#include "report/report.h"

/* One function's statistics on the rank. */
typedef struct {
    int id;                      /* MW_ID_* */
    uint64_t calls, sent, recv;
    double time, min, max;
    uint64_t hist[MW_HIST_BUCKETS];
    int has_hist;
} mwc_partial_fn;

typedef struct {
    char *file;
    char *program, *timer, *mpi, *reason, *job, *host;
    char *config_timer;          /* MPIWATCH_TIMER as the rank read it */
    int rank, world_size, level, callsite_depth;
    long long taken, started;
    long pid;
    double app, mpi_time, init;
    mwc_partial_fn *fns;
    int nfns;
    mw_pair *pairs;
    int npairs;
    char *command, *build_id;    /* "" in profiles of an older mpiwatch */
    char *resolver;              /* callsites.resolver, or NULL without call sites */
    uint64_t sites_other;
    mw_site_summary *sites;      /* this rank's, each with ranks 1 (merge_tables.c) */
    int nsites;
    mw_region_summary *regions;
    int nregions;
} mwc_partial;

/* Read path into *p: 0, or -1 with why in err (the file named). Without
 * libjansson, -1 and what to install. */
int mwc_partial_read(const char *path, mwc_partial *p, char *err, size_t size);
void mwc_partial_free(mwc_partial *p);

/* Whether this build can read partial profiles: "" or what to install. */
const char *mwc_partial_unavailable(void);

#endif
