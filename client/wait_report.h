/* mpiwatch --trace DIR --analyze [--json] [--exe PROGRAM]: the wait states
 * of a traced run (client/wait_states.h), printed as the section "Waiting,
 * and what caused it" or as one JSON object (docs/wait-states.md). */
#ifndef MWC_WAIT_REPORT_H
#define MWC_WAIT_REPORT_H

/* Read the run's trace files (spec as for --perfetto), analyse them and
 * print to standard output; program (may be NULL) names the sites. The
 * exit status: 0, or 1 when a file was damaged or nothing could be read. */
int mwc_wait_report(const char *spec, const char *program, int json, int quiet);

#include <stdio.h>

#include "wait_input.h"
#include "wait_states.h"

/* The analysis r of j as the JSON object --analyze --json prints (one
 * definition, also embedded by the timeline page); program as above. */
void mwc_wait_json(FILE *out, const mwc_wait_input *j, const mww_result *r, const char *program);

#endif
