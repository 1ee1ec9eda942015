/* mpiwatch --trace DIR --html OUT [--ranks LIST] [--window START:END]
 * [--exe PROGRAM]: a traced run's timeline as one self-contained page
 * (client/web/timeline.html, docs/wait-states.md "The timeline"): each
 * rank's calls, the messages the wait-state analysis matched, its wait
 * states, and its table "Waiting, and what caused it". */
#ifndef MWC_TIMELINE_H
#define MWC_TIMELINE_H

#include "timeline_select.h"

/* At most this many calls go into a page; beyond, the page holds the
 * first ones (by entry) and says where it stops. */
#define MWC_TIMELINE_MAX_CALLS 200000

/* Read and analyse the run (spec as for --perfetto), write the page to
 * out_path. 0; 1 when nothing could be read, no rank or call was
 * selected, or a file was damaged (the page is written then). */
int mwc_timeline_page(const char *spec, const char *out_path, const char *program,
                      const mwc_timeline_select *sel, int quiet);

#endif
