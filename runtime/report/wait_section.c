/* The section "Waiting, and what caused it" (report/wait_section.h). */
#include "report/wait_section.h"

#include <stdlib.h>
#include <string.h>

#include "report/callsites.h"
#include "report/report.h"

/* Causes listed by the text, and the most ranks it lists one by one; the
 * JSON has them all. */
enum { TEXT_CAUSES = 20, TEXT_RANKS = 32 };

static unsigned long long address(const mw_wait_section *s, uint64_t site)
{
    return (unsigned long long)(s->site_address ? s->site_address(s->ctx, site) : site);
}

static double share(double part, double whole)
{
    return whole > 0 ? 100.0 * part / whole : 0;
}

void mw_wait_section_json(FILE *out, const mw_wait_section *s)
{
    const mww_result *r = s->result;
    char site[512];
    fprintf(out, "{\"ranks\":%d,\"calls\":%zu,\"mpi_time\":%.9f,\"waiting\":%.9f,"
                 "\"waiting_share\":%.3f,\"direct\":%.9f,\"direct_share\":%.3f,",
            s->nranks, s->calls, r->mpi_time, r->waiting, share(r->waiting, r->mpi_time),
            r->direct, share(r->direct, r->mpi_time));
    if (s->analysis_seconds >= 0)
        fprintf(out, "\"analysis_seconds\":%.6f,", s->analysis_seconds);
    fputs("\"patterns\":{", out);
    for (int p = 0; p < MWW_PATTERNS; p++)
        fprintf(out, "%s\"%s\":{\"time\":%.9f,\"count\":%ld}", p ? "," : "", mww_pattern_key(p),
                r->pattern_time[p], r->pattern_count[p]);
    fputs("},\"causes\":[", out);
    for (size_t i = 0; i < r->ncauses; i++) {
        const mww_cause *c = &r->causes[i];
        s->name_site(s->ctx, c->site, site, sizeof site);
        fprintf(out, "%s\n{\"rank\":%d,\"pattern\":\"%s\",\"function\":", i ? "," : "", c->rank,
                mww_pattern_key(c->pattern));
        mw_json_string(out, c->function);
        fputs(",\"site\":", out);
        mw_json_string(out, site);
        fprintf(out, ",\"address\":\"0x%llx\",\"after\":", address(s, c->site));
        if (c->prev_function != NULL) {
            s->name_site(s->ctx, c->prev_site, site, sizeof site);
            fputs("{\"function\":", out);
            mw_json_string(out, c->prev_function);
            fputs(",\"site\":", out);
            mw_json_string(out, site);
            fprintf(out, ",\"address\":\"0x%llx\"}", address(s, c->prev_site));
        } else {
            fputs("null", out);
        }
        fprintf(out, ",\"waiting\":%.9f,\"share\":%.3f,\"direct\":%.9f,\"instances\":%ld,"
                     "\"waiting_ranks\":%ld}",
                c->waiting, share(c->waiting, r->mpi_time), c->direct, c->instances,
                c->waiting_ranks);
    }
    fputs("],\n\"rank_waiting\":[", out);
    for (int k = 0; k < s->nranks; k++)
        fprintf(out, "%s%.9f", k ? "," : "", r->rank_waiting[k]);
    fputs("],\"rank_caused\":[", out);
    for (int k = 0; k < s->nranks; k++)
        fprintf(out, "%s%.9f", k ? "," : "", r->rank_caused[k]);
    fprintf(out, "],\"messages\":%ld,\"unmatched\":%ld,\"unordered_receivers\":%ld,"
                 "\"collectives\":%ld,\"incomplete_collectives\":%ld,\"sites\":",
            r->messages, r->unmatched, r->unordered_receivers, r->collectives,
            r->incomplete_collectives);
    mw_json_string(out, s->sites_note);
    fputs("}", out);
}

