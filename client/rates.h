/* Rates over the last interval, from two cumulative SNAPSHOTs of one rank:
 * calls/s, the share of wall time spent in MPI, bytes/s sent and received,
 * per function and summed. Snapshots are totals since the rank started, so
 * the difference of the last two is what happened in between; the frames'
 * own times (the rank's clock) give the interval, so the figures do not
 * depend on when the frames arrived. Kept apart from the model so that it
 * can be tested on its own. */
#ifndef MWC_RATES_H
#define MWC_RATES_H

#include <stddef.h>
#include <stdint.h>

typedef struct { uint64_t calls, time, sent, recv; } mwc_counts;

/* Per second of the interval. time is a share: seconds in MPI per second
 * of wall time, summed over the rank's threads (so above 1 when several
 * threads are inside calls at once). */
typedef struct { double calls, time, sent, recv; } mwc_rate;

typedef struct {
    double interval;   /* seconds between the two snapshots */
    uint64_t t;        /* the later snapshot's time (ns, the rank's clock) */
    mwc_rate total;    /* summed over the functions */
    mwc_rate *fn;      /* [n], by function id; owned by the caller */
} mwc_rates;

/* The rates from snapshot prev (taken at t0) to cur (at t1), n functions
 * each. A counter that went down (a rank must never send that) counts as
 * no change. -1 when t1 <= t0: no interval, out is left as it was. */
int mwc_rates_compute(const mwc_counts *prev, uint64_t t0, const mwc_counts *cur, uint64_t t1,
                      uint32_t n, mwc_rates *out);

/* The function ids called in the interval, busiest first (time share,
 * then calls/s, then name), at most max of them, in ids[]. Returns
 * how many were written. */
size_t mwc_rates_top(const mwc_rates *r, uint32_t n, char *const *names, uint32_t *ids,
                     size_t max);

#endif
