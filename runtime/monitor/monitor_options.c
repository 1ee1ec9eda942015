/* The monitor's options: MPIWATCH_MONITOR* variables and the program's
 * --port-in-* flags, which are taken out of argv before the program (or the
 * MPI) sees them, and --help, which is left for the program. A bad value gets one warning naming the
 * variable (or flag) and the value, then the default; warnings are kept
 * until the rank is known, so that only rank 0 prints them. */
#define _DEFAULT_SOURCE   /* syscall(SYS_gettid) */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "monitor/monitor.h"
#include "core/state.h"
#include "core/warn.h"

#define MW_DEFAULT_BUFFER 16384
#define MW_MAX_BUFFER (1u << 24)
#define MW_DEFAULT_NICE 19

mw_monitor_options mw_monitor_opts = {
    .publish = MW_PUBLISH_OFF, .transport = MW_TRANSPORT_TCP,
    .buffer = MW_DEFAULT_BUFFER, .interval = 1.0, .nice = MW_DEFAULT_NICE};

static int loaded;
static char problems[8][320];
static int nproblems;

static void problem(const char *fmt, ...) MW_PRINTF(1, 2);
static void problem(const char *fmt, ...)
{
    va_list ap;
    if (nproblems >= (int)(sizeof problems / sizeof problems[0]))
        return;
    va_start(ap, fmt);
    vsnprintf(problems[nproblems++], sizeof problems[0], fmt, ap);
    va_end(ap);
}

static int set_file(const char *path, const char *what)
{
    if (strlen(path) >= sizeof mw_monitor_opts.file) {
        problem("%s is longer than %zu characters; the monitor is off", what,
                sizeof mw_monitor_opts.file - 1);
        mw_monitor_opts.publish = MW_PUBLISH_OFF;
        return -1;
    }
    snprintf(mw_monitor_opts.file, sizeof mw_monitor_opts.file, "%s", path);
    mw_monitor_opts.publish = MW_PUBLISH_FILE;
    return 0;
}

static void monitor_var(void)
{
    const char *v = getenv("MPIWATCH_MONITOR");
    if (v == NULL || *v == '\0' || strcmp(v, "off") == 0)
        mw_monitor_opts.publish = MW_PUBLISH_OFF;
    else if (strcmp(v, "stdout") == 0)
        mw_monitor_opts.publish = MW_PUBLISH_STDOUT;
    else if (strcmp(v, "stderr") == 0)
        mw_monitor_opts.publish = MW_PUBLISH_STDERR;
    else if (strncmp(v, "file:", 5) == 0 && v[5] != '\0')
        set_file(v + 5, "MPIWATCH_MONITOR's file name");
    else
        problem("MPIWATCH_MONITOR='%s' is not off, stdout, stderr or file:PATH; using 'off'", v);
}

static void transport_var(void)
{
    const char *v = getenv("MPIWATCH_TRANSPORT");
    if (v == NULL || *v == '\0' || strcmp(v, "tcp") == 0)
        mw_monitor_opts.transport = MW_TRANSPORT_TCP;
    else if (strcmp(v, "mpi") == 0)
        mw_monitor_opts.transport = MW_TRANSPORT_MPI;
    else
        problem("MPIWATCH_TRANSPORT='%s' is not tcp or mpi; using 'tcp'", v);
}

static void bind_var(void)
{
    const char *v = getenv("MPIWATCH_BIND");
    mw_monitor_opts.bind[0] = '\0';
    if (v == NULL || *v == '\0')
        return;
    if (strlen(v) >= sizeof mw_monitor_opts.bind || strchr(v, ' ') != NULL)
        problem("MPIWATCH_BIND='%s' is not an address; listening on every address", v);
    else
        snprintf(mw_monitor_opts.bind, sizeof mw_monitor_opts.bind, "%s", v);
}

/* A number in [lo, hi]; otherwise a warning and the fallback. */
static double number(const char *var, double lo, double hi, double fallback, const char *what)
{
    const char *v = getenv(var);
    if (v == NULL || *v == '\0')
        return fallback;
    char *end;
    double x = strtod(v, &end);
    if (end == v || *end != '\0' || !(x >= lo && x <= hi)) {
        problem("%s='%s' is not %s; using %g", var, v, what, fallback);
        return fallback;
    }
    return x;
}

