/* The wait states of a trace, printed (client/wait_report.h). */
#include "wait_report.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "site_lines.h"
#include "view_json.h"
#include "wait_input.h"
#include "wait_states.h"

/* Causes listed by the text report, and the most ranks it lists one by
 * one; the JSON has them all. */
enum { TEXT_CAUSES = 20, TEXT_RANKS = 32 };

/* A C string as JSON (view_json.c escapes, for every JSON the client writes). */
static void json_string(FILE *out, const char *s)
{
    mwc_json_string(out, s, strlen(s));
}

static double share(double part, double whole)
{
    return whole > 0 ? 100.0 * part / whole : 0;
}

static void print_json(FILE *out, const mwc_wait_input *j, const mww_result *r, size_t calls,
                       mwc_site_lines *lines, const char *sites_note)
{
    char site[512];
    fprintf(out, "{\"ranks\":%d,\"calls\":%zu,\"mpi_time\":%.9f,\"waiting\":%.9f,"
                 "\"waiting_share\":%.3f,\"patterns\":{",
            j->nranks, calls, r->mpi_time, r->waiting, share(r->waiting, r->mpi_time));
    for (int p = 0; p < MWW_PATTERNS; p++)
        fprintf(out, "%s\"%s\":{\"time\":%.9f,\"count\":%ld}", p ? "," : "", mww_pattern_key(p),
                r->pattern_time[p], r->pattern_count[p]);
    fputs("},\"causes\":[", out);
    for (size_t i = 0; i < r->ncauses; i++) {
        const mww_cause *c = &r->causes[i];
        mwc_site_lines_name(lines, c->site, site, sizeof site);
        fprintf(out, "%s\n{\"rank\":%d,\"pattern\":\"%s\",\"function\":", i ? "," : "", c->rank,
                mww_pattern_key(c->pattern));
        json_string(out, c->function);
        fputs(",\"site\":", out);
        json_string(out, site);
        fprintf(out, ",\"address\":\"0x%llx\",\"after\":", (unsigned long long)c->site);
        if (c->prev_function != NULL) {
            mwc_site_lines_name(lines, c->prev_site, site, sizeof site);
            fputs("{\"function\":", out);
            json_string(out, c->prev_function);
            fputs(",\"site\":", out);
            json_string(out, site);
            fprintf(out, ",\"address\":\"0x%llx\"}", (unsigned long long)c->prev_site);
        } else {
            fputs("null", out);
        }
        fprintf(out, ",\"waiting\":%.9f,\"share\":%.3f,\"instances\":%ld,\"waiting_ranks\":%ld}",
                c->waiting, share(c->waiting, r->mpi_time), c->instances, c->waiting_ranks);
    }
    fputs("],\n\"rank_waiting\":[", out);
    for (int k = 0; k < j->nranks; k++)
        fprintf(out, "%s%.9f", k ? "," : "", r->rank_waiting[k]);
    fputs("],\"rank_caused\":[", out);
    for (int k = 0; k < j->nranks; k++)
        fprintf(out, "%s%.9f", k ? "," : "", r->rank_caused[k]);
    fprintf(out, "],\"messages\":%ld,\"unmatched\":%ld,\"unordered_receivers\":%ld,"
                 "\"collectives\":%ld,\"incomplete_collectives\":%ld,\"sites\":",
            r->messages, r->unmatched, r->unordered_receivers, r->collectives,
            r->incomplete_collectives);
    json_string(out, sites_note);
    fputs("}\n", out);
}

