/* The wait states of a trace, printed (client/wait_report.h). */
#include "wait_report.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "site_lines.h"
#include "report/wait_section.h"
#include "wait_input.h"
#include "wait_states.h"

/* A site named by the program's line table, or as an address. */
static void name_site(void *ctx, uint64_t site, char *out, size_t size)
{
    mwc_site_lines_name(ctx, site, out, size);
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

static void print_section(FILE *out, const mwc_wait_input *j, const mww_result *r,
                          const char *program, int json)
{
    char note[1200];
    mwc_site_lines *lines = open_sites(program, note, sizeof note);
    mw_wait_section s = {r, j->nranks, count_calls(j), name_site, NULL, lines, note, -1};
    if (json) {
        mw_wait_section_json(out, &s);
        fputc('\n', out);
    } else {
        mw_wait_section_text(out, &s);
    }
    mwc_site_lines_close(lines);
}

void mwc_wait_json(FILE *out, const mwc_wait_input *j, const mww_result *r, const char *program)
{
    print_section(out, j, r, program, 1);
}

int mwc_wait_report(const char *spec, const char *program, int json, int quiet)
{
    mwc_wait_input j;
    mww_result r;
    if (mwc_wait_load_analyze(spec, 0, &j, &r, quiet) != 0)
        return 1;
    print_section(stdout, &j, &r, program, json);
    mwc_wait_input_warn(&j, quiet);
    mww_result_free(&r);
    int status = j.problems != 0;
    mwc_wait_input_free(&j);
    return status;
}
