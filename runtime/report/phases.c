/* The report's phases timed (report/phases.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/state.h"
#include "report/phases.h"

#define MAX_PHASES 24

static struct phase {
    const char *name;
    double ms;
} phase[MAX_PHASES];
static int nphases;
static double last_ms = -1;
static size_t received, held_now, held_peak;
static long hwm_before = -1;

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}

void mw_phase_mark(const char *name)
{
    double now = now_ms();
    if (last_ms >= 0 && nphases < MAX_PHASES)
        phase[nphases++] = (struct phase){name, now - last_ms};
    last_ms = now;
}

/* The process's peak resident memory so far (VmHWM), in kB; -1 unknown. */
static long peak_kb(void)
{
    char line[256];
    long kb = -1;
    FILE *status = fopen("/proc/self/status", "r");
    while (status != NULL && fgets(line, sizeof line, status) != NULL)
        if (sscanf(line, "VmHWM: %ld", &kb) == 1)
            break;
    if (status != NULL)
        fclose(status);
    return kb;
}

void mw_phase_received(size_t bytes)
{
    received += bytes;
}

void mw_phase_hold(long long bytes)
{
    held_now += (size_t)bytes;
    if (held_now > held_peak)
        held_peak = held_now;
}

static int timing_on(void)
{
    const char *on = getenv("MPIWATCH_REPORT_TIMING");
    return mw_state.world_rank == 0 && on != NULL && strcmp(on, "1") == 0;
}

void mw_phase_begin(void)
{
    if (timing_on())
        hwm_before = peak_kb();
    last_ms = now_ms();
}

void mw_phase_print(void)
{
    double total = 0;
    if (!timing_on())
        return;
    fprintf(stderr, "mpiwatch: report timing on rank 0 of %d (ms):", mw_state.world_size);
    for (int i = 0; i < nphases; i++) {
        fprintf(stderr, " %s=%.2f", phase[i].name, phase[i].ms);
        total += phase[i].ms;
    }
    long after = peak_kb();
    fprintf(stderr, " total=%.2f sites_received_bytes=%zu sites_held_peak_bytes=%zu peak_rss_kb=%ld"
            " peak_rss_growth_kb=%ld\n", total, received, held_peak, after,
            hwm_before >= 0 && after >= 0 ? after - hwm_before : -1);
}
