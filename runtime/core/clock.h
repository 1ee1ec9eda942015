/* The time source: a calibrated cycle counter where it is reliable (an
 * invariant TSC), otherwise clock_gettime(CLOCK_MONOTONIC). Timestamps are
 * opaque ticks; mw_clock_seconds() converts a difference of ticks. */
#ifndef MW_CLOCK_H
#define MW_CLOCK_H

#include <stdint.h>
#include <time.h>

#include "core/compiler.h"

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#define MW_HAVE_TSC 1
#else
#define MW_HAVE_TSC 0
#endif

/* Nonzero when mw_now() reads the TSC. Set once, at load time. */
extern MW_HIDDEN int mw_clock_use_tsc;

static inline uint64_t mw_clock_monotonic_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static inline uint64_t mw_now(void)
{
#if MW_HAVE_TSC
    if (MW_LIKELY(mw_clock_use_tsc))
        return __rdtsc();
#endif
    return mw_clock_monotonic_ns();
}

/* The wrappers' fast path, which mw_mode_update() installs only when
 * mw_clock_use_tsc is set: no test, no call. */
static inline uint64_t mw_now_tsc(void)
{
#if MW_HAVE_TSC
    return __rdtsc();
#else
    return mw_clock_monotonic_ns();
#endif
}

/* Choose the time source ("auto", "tsc" or "clock_gettime") and record the
 * calibration's starting point. Called once, when the library is loaded. */
MW_HIDDEN void mw_clock_init(const char *choice);

/* Seconds in a number of ticks, calibrated against CLOCK_MONOTONIC. */
MW_HIDDEN double mw_clock_seconds(uint64_t ticks);

/* A description of the time source for the report, e.g. "tsc (2.10 GHz)". */
MW_HIDDEN const char *mw_clock_name(void);

#endif
