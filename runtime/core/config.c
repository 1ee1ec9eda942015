/* Configuration from MPIWATCH_* environment variables. A bad value gets a
 * warning naming the variable and the value, then the default. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/callstacks.h"
#include "core/dump_options.h"
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

/* A size in bytes with an optional K, M or G (powers of 1024), from 256K to
 * 64G: the trace's buffer bound. */
#define MW_TRACE_BUFFER_DEFAULT (64ull << 20)
static unsigned long long byte_size(const char *var)
{
    const char *value = getenv(var);
    if (value == NULL || *value == '\0')
        return MW_TRACE_BUFFER_DEFAULT;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(value, &end, 10);
    int shift = *end == 'K' || *end == 'k' ? 10 : *end == 'M' || *end == 'm' ? 20
                : *end == 'G' || *end == 'g' ? 30 : 0;
    if (shift != 0)
        end++;
    int ok = *value >= '0' && *value <= '9' && errno == 0 && *end == '\0' &&
             v <= (64ull << 30) >> shift;
    v <<= shift;
    if (!ok || v < (256ull << 10) || v > (64ull << 30)) {
        if (loud)
            mw_warn("%s='%s' is not a size in bytes from 256K to 64G (a number with an optional "
                    "K, M or G, such as 64M); using 64M", var, value);
        return MW_TRACE_BUFFER_DEFAULT;
    }
    return v;
}

/* MPIWATCH_TRACE_RANKS: does a list of ranks and ranges (0-15,1000) hold
 * rank? Unset or empty: every rank; a bad list: every rank, said. */
static int rank_listed(const char *var, int rank)
{
    const char *value = getenv(var), *p = value;
    int listed = 0;
    if (value == NULL || *value == '\0')
        return 1;
    for (;;) {
        char *end;
        if (*p < '0' || *p > '9')
            break;
        unsigned long first = strtoul(p, &end, 10), last = first;
        if (*end == '-') {
            if (end[1] < '0' || end[1] > '9')
                break;
            last = strtoul(end + 1, &end, 10);
        }
        if (last < first || last > 1ul << 30)
            break;
        listed |= (unsigned long)rank >= first && (unsigned long)rank <= last;
        if (*end == '\0')
            return listed;
        if (*end != ',')
            break;
        p = end + 1;
    }
    if (loud)
        mw_warn("%s='%s' is not a list of ranks and ranges separated by commas (such as "
                "0-15,1000); every rank is traced", var, value);
    return 1;
}

/* A comma-separated list of text, json and html, in any order, or none. */
static int formats(const char *var)
{
    static const struct { const char *name; int bit; } known[] = {
        {"text", MW_FORMAT_TEXT}, {"json", MW_FORMAT_JSON}, {"html", MW_FORMAT_HTML}};
    const char *value = getenv(var);
    if (value == NULL || *value == '\0')
        return MW_FORMAT_TEXT | MW_FORMAT_JSON;
    if (strcmp(value, "none") == 0)
        return 0;
    int bits = 0;
    for (const char *p = value; bits >= 0;) {
        size_t len = strcspn(p, ",");
        int bit = -1;
        for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
            if (len == strlen(known[i].name) && strncmp(p, known[i].name, len) == 0)
                bit = known[i].bit;
        if (bit < 0)
            bits = -1;
        else
            bits |= bit;
        if (p[len] == '\0')
            break;
        p += len + 1;
    }
    if (bits > 0)
        return bits;
    if (loud)
        mw_warn("%s='%s' is not a list of text, json and html (such as text,json,html), "
                "or none; using text,json", var, value);
    return MW_FORMAT_TEXT | MW_FORMAT_JSON;
}

/* The user's name for the run: printable, up to 127 bytes; else none. */
static void label(char *out, size_t size, const char *var)
{
    const char *value = getenv(var);
    out[0] = '\0';
    if (value == NULL)
        return;
    size_t n = strlen(value);
    int printable = 1;
    for (size_t i = 0; i < n; i++)
        printable &= (unsigned char)value[i] >= 0x20 && value[i] != 0x7f;
    if (n < size && printable) {
        memcpy(out, value, n + 1);
        return;
    }
    if (loud)
        mw_warn("%s is %s; the reports have no label", var,
                printable ? "longer than 127 bytes" : "not printable (it holds a control character)");
}

/* Every MPIWATCH_* variable the runtime reads, and those of mpiwatch's other
 * tools (the generator and its tests), which the job may inherit. */