static void print_text(FILE *out, const mwc_wait_input *j, const mww_result *r, size_t calls,
                       mwc_site_lines *lines, const char *sites_note)
{
    char site[512], prev[800];
    fprintf(out, "Waiting, and what caused it\n");
    fprintf(out, "  %d ranks, %zu calls: MPI time %.6f s, of which waiting %.6f s (%.1f%%)\n",
            j->nranks, calls, r->mpi_time, r->waiting, share(r->waiting, r->mpi_time));
    for (int p = 0; p < MWW_PATTERNS; p++)
        if (r->pattern_count[p] != 0)
            fprintf(out, "  %-16s %12.6f s  %8ld wait states\n", mww_pattern_name(p),
                    r->pattern_time[p], r->pattern_count[p]);
    if (r->ncauses != 0) {
        fprintf(out, "\n  %12s  %6s  %4s  %-16s  %-36s  %s\n", "caused (s)", "share", "rank",
                "pattern", "arrived late at", "after the work since");
        for (size_t i = 0; i < r->ncauses && i < TEXT_CAUSES; i++) {
            const mww_cause *c = &r->causes[i];
            char at[800];
            mwc_site_lines_name(lines, c->site, site, sizeof site);
            snprintf(at, sizeof at, "%s (%s)", site, c->function);
            if (c->prev_function != NULL) {
                mwc_site_lines_name(lines, c->prev_site, site, sizeof site);
                snprintf(prev, sizeof prev, "%s (%s)", site, c->prev_function);
            } else {
                snprintf(prev, sizeof prev, "the start");
            }
            fprintf(out, "  %12.6f  %5.1f%%  %4d  %-16s  %-36s  %s; %ld wait states of %ld rank%s\n",
                    c->waiting, share(c->waiting, r->mpi_time), c->rank,
                    mww_pattern_name(c->pattern), at, prev, c->instances, c->waiting_ranks,
                    c->waiting_ranks == 1 ? "" : "s");
        }
        if (r->ncauses > TEXT_CAUSES)
            fprintf(out, "  (%zu more causes: --json lists them all)\n", r->ncauses - TEXT_CAUSES);
    }
    if (r->ncauses != 0 && j->nranks <= TEXT_RANKS) {
        fprintf(out, "\n  %4s  %12s  %22s\n", "rank", "waited (s)", "made others wait (s)");
        for (int k = 0; k < j->nranks; k++)
            fprintf(out, "  %4d  %12.6f  %22.6f\n", k, r->rank_waiting[k], r->rank_caused[k]);
    }
    fprintf(out, "\n  %ld messages and %ld collective instances matched", r->messages,
            r->collectives);
    if (r->unmatched || r->unordered_receivers || r->incomplete_collectives)
        fprintf(out, "; not analysed: %ld sends or receives without a partner, %ld receiving "
                     "ranks whose non-blocking or combined receives hide the order, %ld "
                     "collective instances not every rank reached",
                r->unmatched, r->unordered_receivers, r->incomplete_collectives);
    fprintf(out, "\n  sites: %s\n", sites_note);
}

/* The sites' names: from the program when it can be used, and a note on
 * how they were named or why not. NULL (addresses) with the note set. */
static mwc_site_lines *open_sites(const char *program, char *note, size_t notesize)
{
    snprintf(note, notesize, "addresses (give --exe PROGRAM to name them file:line)");
    if (program == NULL)
        return NULL;
    char why[1000];
    mwc_site_lines *lines = mwc_site_lines_open(program, why, sizeof why);
    if (lines != NULL)
        snprintf(note, notesize, "file:line from %s (libdw)", program);
    else
        snprintf(note, notesize, "%s", why);
    return lines;
}

static size_t count_calls(const mwc_wait_input *j)
{
    size_t calls = 0;
    for (int k = 0; k < j->nranks; k++)
        calls += j->ranks[k].ncalls;
    return calls;
}

void mwc_wait_json(FILE *out, const mwc_wait_input *j, const mww_result *r, const char *program)
{
    char note[1200];
    mwc_site_lines *lines = open_sites(program, note, sizeof note);
    print_json(out, j, r, count_calls(j), lines, note);
    mwc_site_lines_close(lines);
}

int mwc_wait_report(const char *spec, const char *program, int json, int quiet)
{
    mwc_wait_input j;
    mww_result r;
    if (mwc_wait_load_analyze(spec, 0, &j, &r, quiet) != 0)
        return 1;
    if (json) {
        mwc_wait_json(stdout, &j, &r, program);
    } else {
        char note[1200];
        mwc_site_lines *lines = open_sites(program, note, sizeof note);
        print_text(stdout, &j, &r, count_calls(&j), lines, note);
        mwc_site_lines_close(lines);
    }
    mwc_wait_input_warn(&j, quiet);
    mww_result_free(&r);
    int status = j.problems != 0;
    mwc_wait_input_free(&j);
    return status;
}
