/* The client lowers its priority once it is busy (priority.h). */
#include "priority.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

static double wall_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* User and system time of the whole process, in seconds. */
static double cpu_now(void)
{
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru) != 0)
        return 0.0;
    return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
           (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e-6;
}

void mwc_priority_init(mwc_priority *p, int nice, int quiet)
{
    p->nice = nice;
    p->quiet = quiet;
    p->lowered = nice == 0;
    p->wall0 = wall_now();
    p->cpu0 = cpu_now();
    p->backlog0 = 0;
}

void mwc_priority_step(mwc_priority *p, unsigned long backlog_reads)
{
    if (p->lowered)
        return;
    double wall = wall_now();
    if (wall - p->wall0 < 1.0)
        return;
    double cpu = cpu_now();
    int busy = cpu - p->cpu0 > MWC_PRIORITY_BUSY_SHARE * (wall - p->wall0) ||
               backlog_reads - p->backlog0 >= MWC_PRIORITY_BACKLOG_READS;
    p->wall0 = wall;
    p->cpu0 = cpu;
    p->backlog0 = backlog_reads;
    if (!busy)
        return;
    p->lowered = 1;
    errno = 0;
    if (nice(p->nice) == -1 && errno != 0 && !p->quiet)
        fprintf(stderr, "mpiwatch: warning: --nice %d: %s; running at the usual priority\n",
                p->nice, strerror(errno));
}
