/* The timeline in the HTML report written at MPI_Finalize (docs/wait-states.md,
 * "The timeline in the report"): every rank writes its own part of the page's
 * data (its calls in the part chosen, the messages it received, its wait
 * states) with pwrite into one file rank 0 created beside the report, at
 * offsets from an exclusive scan; rank 0 copies that file into the page a
 * block at a time. No rank's calls pass through rank 0's memory but its own.
 * The data has the shape of mpiwatch --trace DIR --html's (client/timeline.c). */
#ifndef MW_REPORT_TIMELINE_PART_H
#define MW_REPORT_TIMELINE_PART_H

#include <mpi.h>
#include <stdint.h>
#include <stdio.h>

#include "core/compiler.h"
#include "report/wait_finalize.h"

struct mw_job_summary;

/* At most this many calls go into the report's page (as into the client's,
 * client/timeline.h): beyond, the page holds every chosen call that entered
 * before one time, the latest that keeps it within the limit. */
#define MW_TIMELINE_PAGE_CALLS 200000

/* Collective over comm, after the analysis: want is rank 0's (the HTML
 * report is asked for); cause_of maps l's causes to the merged ones (their
 * index in the report's section; SIZE_MAX unknown; NULL none known). On rank 0 with a page
 * to write, job->timeline is set (job NULL elsewhere). MPI_SUCCESS, or an
 * MPI error code; a failure of ours is warned and leaves no timeline. */
MW_HIDDEN int mw_timeline_part_write(const mw_wait_local *l, const size_t *cause_of, int want,
                                     struct mw_job_summary *job, MPI_Comm comm);

/* Rank 0: the page's member "timeline" (its value), the parts copied from
 * the file. */
MW_HIDDEN void mw_timeline_page_json(FILE *out, const struct mw_job_summary *job);

/* Rank 0: the file removed and the record freed. */
MW_HIDDEN void mw_timeline_part_free(struct mw_job_summary *job);

#endif
