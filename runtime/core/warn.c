/* mw_warn: one line per warning on stderr, prefixed with the rank. */
#include <stdarg.h>
#include <stdio.h>

#include "core/state.h"
#include "core/warn.h"

void mw_warn(const char *fmt, ...)
{
    char line[512];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    if (mw_state.world_rank >= 0)
        fprintf(stderr, "mpiwatch: rank %d: warning: %s\n", mw_state.world_rank, line);
    else
        fprintf(stderr, "mpiwatch: warning: %s\n", line);
}
