/* MPIWATCH_TRACE_WINDOW and MPIWATCH_TRACE_FUNCTIONS (trace/limits.h). The
 * categories are the function table's (mw_fn_categories, from the spec). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/warn.h"
#include "mw_functions.h"
#include "trace/limits.h"

static struct {
    double from, until;            /* seconds after MPI_Init; until < 0: open */
    uint64_t from_tick, until_tick;
    unsigned char skip[MW_FN_COUNT];
    char text[1024];               /* "VARIABLE=value\n" for each limit in force */
} lim = {.until = -1, .until_tick = UINT64_MAX};

/* A number of seconds >= 0, or an empty side; 0 when bad. */
static int seconds(const char *s, size_t n, double *out, double fallback)
{
    char buf[64], *end;
    if (n == 0) {
        *out = fallback;
        return 1;
    }
    if (n >= sizeof buf || s[0] < '0' || s[0] > '9')
        return 0;
    memcpy(buf, s, n);
    buf[n] = '\0';
    *out = strtod(buf, &end);
    return *end == '\0' && *out >= 0 && *out < 1e9;
}

static void note(const char *var, const char *value)
{
    size_t used = strlen(lim.text);
    snprintf(lim.text + used, sizeof lim.text - used, "%s=%s\n", var, value);
}

static void window(int loud)
{
    const char *var = "MPIWATCH_TRACE_WINDOW", *value = getenv(var);
    lim.from = 0;
    lim.until = -1;
    if (value == NULL || *value == '\0')
        return;
    const char *colon = strchr(value, ':');
    double from, until;
    if (colon != NULL && strcmp(value, ":") != 0 &&
        seconds(value, (size_t)(colon - value), &from, 0) &&
        seconds(colon + 1, strlen(colon + 1), &until, -1) && (until < 0 || until > from)) {
        lim.from = from;
        lim.until = until;
        note(var, value);
        return;
    }
    if (loud)
        mw_warn("%s='%s' is not START:END in seconds after MPI_Init, START before END, either "
                "side empty for open (such as 10:30, 10: or :30); no window is applied", var,
                value);
}

/* Mark the functions that item (a name or a category) names; 0: none. */
static int mark(const char *item, size_t n, unsigned char *chosen)
{
    int found = 0;
    for (int i = 0; i < MW_FN_COUNT; i++) {
        const char *name = mw_fn_names[i], *cat = mw_fn_categories[i];
        if ((strlen(name) == n && strncmp(name, item, n) == 0) ||
            (strlen(cat) == n && strncmp(cat, item, n) == 0)) {
            chosen[i] = 1;
            found = 1;
        }
    }
    return found;
}

/* The distinct categories of the table, separated by commas. */
static void categories(char *out, size_t size)
{
    out[0] = '\0';
    for (int i = 0; i < MW_FN_COUNT; i++) {
        int seen = 0;
        for (int j = 0; j < i && !seen; j++)
            seen = strcmp(mw_fn_categories[j], mw_fn_categories[i]) == 0;
        size_t used = strlen(out);
        if (!seen)
            snprintf(out + used, size - used, "%s%s", used ? ", " : "", mw_fn_categories[i]);
    }
}

static void functions(int loud)
{
    const char *var = "MPIWATCH_TRACE_FUNCTIONS", *value = getenv(var);
    static unsigned char in[MW_FN_COUNT], out[MW_FN_COUNT];
    memset(lim.skip, 0, sizeof lim.skip);
    if (value == NULL || *value == '\0')
        return;
    memset(in, 0, sizeof in);
    memset(out, 0, sizeof out);
    int includes = 0, ok = 1;
    for (const char *p = value; ok;) {
        size_t len = strcspn(p, ",");
        int minus = len > 0 && *p == '-';
        includes |= !minus;
        ok = len > (size_t)minus && mark(p + minus, len - (size_t)minus, minus ? out : in);
        if (p[len] == '\0')
            break;
        p += len + 1;
    }
    if (!ok) {
        char known[512];
        categories(known, sizeof known);
        if (loud)
            mw_warn("%s='%s' is not a list of MPI function names or categories to include, "
                    "or -NAME to exclude, separated by commas (such as MPI_Send,MPI_Recv or "
                    "-completion,-probe; the categories: %s); every function is traced", var,
                    value, known);
        return;
    }
    for (int i = 0; i < MW_FN_COUNT; i++)
        lim.skip[i] = (includes && !in[i]) || out[i];
    note(var, value);
}

void mw_trace_limits_load(int loud)
{
    lim.text[0] = '\0';
    window(loud);
    functions(loud);
}

void mw_trace_limits_begin(uint64_t origin, double ticks_per_second)
{
    /* No start: MPI_Init itself (entered before the origin) is kept too. */
    lim.from_tick = lim.from > 0 ? origin + (uint64_t)(lim.from * ticks_per_second) : 0;
    lim.until_tick = lim.until < 0 ? UINT64_MAX
                                   : origin + (uint64_t)(lim.until * ticks_per_second);
    int any = lim.from_tick != 0 || lim.until_tick != UINT64_MAX;
    for (int i = 0; i < MW_FN_COUNT; i++)
        any |= lim.skip[i];
    mw_trace_limited = any;
}

int mw_trace_limited;

int mw_trace_limits_skip(int id, uint64_t t_in)
{
    return t_in < lim.from_tick || t_in > lim.until_tick || lim.skip[id];
}

const char *mw_trace_limits_text(void)
{
    return lim.text;
}
