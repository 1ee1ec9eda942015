/* One clock for a run's trace (docs/trace.md, "One clock"): the pure
 * arithmetic, shared by the runtime, which measures, and the client, which
 * maps. A rank measures its clock against rank 0's by ping-pong at MPI_Init
 * and at MPI_Finalize; each measurement is a sync point, a pair (a tick of
 * the rank's clock, the tick of rank 0's clock at the same moment). Between
 * two sync points a rank's ticks map to rank 0's linearly (offset and
 * drift); with one, by the offset and the ratio of the clocks' rates. No
 * state, no system call: unit-tested with synthetic clocks
 * (tests/trace/clock_test.c). Not installed. */
#ifndef MPIWATCH_CLOCK_H
#define MPIWATCH_CLOCK_H

#include <stdint.h>

/* One round of the ping-pong, as the rank saw it: its ticks when it sent
 * (sent) and when the answer came back (back), and rank 0's ticks in the
 * answer (peer). */
typedef struct {
    uint64_t sent, peer, back;
} mwt_clock_round;

typedef struct {
    uint64_t local;     /* a tick of the rank's clock */
    uint64_t peer;      /* rank 0's clock at that moment */
} mwt_sync_point;

/* The sync point of a ping-pong: the round with the shortest round trip
 * (the least time for the answer to be late), rank 0's tick taken at its
 * middle; but when rank 0's tick lies within that round trip, the two
 * clocks cannot be told apart (ranks of one host reading one TSC): then
 * they are taken to be the same, exactly, rather than off by up to half a
 * round trip. n >= 1. */
static inline mwt_sync_point mwt_clock_sync_point(const mwt_clock_round *rounds, int n)
{
    int best = 0;
    for (int i = 1; i < n; i++)
        if (rounds[i].back - rounds[i].sent < rounds[best].back - rounds[best].sent)
            best = i;
    const mwt_clock_round *r = &rounds[best];
    mwt_sync_point p = {r->sent + (r->back - r->sent) / 2, r->peer};
    if (r->sent <= r->peer && r->peer <= r->back)
        p.local = r->peer;
    return p;
}

/* Rank 0's ticks (as a real number, which may be negative before its
 * origin) at the rank's tick t: through the sync points a and b (b.local >
 * a.local: interpolated, extrapolated outside), or through a alone
 * (nb == 0) with rate = rank 0's ticks per tick of the rank. */
static inline double mwt_clock_map(uint64_t t, mwt_sync_point a, const mwt_sync_point *b,
                                   double rate)
{
    double dt = (double)t - (double)a.local;
    if (b != NULL && b->local > a.local)
        rate = ((double)b->peer - (double)a.peer) / ((double)b->local - (double)a.local);
    return (double)a.peer + dt * rate;
}

#endif
