/* The partial profile's triggers from MPIWATCH_DUMP_*. Signals that cannot
 * be caught (KILL, STOP) or that mean a fault (SEGV and the like: the
 * process state cannot be trusted) are refused by name. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/dump_options.h"
#include "core/warn.h"

static const struct {
    const char *name;
    int sig;
} catchable[] = {{"TERM", SIGTERM}, {"INT", SIGINT},   {"XCPU", SIGXCPU}, {"USR1", SIGUSR1},
                 {"USR2", SIGUSR2}, {"HUP", SIGHUP},   {"QUIT", SIGQUIT}, {"ALRM", SIGALRM},
                 {"XFSZ", SIGXFSZ}, {"PWR", SIGPWR},   {"VTALRM", SIGVTALRM},
                 {"CONT", SIGCONT}};

/* The signal an entry of len characters names, or 0. */
static int signal_of(const char *p, size_t len)
{
    char word[16];
    if (len == 0 || len >= sizeof word)
        return 0;
    memcpy(word, p, len);
    word[len] = '\0';
    const char *w = strncasecmp(word, "SIG", 3) == 0 ? word + 3 : word;
    for (size_t i = 0; i < sizeof catchable / sizeof catchable[0]; i++)
        if (strcasecmp(w, catchable[i].name) == 0)
            return catchable[i].sig;
    char *end;
    long n = strtol(word, &end, 10);
    if (*end == '\0' && n >= SIGRTMIN && n <= SIGRTMAX && n < 64)
        return (int)n;
    for (size_t i = 0; *end == '\0' && i < sizeof catchable / sizeof catchable[0]; i++)
        if (n == catchable[i].sig)
            return (int)n;
    return 0;
}

uint64_t mw_dump_signals(const char *var, int loud)
{
    const char *value = getenv(var);
    if (value == NULL || *value == '\0')
        value = MW_DUMP_SIGNALS_DEFAULT;
    if (strcasecmp(value, "none") == 0)
        return 0;
    uint64_t mask = 0;
    for (const char *p = value;;) {
        size_t len = strcspn(p, ",");
        int sig = signal_of(p, len);
        if (sig > 0)
            mask |= 1ull << sig;
        else if (loud)
            mw_warn("%s: '%.*s' is not a signal mpiwatch can catch (names such as TERM, INT, "
                    "XCPU, USR1, USR2, CONT, HUP, QUIT, ALRM, or real-time signal numbers); left out",
                    var, (int)(len < 32 ? len : 32), p);
        if (p[len] == '\0')
            break;
        p += len + 1;
    }
    return mask;
}

double mw_dump_seconds(const char *var, int loud)
{
    const char *value = getenv(var);
    if (value == NULL || *value == '\0')
        return 0;
    char *end;
    double v = strtod(value, &end);
    if (*end != '\0' || !(v > 0) || v > 1e9) {
        if (loud)
            mw_warn("%s='%s' is not a number of seconds greater than 0; no dump on that account",
                    var, value);
        return 0;
    }
    return v;
}

double mw_dump_wait(const char *var, int loud)
{
    const char *value = getenv(var);
    if (value == NULL || *value == '\0')
        return MW_DUMP_PEERS_WAIT_DEFAULT;
    char *end;
    double v = strtod(value, &end);
    if (*end != '\0' || !(v >= 0) || v > 3600) {
        if (loud)
            mw_warn("%s='%s' is not a number of seconds from 0 to 3600; %g s it is", var, value,
                    MW_DUMP_PEERS_WAIT_DEFAULT);
        return MW_DUMP_PEERS_WAIT_DEFAULT;
    }
    return v;
}

const char *mw_signal_name(int sig, char *buf, int size)
{
    for (size_t i = 0; i < sizeof catchable / sizeof catchable[0]; i++)
        if (catchable[i].sig == sig) {
            snprintf(buf, (size_t)size, "SIG%s", catchable[i].name);
            return buf;
        }
    snprintf(buf, (size_t)size, "signal %d", sig);
    return buf;
}
