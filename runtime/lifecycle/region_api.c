/* The named regions' API (include/mpiwatch.h), C and Fortran: the report's
 * region tables (core/user_regions.c) and, while the trace records, a mark
 * at each boundary (trace/trace.h), at the same tick. */
#include <string.h>

#include "mpiwatch.h"
#include "mpiwatch_trace.h"
#include "core/clock.h"
#include "core/compiler.h"
#include "core/user_regions.h"
#include "trace/trace.h"

static void begin(const char *name, size_t len)
{
    uint64_t now = mw_now();
    int id = mw_region_enter(name, len, now);
    if (id >= 0)
        mw_trace_mark(MWT_MARK_BEGIN, id, now);
}

static void end(const char *name, size_t len)
{
    uint64_t now = mw_now();
    int id = mw_region_leave(name, len, now);
    if (id >= 0)
        mw_trace_mark(MWT_MARK_END, id, now);
}

MW_EXPORT void mpiwatch_region_begin(const char *name)
{
    if (name != NULL)
        begin(name, strlen(name));
}

MW_EXPORT void mpiwatch_region_end(const char *name)
{
    if (name != NULL)
        end(name, strlen(name));
}

/* CHARACTER arguments come with a hidden length; trailing blanks are not
 * part of the name. */
static size_t fortran_length(const char *name, size_t len)
{
    while (len > 0 && name[len - 1] == ' ')
        len--;
    return len;
}

#define MW_FORTRAN_REGION(fname, fn) \
    MW_EXPORT void fname(const char *name, size_t len) { fn(name, fortran_length(name, len)); }
MW_FORTRAN_REGION(mpiwatch_region_begin_, begin)
MW_FORTRAN_REGION(mpiwatch_region_begin__, begin)
MW_FORTRAN_REGION(MPIWATCH_REGION_BEGIN, begin)
MW_FORTRAN_REGION(mpiwatch_region_end_, end)
MW_FORTRAN_REGION(mpiwatch_region_end__, end)
MW_FORTRAN_REGION(MPIWATCH_REGION_END, end)
