#include "util.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

double mwc_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void mwc_sleep(double seconds)
{
    if (seconds <= 0)
        return;
    struct timespec ts;
    ts.tv_sec = (time_t)seconds;
    ts.tv_nsec = (long)((seconds - (double)ts.tv_sec) * 1e9);
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}

static void *checked(void *p)
{
    if (!p) {
        fputs("mpiwatch: out of memory\n", stderr);
        exit(1);
    }
    return p;
}

void *mwc_malloc(size_t n)
{
    return checked(malloc(n ? n : 1));
}

void *mwc_calloc(size_t n, size_t size)
{
    return checked(calloc(n ? n : 1, size ? size : 1));
}

void *mwc_realloc(void *p, size_t n)
{
    return checked(realloc(p, n ? n : 1));
}

char *mwc_strndup(const char *s, size_t n)
{
    char *d = mwc_malloc(n + 1);
    if (n)
        memcpy(d, s, n);
    d[n] = '\0';
    return d;
}

void mwc_print_ns(FILE *out, uint64_t ns)
{
    fprintf(out, "%" PRIu64 ".%09" PRIu64, ns / 1000000000u, ns % 1000000000u);
}

char *mwc_printable(char *s)
{
    for (unsigned char *p = (unsigned char *)s; p != NULL && *p; p++)
        if (*p < 0x20 || *p > 0x7e)
            *p = '?';
    return s;
}
