/* The section "Waiting, and what caused it" (docs/wait-states.md): one
 * writer, in text and JSON, for the report at MPI_Finalize
 * (report/wait_finalize.c) and for mpiwatch --trace DIR --analyze
 * (client/wait_report.c). */
#ifndef MW_REPORT_WAIT_SECTION_H
#define MW_REPORT_WAIT_SECTION_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "core/compiler.h"
#include "wait_states.h"

struct mw_site_summary;   /* report/callsites.h */

typedef struct mw_wait_section {
    const mww_result *result;  /* the causes, largest first; rank_waiting and
                                  rank_caused of nranks */
    int nranks;
    size_t calls;              /* the trace's calls, all ranks */
    /* A site (mww_cause.site, prev_site) as the report names it, and how
     * sites were named or why not. */
    void (*name_site)(void *ctx, uint64_t site, char *out, size_t size);
    /* The "address" the JSON gives a site: NULL, the site itself; else
     * what this says (the report's: the offset in its module). */
    uint64_t (*site_address)(void *ctx, uint64_t site);
    void *ctx;
    const char *sites_note;
    /* At MPI_Finalize: the slowest rank's seconds in the analysis; < 0
     * for an analysis afterwards (--analyze). */
    double analysis_seconds;
} mw_wait_section;

MW_HIDDEN void mw_wait_section_text(FILE *out, const mw_wait_section *s);

/* One JSON object, without a newline after it. */
MW_HIDDEN void mw_wait_section_json(FILE *out, const mw_wait_section *s);

/* The section of the report at MPI_Finalize (report/wait_merge.c builds
 * it on rank 0; mpiwatch --merge has none). */
typedef struct mw_wait_report {
    mww_result result;         /* causes' sites: index + 1 into sites */
    int nranks;
    size_t calls;
    double seconds;            /* the slowest rank's analysis */
    struct mw_site_summary *sites;
    int nsites;
    const char *sites_note;    /* how they were resolved (with the report's sites) */
} mw_wait_report;

MW_HIDDEN void mw_wait_report_text(FILE *out, const mw_wait_report *w);
MW_HIDDEN void mw_wait_report_json(FILE *out, const mw_wait_report *w);
MW_HIDDEN void mw_wait_report_free(mw_wait_report *w);

#endif
