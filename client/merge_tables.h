/* The call-site and region tables of a job report merged from partial
 * profiles (client/merge_tables.c). */
#ifndef MWC_MERGE_TABLES_H
#define MWC_MERGE_TABLES_H

#include "merge_read.h"

/* The n profiles' (sorted by rank) call sites and regions into job: each
 * site or region one row however many ranks had it, as at MPI_Finalize.
 * Call sites only when every profile holds them (job->sites_resolver stays
 * NULL otherwise). Free with mwc_merge_tables_free. */
void mwc_merge_tables(const mwc_partial *const *p, int n, mw_job_summary *job);
void mwc_merge_tables_free(mw_job_summary *job);

#endif