/* MPIWATCH_NODE_SIZE: node leaders (docs/protocol.md), off unless asked. */
static void node_size_var(void)
{
    const char *v = getenv("MPIWATCH_NODE_SIZE");
    char *end = NULL;
    if (v == NULL || *v == '\0')
        return;
    if (strcmp(v, "host") == 0) {
        mw_monitor_opts.node_size = MW_NODE_HOST;
        return;
    }
    long k = strtol(v, &end, 10);
    if (*end != '\0' || k < 0 || k > 1000000)
        problem("MPIWATCH_NODE_SIZE='%s' is not host or a number of ranks from 0 to 1000000; "
                "every rank serves its own client", v);
    else
        mw_monitor_opts.node_size = (int)k;
}

static void load_variables(void)
{
    monitor_var();
    node_size_var();
    transport_var();
    bind_var();
    mw_monitor_opts.wait = number("MPIWATCH_WAIT", 0, 86400, 0,
                                  "a number of seconds from 0 to 86400");
    mw_monitor_opts.interval = number("MPIWATCH_MONITOR_INTERVAL", 0.01, 86400, 1.0,
                                      "a number of seconds from 0.01 to 86400");
    double nice = number("MPIWATCH_MONITOR_NICE", 0, 19, MW_DEFAULT_NICE,
                         "a nice increment from 0 to 19");
    if (nice != (int)nice) {
        problem("MPIWATCH_MONITOR_NICE='%s' is not a whole number; using %d",
                getenv("MPIWATCH_MONITOR_NICE"), MW_DEFAULT_NICE);
        nice = MW_DEFAULT_NICE;
    }
    mw_monitor_opts.nice = (int)nice;
    const char *v = getenv("MPIWATCH_MONITOR_BUFFER");
    char *end = NULL;
    unsigned long long n = MW_DEFAULT_BUFFER;
    if (v != NULL && *v != '\0') {
        n = strtoull(v, &end, 10);
        if (*v == '-' || *end != '\0' || n < 16 || n > MW_MAX_BUFFER) {
            problem("MPIWATCH_MONITOR_BUFFER='%s' is not a number of events from 16 to %u; "
                    "using %d", v, MW_MAX_BUFFER, MW_DEFAULT_BUFFER);
            n = MW_DEFAULT_BUFFER;
        }
    }
    mw_monitor_opts.buffer = (size_t)n;
}

/* Take mpiwatch's flags out of argv (up to a "--", which is left alone). */
static void take_flags(int *argc, char ***argv)
{
    if (argc == NULL || argv == NULL || *argv == NULL || *argc < 1)
        return;
    char **a = *argv;
    int n = *argc, out = 1;
    int i = 1;
    for (; i < n && a[i] != NULL; i++) {
        const char *s = a[i];
        if (strcmp(s, "--") == 0)
            break;
        if (strcmp(s, "--port-in-stdout") == 0) {
            mw_monitor_opts.publish = MW_PUBLISH_STDOUT;
        } else if (strcmp(s, "--port-in-stderr") == 0) {
            mw_monitor_opts.publish = MW_PUBLISH_STDERR;
        } else if (strcmp(s, "--port-in-file") == 0) {
            if (i + 1 < n && a[i + 1] != NULL && strncmp(a[i + 1], "--", 2) != 0)
                set_file(a[++i], "--port-in-file's file name");
            else
                problem("--port-in-file needs a FILE; the flag is ignored");
        } else if (strncmp(s, "--port-in-file=", 15) == 0 && s[15] != '\0') {
            set_file(s + 15, "--port-in-file's file name");
        } else if (strcmp(s, "--help") == 0) {
            mw_monitor_opts.help = 1;   /* and left for the program's own help */
            a[out++] = a[i];
        } else {
            a[out++] = a[i];
        }
    }
    for (; i < n; i++)
        a[out++] = a[i];
    if (out < n) {
        for (int k = out; k < n; k++)
            a[k] = NULL;
        *argc = out;
    }
}

