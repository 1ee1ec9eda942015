#include "rates.h"

#include <stdlib.h>
#include <string.h>

#include "util.h"

static double per_s(uint64_t before, uint64_t after, double secs)
{
    return after > before ? (double)(after - before) / secs : 0;
}

int mwc_rates_compute(const mwc_counts *prev, uint64_t t0, const mwc_counts *cur, uint64_t t1,
                      uint32_t n, mwc_rates *out)
{
    if (t1 <= t0)
        return -1;
    double secs = (double)(t1 - t0) * 1e-9;
    out->interval = secs;
    out->t = t1;
    memset(&out->total, 0, sizeof out->total);
    for (uint32_t i = 0; i < n; i++) {
        /* Time is in ns: ns per s of wall time, scaled, is the share. */
        mwc_rate r = { per_s(prev[i].calls, cur[i].calls, secs),
                       per_s(prev[i].time, cur[i].time, secs) * 1e-9,
                       per_s(prev[i].sent, cur[i].sent, secs),
                       per_s(prev[i].recv, cur[i].recv, secs) };
        out->fn[i] = r;
        out->total.calls += r.calls;
        out->total.time += r.time;
        out->total.sent += r.sent;
        out->total.recv += r.recv;
    }
    return 0;
}

typedef struct {
    uint32_t id;
    const mwc_rate *r;
    const char *name;
} ranked;

static int busiest(const void *a, const void *b)
{
    const ranked *x = a, *y = b;
    if (x->r->time != y->r->time)
        return x->r->time < y->r->time ? 1 : -1;
    if (x->r->calls != y->r->calls)
        return x->r->calls < y->r->calls ? 1 : -1;
    return strcmp(x->name, y->name);
}

size_t mwc_rates_top(const mwc_rates *r, uint32_t n, char *const *names, uint32_t *ids,
                     size_t max)
{
    ranked *v = mwc_malloc(((size_t)n + 1) * sizeof *v);
    size_t k = 0;
    /* Only functions called in the interval: a rank's periodic snapshots
     * convert times with a running calibration, so a function not called
     * since can still gain or lose a few nanoseconds. */
    for (uint32_t i = 0; i < n; i++)
        if (r->fn[i].calls > 0)
            v[k++] = (ranked){ i, &r->fn[i], names[i] };
    qsort(v, k, sizeof *v, busiest);
    if (k > max)
        k = max;
    for (size_t i = 0; i < k; i++)
        ids[i] = v[i].id;
    free(v);
    return k;
}