static const char *const known_names[] = {
    "MPIWATCH_OUTDIR", "MPIWATCH_LEVEL", "MPIWATCH_TIMER", "MPIWATCH_FORMATS",
    "MPIWATCH_CALLSITE_DEPTH", "MPIWATCH_DUMP_SIGNALS", "MPIWATCH_DUMP_AT",
    "MPIWATCH_DUMP_EVERY", "MPIWATCH_DUMP_PEERS_WAIT", "MPIWATCH_MONITOR", "MPIWATCH_TRANSPORT", "MPIWATCH_BIND",
    "MPIWATCH_WAIT", "MPIWATCH_MONITOR_BUFFER", "MPIWATCH_MONITOR_INTERVAL",
    "MPIWATCH_MONITOR_NICE", "MPIWATCH_NODE_SIZE", "MPIWATCH_APIS_JSON", "MPIWATCH_DOCDIR", "MPIWATCH_TEST_CC",
    "MPIWATCH_UPDATE_GOLDEN", "MPIWATCH_TRACE", "MPIWATCH_TRACE_DIR", "MPIWATCH_TRACE_BUFFER",
    "MPIWATCH_LABEL", "MPIWATCH_REPORT_TIMING",
    "MPIWATCH_TRACE_RANKS", "MPIWATCH_TRACE_WINDOW", "MPIWATCH_TRACE_FUNCTIONS",
    "MPIWATCH_TRACE_OTF2", "MPIWATCH_TIMELINE_RANKS", "MPIWATCH_TIMELINE_WINDOW", NULL};

/* Edit distance between a and the first n characters of b, bounded. */
static int distance(const char *a, const char *b, size_t n)
{
    size_t la = strlen(a);
    int row[64];
    if (la >= 63 || n >= 63)
        return 99;
    for (size_t j = 0; j <= n; j++)
        row[j] = (int)j;
    for (size_t i = 1; i <= la; i++) {
        int diag = row[0];
        row[0] = (int)i;
        for (size_t j = 1; j <= n; j++) {
            int up = row[j], best = diag + (a[i - 1] != b[j - 1]);
            best = up + 1 < best ? up + 1 : best;
            best = row[j - 1] + 1 < best ? row[j - 1] + 1 : best;
            diag = up;
            row[j] = best;
        }
    }
    return row[n];
}

/* A warning for each MPIWATCH_* variable that mpiwatch does not know (a
 * typo would otherwise be silently ignored), naming the closest known one. */
static void check_names(void)
{
    extern char **environ;
    for (char **e = environ; e != NULL && *e != NULL; e++) {
        const char *eq = strchr(*e, '=');
        size_t n = eq ? (size_t)(eq - *e) : strlen(*e);
        if (strncmp(*e, "MPIWATCH_", 9) != 0)
            continue;
        int known = 0, best = 99;
        const char *closest = NULL;
        for (int i = 0; known_names[i] != NULL && !known; i++) {
            known = strlen(known_names[i]) == n && strncmp(known_names[i], *e, n) == 0;
            int d = distance(known_names[i], *e, n);
            if (d < best) {
                best = d;
                closest = known_names[i];
            }
        }
        if (!known)
            mw_warn("%.*s is not an mpiwatch variable; did you mean %s? (the README lists them)",
                    (int)(n < 64 ? n : 64), *e, closest);
    }
}

/* The report folder is checked now, not when the report is due. */
static void check_outdir(const char *dir)
{
    struct stat st;
    if (stat(dir, &st) != 0)
        mw_warn("MPIWATCH_OUTDIR='%s' cannot be used (%s); the report will be written to the "
                "current folder", dir, strerror(errno));
    else if (!S_ISDIR(st.st_mode))
        mw_warn("MPIWATCH_OUTDIR='%s' is not a folder; the report will be written to the "
                "current folder", dir);
    else if (access(dir, W_OK | X_OK) != 0)
        mw_warn("MPIWATCH_OUTDIR='%s' is not writable (%s); the report will be written to the "
                "current folder", dir, strerror(errno));
}

void mw_config_load(mw_config *config, int report_problems)
{
    loud = report_problems;
    outdir(config->outdir, sizeof config->outdir, "MPIWATCH_OUTDIR");
    config->initial_level = level("MPIWATCH_LEVEL", 1);
    config->timer = choice("MPIWATCH_TIMER", timer_choices);
    config->formats = formats("MPIWATCH_FORMATS");
    config->callsite_depth = mw_callsite_depth = depth("MPIWATCH_CALLSITE_DEPTH");
    config->dump_signals = mw_dump_signals("MPIWATCH_DUMP_SIGNALS", loud);
    config->dump_at = mw_dump_seconds("MPIWATCH_DUMP_AT", loud);
    config->dump_every = mw_dump_seconds("MPIWATCH_DUMP_EVERY", loud);
    config->dump_peers_wait = mw_dump_wait("MPIWATCH_DUMP_PEERS_WAIT", loud);
    config->trace = level("MPIWATCH_TRACE", 0);
    const char *trace_dir = getenv("MPIWATCH_TRACE_DIR");
    if (trace_dir != NULL && *trace_dir != '\0')
        outdir(config->trace_dir, sizeof config->trace_dir, "MPIWATCH_TRACE_DIR");
    else
        snprintf(config->trace_dir, sizeof config->trace_dir, "%s", config->outdir);
    config->trace_buffer = byte_size("MPIWATCH_TRACE_BUFFER");
    label(config->label, sizeof config->label, "MPIWATCH_LABEL");
    config->trace_rank = rank_listed("MPIWATCH_TRACE_RANKS", mw_state.world_rank);
    config->trace_otf2 = level("MPIWATCH_TRACE_OTF2", 1);
    if (loud) {
        check_names();
        if (config->formats != 0)
            check_outdir(config->outdir);
    }
}