void mw_wait_section_text(FILE *out, const mw_wait_section *s)
{
    const mww_result *r = s->result;
    char site[512], prev[800];
    fprintf(out, "Waiting, and what caused it\n");
    fprintf(out, "  %d ranks, %zu calls: MPI time %.6f s, of which waiting %.6f s (%.1f%%)\n",
            s->nranks, s->calls, r->mpi_time, r->waiting, share(r->waiting, r->mpi_time));
    fprintf(out, "  direct %.6f s (%.1f%%): the late ranks' extra work; the rest propagated: "
                 "they left their previous MPI call late\n",
            r->direct, share(r->direct, r->mpi_time));
    for (int p = 0; p < MWW_PATTERNS; p++)
        if (r->pattern_count[p] != 0)
            fprintf(out, "  %-16s %12.6f s  %8ld wait states\n", mww_pattern_name(p),
                    r->pattern_time[p], r->pattern_count[p]);
    if (r->ncauses != 0) {
        fprintf(out, "\n  %12s  %6s  %10s  %4s  %-16s  %-36s  %s\n", "caused (s)", "share",
                "direct (s)", "rank", "pattern", "arrived late at", "after the work since");
        for (size_t i = 0; i < r->ncauses && i < TEXT_CAUSES; i++) {
            const mww_cause *c = &r->causes[i];
            char at[800];
            s->name_site(s->ctx, c->site, site, sizeof site);
            snprintf(at, sizeof at, "%s (%s)", site, c->function);
            if (c->prev_function != NULL) {
                s->name_site(s->ctx, c->prev_site, site, sizeof site);
                snprintf(prev, sizeof prev, "%s (%s)", site, c->prev_function);
            } else {
                snprintf(prev, sizeof prev, "the start");
            }
            fprintf(out, "  %12.6f  %5.1f%%  %10.6f  %4d  %-16s  %-36s  %s; %ld wait states of %ld "
                         "rank%s\n",
                    c->waiting, share(c->waiting, r->mpi_time), c->direct, c->rank,
                    mww_pattern_name(c->pattern), at, prev, c->instances, c->waiting_ranks,
                    c->waiting_ranks == 1 ? "" : "s");
        }
        if (r->ncauses > TEXT_CAUSES)
            fprintf(out, "  (%zu more causes: the JSON lists them all)\n",
                    r->ncauses - TEXT_CAUSES);
    }
    if (r->ncauses != 0 && s->nranks <= TEXT_RANKS) {
        fprintf(out, "\n  %4s  %12s  %22s\n", "rank", "waited (s)", "made others wait (s)");
        for (int k = 0; k < s->nranks; k++)
            fprintf(out, "  %4d  %12.6f  %22.6f\n", k, r->rank_waiting[k], r->rank_caused[k]);
    }
    fprintf(out, "\n  %ld messages and %ld collective instances matched", r->messages,
            r->collectives);
    if (r->unmatched || r->unordered_receivers || r->incomplete_collectives)
        fprintf(out, "; not analysed: %ld sends or receives without a partner, %ld receiving "
                     "ranks whose non-blocking or combined receives hide the order, %ld "
                     "collective instances not every rank reached",
                r->unmatched, r->unordered_receivers, r->incomplete_collectives);
    fprintf(out, "\n  sites: %s\n", s->sites_note);
    if (s->analysis_seconds >= 0)
        fprintf(out, "  analysed at MPI_Finalize in %.3f s (the slowest rank)\n",
                s->analysis_seconds);
}

/* ------------------------------------------------------------ the report's */

/* A site as the report names it: file:line, else what is known. */
static void name_site(void *ctx, uint64_t site, char *out, size_t size)
{
    const mw_wait_report *w = ctx;
    if (site == 0 || site > (uint64_t)w->nsites) {
        snprintf(out, size, "?");
        return;
    }
    const mw_site_summary *s = &w->sites[site - 1];
    const char *base = strrchr(s->file, '/') ? strrchr(s->file, '/') + 1 : s->file;
    const char *module = strrchr(s->module, '/') ? strrchr(s->module, '/') + 1 : s->module;
    if (s->file[0])
        snprintf(out, size, "%s:%d", base, s->line);
    else if (s->function[0])
        snprintf(out, size, "%s (%s+0x%llx)", s->function, module,
                 (unsigned long long)s->all.offset);
    else
        snprintf(out, size, "%s+0x%llx", module, (unsigned long long)s->all.offset);
}

/* A site's offset in its module (0: unknown). */
static uint64_t site_offset(void *ctx, uint64_t site)
{
    const mw_wait_report *w = ctx;
    return site >= 1 && site <= (uint64_t)w->nsites ? w->sites[site - 1].all.offset : 0;
}

static mw_wait_section section(const mw_wait_report *w)
{
    return (mw_wait_section){&w->result, w->nranks, w->calls, name_site, site_offset, (void *)w,
                             w->sites_note ? w->sites_note : "?", w->seconds};
}

void mw_wait_report_text(FILE *out, const mw_wait_report *w)
{
    mw_wait_section s = section(w);
    mw_wait_section_text(out, &s);
}

void mw_wait_report_json(FILE *out, const mw_wait_report *w)
{
    mw_wait_section s = section(w);
    mw_wait_section_json(out, &s);
}

void mw_wait_report_free(mw_wait_report *w)
{
    mww_result_free(&w->result);
    free(w->sites);
    memset(w, 0, sizeof *w);
}
