/* What the timeline page (mpiwatch --trace DIR --html OUT, docs/wait-states.md
 * "The timeline") and the Perfetto conversion (--perfetto OUT, docs/trace.md)
 * take of a trace with --ranks LIST --window START:END: the options'
 * grammar, checked when the command line is read, and the rule. */
#ifndef MWC_TIMELINE_SELECT_H
#define MWC_TIMELINE_SELECT_H

#include <stddef.h>

enum { MWC_RANK_RANGES = 64 };

typedef struct {
    int lo[MWC_RANK_RANGES], hi[MWC_RANK_RANGES];
    int nranges;               /* 0: every rank */
    double start, end;         /* seconds from the trace's first call */
    int has_start, has_end;    /* --window gave that end */
} mwc_timeline_select;

/* --ranks LIST: ranks and ranges, "0-3,8,12-15". 0, or -1 with err set to
 * what to give (the caller names the option and the value). */
int mwc_ranks_parse(const char *s, mwc_timeline_select *sel, char *err, size_t errsize);

/* --window START:END: seconds from the trace's first call, START below END;
 * either may be left out (":2.5", "1:"). 0, or -1 with err set as above. */
int mwc_window_parse(const char *s, mwc_timeline_select *sel, char *err, size_t errsize);

/* Whether the selection takes the rank. */
int mwc_select_rank(const mwc_timeline_select *sel, int rank);

/* Whether the window takes a call that entered and left at these seconds
 * from the trace's first call: one that overlaps it. */
int mwc_select_span(const mwc_timeline_select *sel, double enter, double leave);

#endif
