/* Unit tests of the one clock's arithmetic (include/mpiwatch_clock.h), with
 * synthetic clocks: a rank's clock off rank 0's by seconds, drifting, at
 * another rate, with uneven latencies. TAP on stdout; for
 * tests/trace/check-trace-clock.sh. */
#include <math.h>
#include <stdio.h>

#include "mpiwatch_clock.h"

static int tests, failed;

static void ok(int cond, const char *what, double got, double want)
{
    tests++;
    if (cond) {
        printf("ok %d - %s\n", tests, what);
    } else {
        failed++;
        printf("not ok %d - %s: got %.3f, want %.3f\n", tests, what, got, want);
    }
}

/* Rank 0's ticks at the rank's tick t, for a rank clock local = offset +
 * rate * zero (rate: the rank's ticks per tick of rank 0, drifting). */
static double zero_of(double local, double offset, double rate)
{
    return (local - offset) / rate;
}

/* One round: the rank sends at local tick s, the ping takes up ticks (of
 * rank 0) to arrive, rank 0 answers at once, the answer takes down. */
static mwt_clock_round round_at(double s, double offset, double rate, double up, double down)
{
    double at_zero = zero_of(s, offset, rate) + up;
    double back = offset + rate * (at_zero + down);
    return (mwt_clock_round){(uint64_t)s, (uint64_t)llround(at_zero), (uint64_t)llround(back)};
}

int main(void)
{
    /* 3 s ahead (ns ticks), the same rate: the shortest round's middle. */
    double offset = 3e9, rate = 1.0;
    mwt_clock_round rounds[4] = {
        round_at(10e9, offset, rate, 900, 300),   /* uneven: 300 ns off */
        round_at(10.1e9, offset, rate, 400, 400), /* the shortest, even */
        round_at(10.2e9, offset, rate, 5000, 400),
        round_at(10.3e9, offset, rate, 700, 700),
    };
    mwt_sync_point p = mwt_clock_sync_point(rounds, 4);
    double err = (double)p.peer - zero_of((double)p.local, offset, rate);
    ok(fabs(err) < 1, "offset of 3 s: the shortest round's middle, exact when even", err, 0);
    p = mwt_clock_sync_point(rounds, 1);
    err = (double)p.peer - zero_of((double)p.local, offset, rate);
    ok(fabs(err - 300) < 1, "an uneven round is off by half the difference", err, 300);

    /* One clock (one host's TSC): rank 0's tick within the round trip. */
    mwt_clock_round same[2] = {round_at(5e9, 0, 1.0, 200, 300), round_at(6e9, 0, 1.0, 250, 250)};
    p = mwt_clock_sync_point(same, 2);
    ok(p.local == p.peer, "clocks that cannot be told apart are the same", (double)p.local,
       (double)p.peer);

    /* -2.5 s and a drift of 50 ppm: two sync points, 100 s apart,
     * interpolate between them and extrapolate past them. */
    offset = -2.5e9;
    rate = 1.00005;
    mwt_clock_round a = round_at(20e9, offset, rate, 500, 500);
    mwt_clock_round b = round_at(120e9, offset, rate, 500, 500);
    mwt_sync_point pa = mwt_clock_sync_point(&a, 1), pb = mwt_clock_sync_point(&b, 1);
    for (double t = 20e9; t <= 140e9; t += 30e9) {
        double got = mwt_clock_map((uint64_t)t, pa, &pb, 1.0), want = zero_of(t, offset, rate);
        char what[96];
        snprintf(what, sizeof what, "drift of 50 ppm: %.0f s of the rank's clock", t / 1e9);
        ok(fabs(got - want) < 2, what, got, want);
    }
    /* Without the second point (a job that died): the offset alone is off by
     * the drift; with the rates' ratio it is exact for a clock at another rate. */
    double got = mwt_clock_map((uint64_t)120e9, pa, NULL, 1.0),
           want = zero_of(120e9, offset, rate);
    ok(fabs(got - want) > 4e6 && fabs(got - want) < 6e6,
       "one point: off by the drift over 100 s (5 ms)", got - want, 5e6);
    /* A TSC at 2.4 GHz against rank 0's nanoseconds: rate 1/2.4 known. */
    mwt_sync_point c = {24000000000ull, 1000000000ull};
    got = mwt_clock_map(48000000000ull, c, NULL, 1 / 2.4);
    ok(fabs(got - 11e9) < 1, "one point, clocks at other rates", got, 11e9);
    printf("1..%d\n", tests);
    return failed != 0;
}
