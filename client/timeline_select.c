/* The timeline's selection (client/timeline_select.h). */
#include "timeline_select.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank_at(const char **p, int *out)
{
    char *end;
    if (**p < '0' || **p > '9')
        return -1;
    long v = strtol(*p, &end, 10);
    if (v > 2147483647L)
        return -1;
    *out = (int)v;
    *p = end;
    return 0;
}

int mwc_ranks_parse(const char *s, mwc_timeline_select *sel, char *err, size_t errsize)
{
    const char *p = s;
    sel->nranges = 0;
    for (;;) {
        int lo, hi;
        if (rank_at(&p, &lo) != 0)
            goto bad;
        hi = lo;
        if (*p == '-') {
            p++;
            if (rank_at(&p, &hi) != 0 || hi < lo)
                goto bad;
        }
        if (sel->nranges == MWC_RANK_RANGES) {
            snprintf(err, errsize, "at most %d ranks or ranges", MWC_RANK_RANGES);
            return -1;
        }
        sel->lo[sel->nranges] = lo;
        sel->hi[sel->nranges++] = hi;
        if (*p == '\0')
            return 0;
        if (*p++ != ',')
            goto bad;
    }
bad:
    snprintf(err, errsize, "give ranks and ranges of ranks from 0, separated by commas (0-3,8)");
    return -1;
}

/* A number of seconds, or nothing (open) up to stop. */
static int seconds_until(const char *p, const char *stop, double *v, int *has)
{
    *has = p != stop;
    if (!*has)
        return 0;
    char *end;
    *v = strtod(p, &end);
    return end == stop && isfinite(*v) && *v >= 0 ? 0 : -1;
}

int mwc_window_parse(const char *s, mwc_timeline_select *sel, char *err, size_t errsize)
{
    const char *colon = strchr(s, ':');
    if (colon == NULL || strchr(colon + 1, ':') != NULL ||
        seconds_until(s, colon, &sel->start, &sel->has_start) != 0 ||
        seconds_until(colon + 1, colon + 1 + strlen(colon + 1), &sel->end, &sel->has_end) != 0 ||
        (sel->has_start && sel->has_end && !(sel->start < sel->end))) {
        snprintf(err, errsize, "give START:END, seconds from the trace's first call, START "
                               "below END (either may be left out: :2.5, 1:)");
        return -1;
    }
    return 0;
}

int mwc_select_rank(const mwc_timeline_select *sel, int rank)
{
    if (sel->nranges == 0)
        return 1;
    for (int i = 0; i < sel->nranges; i++)
        if (rank >= sel->lo[i] && rank <= sel->hi[i])
            return 1;
    return 0;
}

int mwc_select_span(const mwc_timeline_select *sel, double enter, double leave)
{
    return (!sel->has_start || leave >= sel->start) && (!sel->has_end || enter <= sel->end);
}
