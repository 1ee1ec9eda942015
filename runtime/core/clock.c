/* Time source selection and TSC calibration.
 *
 * The TSC is used only when the CPU says it is invariant (constant rate in
 * every power state, synchronised across cores); its rate is measured against
 * CLOCK_MONOTONIC over the whole run, which needs no start-up delay and is
 * more accurate the longer the job runs. */
#include <stdio.h>
#include <string.h>

#include "core/clock.h"

#if MW_HAVE_TSC
#include <cpuid.h>
#endif

int mw_clock_use_tsc;

static uint64_t ref_ticks;   /* TSC at the calibration start */
static uint64_t ref_ns;      /* CLOCK_MONOTONIC at the same moment */
static double ns_per_tick = 1.0;
static int calibrated;
static char name[64];

/* Shortest span a calibration may rest on; shorter runs wait this long once. */
#define MW_CALIBRATION_MIN_NS 2000000u

static int tsc_is_invariant(void)
{
#if MW_HAVE_TSC
    unsigned int eax, ebx, ecx, edx;
    if (__get_cpuid(0x80000000u, &eax, &ebx, &ecx, &edx) == 0 || eax < 0x80000007u)
        return 0;
    __get_cpuid(0x80000007u, &eax, &ebx, &ecx, &edx);
    return (edx >> 8) & 1u;
#else
    return 0;
#endif
}

void mw_clock_init(const char *choice)
{
    int want_tsc = choice == NULL || strcmp(choice, "auto") == 0 ? tsc_is_invariant()
                                                                  : strcmp(choice, "tsc") == 0;
    mw_clock_use_tsc = want_tsc && MW_HAVE_TSC;
    calibrated = !mw_clock_use_tsc;
    ns_per_tick = 1.0;
    ref_ns = mw_clock_monotonic_ns();
    ref_ticks = mw_now();
}

static void calibrate(void)
{
    uint64_t ns = mw_clock_monotonic_ns();
    while (ns - ref_ns < MW_CALIBRATION_MIN_NS)
        ns = mw_clock_monotonic_ns();
    uint64_t ticks = mw_now();
    if (ticks > ref_ticks)
        ns_per_tick = (double)(ns - ref_ns) / (double)(ticks - ref_ticks);
    calibrated = 1;
}

double mw_clock_seconds(uint64_t ticks)
{
    if (!calibrated)
        calibrate();
    return (double)ticks * ns_per_tick * 1e-9;
}

const char *mw_clock_name(void)
{
    if (!mw_clock_use_tsc)
        return "clock_gettime(CLOCK_MONOTONIC)";
    if (!calibrated)
        calibrate();
    snprintf(name, sizeof name, "tsc (invariant, %.3f GHz)", 1.0 / ns_per_tick);
    return name;
}
