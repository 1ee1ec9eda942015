/* --json: one JSON object per line on a stream (docs/client.md lists them). */
#ifndef MWC_VIEW_JSON_H
#define MWC_VIEW_JSON_H

#include <stdio.h>

#include "view.h"

typedef struct {
    FILE *out;
    int events;      /* 0 with --no-events */
    double stuck_s;  /* --stuck; 0: the default, 5 s */
    double next;     /* elapsed time of the next report of the calls in progress */
    size_t stuck;    /* stuck calls at the last report */
    /* The matrix line's rounds: slots whose PAIRS came since the last one
     * (allocated at the first PAIRS, freed at finish). */
    unsigned char *fresh;
    size_t nfresh;   /* how many */
    size_t need;     /* fresh slots worth checking for a whole round */
} mwc_json_state;

mwc_view mwc_view_json(mwc_json_state *st);

/* A JSON string literal, quotes included. Control characters are escaped and
 * bytes that are not valid UTF-8 become U+FFFD, so any input gives valid JSON. */
void mwc_json_string(FILE *out, const char *s, size_t n);

/* Who waits for whom (waitfor.h) as JSON members, the same in the JSON
 * view's stuck line and the live page's state: "ranks" (the stuck ones),
 * "cycles" and "waited_on" ([{"rank", "waiters"}]), comma-separated, with
 * no braces around them. */
struct mwc_waitfor;
void mwc_json_waitfor(FILE *out, const struct mwc_waitfor *w);

#endif
