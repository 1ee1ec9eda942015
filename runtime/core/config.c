/* Configuration from MPIWATCH_* environment variables. A bad value gets a
 * warning naming the variable and the value, then the default. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/callstacks.h"
#include "core/state.h"
#include "core/warn.h"

static const char *const timer_choices[] = {"auto", "tsc", "clock_gettime", NULL};

/* Warnings are printed only when asked (once the rank is known, by rank 0),
 * so that a bad value is reported once per job, not once per process. */
static int loud;

static const char *choice(const char *var, const char *const *allowed)
{
    const char *value = getenv(var);
    if (value == NULL || *value == '\0')
        return allowed[0];
    for (int i = 0; allowed[i] != NULL; i++)
        if (strcmp(value, allowed[i]) == 0)
            return allowed[i];
    if (loud)
        mw_warn("%s='%s' is not one of auto, tsc, clock_gettime; using '%s'", var, value, allowed[0]);
    return allowed[0];
}

static int level(const char *var, int fallback)
{
    const char *value = getenv(var);
    if (value == NULL || *value == '\0')
        return fallback;
    char *end;
    long v = strtol(value, &end, 10);
    if (*end != '\0' || (v != 0 && v != 1)) {
        if (loud)
            mw_warn("%s='%s' is not 0 (off) or 1 (on); using %d", var, value, fallback);
        return fallback;
    }
    return (int)v;
}

static int depth(const char *var)
{
    const char *value = getenv(var);
    if (value == NULL || *value == '\0')
        return 1;
    char *end;
    long v = strtol(value, &end, 10);
    if (*end != '\0' || v < 1 || v > MW_CALLSTACK_MAX) {
        if (loud)
            mw_warn("%s='%s' is not a number of frames from 1 to %d; using 1", var, value,
                    MW_CALLSTACK_MAX);
        return 1;
    }
    return (int)v;
}

static void outdir(char *out, size_t size, const char *var)
{
    const char *value = getenv(var);
    if (value == NULL || *value == '\0')
        value = ".";
    if (strlen(value) >= size) {
        if (loud)
            mw_warn("%s is longer than %zu characters; using '.'", var, size - 1);
        value = ".";
    }
    snprintf(out, size, "%s", value);
}

static int formats(const char *var)
{
    static const struct { const char *name; int bits; } known[] = {
        {"text,json", MW_FORMAT_TEXT | MW_FORMAT_JSON}, {"json,text", MW_FORMAT_TEXT | MW_FORMAT_JSON},
        {"text", MW_FORMAT_TEXT}, {"json", MW_FORMAT_JSON}, {"none", 0}};
    const char *value = getenv(var);
    if (value == NULL || *value == '\0')
        return MW_FORMAT_TEXT | MW_FORMAT_JSON;
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
        if (strcmp(value, known[i].name) == 0)
            return known[i].bits;
    if (loud)
        mw_warn("%s='%s' is not text, json, text,json or none; using text,json", var, value);
    return MW_FORMAT_TEXT | MW_FORMAT_JSON;
}

void mw_config_load(mw_config *config, int report_problems)
{
    loud = report_problems;
    outdir(config->outdir, sizeof config->outdir, "MPIWATCH_OUTDIR");
    config->initial_level = level("MPIWATCH_LEVEL", 1);
    config->timer = choice("MPIWATCH_TIMER", timer_choices);
    config->formats = formats("MPIWATCH_FORMATS");
    config->callsite_depth = mw_callsite_depth = depth("MPIWATCH_CALLSITE_DEPTH");
}
