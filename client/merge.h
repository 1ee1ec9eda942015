/* mpiwatch --merge DIR: the ranks' partial profiles in DIR
 * (docs/partial-reports.md) combined, job by job, into the usual job
 * report, written into DIR by the runtime's own writers. */
#ifndef MWC_MERGE_H
#define MWC_MERGE_H

/* 0: every partial profile merged; 1: none found, or some refused (each
 * said on standard error); the reports that could be made are written. */
int mwc_merge(const char *dir, int quiet);

#endif