/* MPI_Init(NULL, NULL), and every Fortran program, whose MPI_INIT has no
 * arguments: the flags are read from the process's command line. They stay
 * in the program's own view of it, which mpiwatch cannot change. */
static void take_flags_from_cmdline(void)
{
    enum { MAX_BYTES = 1 << 20, MAX_ARGS = 4096 };
    FILE *f = fopen("/proc/self/cmdline", "rb");
    if (f == NULL)
        return;
    char *buf = malloc(MAX_BYTES + 1);
    char **args = malloc(MAX_ARGS * sizeof *args);
    size_t len = buf ? fread(buf, 1, MAX_BYTES, f) : 0;
    fclose(f);
    if (buf != NULL && args != NULL && len > 0) {
        buf[len] = '\0';
        int n = 0;
        for (size_t at = 0; at < len && n < MAX_ARGS; at += strlen(buf + at) + 1)
            args[n++] = buf + at;
        take_flags(&n, &args);
    }
    free(args);
    free(buf);
}

void mw_monitor_options_load(int *argc, char ***argv)
{
    if (loaded)
        return;
    loaded = 1;
    load_variables();
    if (argc == NULL || argv == NULL || *argv == NULL)
        take_flags_from_cmdline();
    else
        take_flags(argc, argv);
}

void mw_monitor_options_report(int loud)
{
    for (int i = 0; loud && i < nproblems; i++)
        mw_warn("%s", problems[i]);
    nproblems = 0;
}

void mw_monitor_print_help(void)
{
    fprintf(stdout,
            "mpiwatch options (the --port-in-* flags are taken out of the program's arguments;\n"
            "--help is left, so the program can print its own help below):\n"
            "  --port-in-stdout      publish each rank's monitor endpoint on standard output\n"
            "  --port-in-stderr      publish them on standard error\n"
            "  --port-in-file FILE   publish them in FILE, one line per rank (owner-only)\n"
            "  --help                print this help; the program runs as usual\n"
            "Variables: MPIWATCH_MONITOR=off|stdout|stderr|file:PATH, MPIWATCH_TRANSPORT=tcp|mpi,\n"
            "  MPIWATCH_BIND=ADDRESS, MPIWATCH_WAIT=SECONDS, MPIWATCH_MONITOR_BUFFER=EVENTS,\n"
            "  MPIWATCH_MONITOR_INTERVAL=SECONDS, MPIWATCH_MONITOR_NICE=0..19, MPIWATCH_OUTDIR,\n"
            "  MPIWATCH_NODE_SIZE=host|RANKS (node leaders serve their node's ranks),\n"
            "  MPIWATCH_LEVEL, MPIWATCH_TIMER, MPIWATCH_FORMATS (see mpiwatch's README and\n"
            "  docs/protocol.md)\n");
    fflush(stdout);
}

/* MPIWATCH_MONITOR_NICE, applied by each monitor thread to itself (the
 * sender, a node leader's relay). The threads yield the CPU to the
 * application: on a node whose cores the
 * ranks keep busy (MPI progress engines spin), a sender at the ranks'
 * priority would take time slices from them, and the job would slow down
 * by what the monitor costs. Linux applies a nice value to the one thread
 * named by its id. */
void mw_monitor_lower_priority(void)
{
#ifdef SYS_gettid
    if (mw_monitor_opts.nice == 0)
        return;
    errno = 0;
    int now = getpriority(PRIO_PROCESS, 0);
    if (now == -1 && errno != 0)
        now = 0;
    int want = now + mw_monitor_opts.nice > 19 ? 19 : now + mw_monitor_opts.nice;
    if (setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), want) != 0)
        mw_warn("cannot lower the monitor thread's priority (MPIWATCH_MONITOR_NICE=%d): %s; "
                "it runs at the ranks' priority", mw_monitor_opts.nice, strerror(errno));
#endif
}

/* ------------------------------------------------------------ MPI_Init */

/* MPI ports accept in a background thread, so they need MPI_THREAD_MULTIPLE
 * (which the life cycle then asks for: lifecycle/thread_level.c). */
int mw_monitor_wants_threads(void)
{
    return mw_monitor_opts.publish != MW_PUBLISH_OFF && mw_monitor_opts.transport == MW_TRANSPORT_MPI;
}
