/* Who asks for a rank's partial profile (report/partial.c) and who writes
 * it: a helper thread, asleep in poll() on a pipe until a signal handler
 * writes the signal's number into it, or until the time of the next timed
 * dump. The thread writes the profile with no MPI call, so a rank stuck
 * inside MPI still gets its file.
 *
 * A handler does only async-signal-safe things: it writes to the pipe, waits
 * (poll, bounded by MW_DUMP_WAIT_MS) for the thread's acknowledgement, then
 * lets the signal take its course as without mpiwatch: it calls the handler
 * that was there before, or ignores the signal if it was ignored, or puts
 * back the default action and raises the signal again, which then kills the
 * process with the same status once the handler returns. The wait is bounded
 * so that a dump that cannot finish (a lock held by the interrupted thread,
 * a file system that hangs) never keeps a job from ending. */
#define _GNU_SOURCE   /* pipe2, pthread_setname_np */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/dump_options.h"
#include "core/state.h"
#include "core/warn.h"
#include "lifecycle/partial_dumper.h"
#include "lifecycle/peer_dumps.h"
#include "report/report.h"

/* How long a signal handler waits for the dump before it passes the signal
 * on: well inside the grace time batch systems give (SLURM's KillWait is 30 s). */
#define MW_DUMP_WAIT_MS 5000
/* The byte that tells the thread to end (signal numbers are below 64). */
#define MW_DUMP_STOP 0xff
/* How often the thread looks for a peer's request (lifecycle/peer_dumps.c):
 * one stat() each time. */
#define MW_PEER_CHECK_MS 100

static int wake[2] = {-1, -1}, ack[2] = {-1, -1};
static pthread_t thread;
static int running;
static volatile sig_atomic_t handling;   /* handlers dump only while the thread runs */
static int handler_wait_ms = MW_DUMP_WAIT_MS;   /* and a fault's wait for the peers' files */
static pid_t owner;   /* the process whose thread it is: a forked child has none */
static struct sigaction previous[64];

/* Let sig take its course as it would without mpiwatch. */
static void pass_on(int sig, siginfo_t *info, void *context)
{
    const struct sigaction *old = &previous[sig];
    if (old->sa_flags & SA_SIGINFO) {
        if (old->sa_sigaction != NULL)
            old->sa_sigaction(sig, info, context);
    } else if (old->sa_handler == SIG_DFL && sig == SIGCONT) {
        /* the process was continued when the signal was sent: nothing more */
    } else if (old->sa_handler == SIG_DFL) {
        /* sig is blocked while its handler runs: raised now, it is delivered
         * with the default action as soon as this handler returns. */
        sigaction(sig, old, NULL);
        raise(sig);
    } else if (old->sa_handler != SIG_IGN) {
        old->sa_handler(sig);
    }
}

static void on_signal(int sig, siginfo_t *info, void *context)
{
    int saved = errno;
    if (handling && getpid() == owner) {
        unsigned char byte = (unsigned char)sig, drop;
        while (read(ack[0], &drop, 1) == 1)
            ;   /* acknowledgements that came after an earlier handler gave up */
        if (write(wake[1], &byte, 1) == 1) {
            struct pollfd p = {.fd = ack[0], .events = POLLIN};
            if (poll(&p, 1, handler_wait_ms) == 1)
                (void)!read(ack[0], &drop, 1);
        }
    }
    errno = saved;
    pass_on(sig, info, context);
}

/* The launcher may end the node's other ranks as soon as one dies of the
 * signal (MPICH's Hydra sends SIGKILL about 5 ms after the TERM it
 * forwarded, once a rank is gone): so a rank done first waits, at most
 * MW_NODE_WAIT_MS, until as many fresh partial files of this program and
 * size are in the report folder as the launcher says the node has ranks. */
#define MW_NODE_WAIT_MS 1000

static int node_ranks(void)
{
    static const char *const vars[] = {"OMPI_COMM_WORLD_LOCAL_SIZE", "MPI_LOCALNRANKS",
                                       "SLURM_NTASKS_PER_NODE", NULL};
    for (int i = 0; vars[i] != NULL; i++) {
        const char *v = getenv(vars[i]);
        if (v != NULL && atoi(v) > 0)
            return atoi(v);
    }
    return 0;
}

static void wait_for_node(const struct timespec *since)
{
    int want = node_ranks();
    if (want > 1)
        mw_partial_wait_for(want, since, MW_NODE_WAIT_MS);
}

void mw_dumper_wait_for_node(int since_seconds)
{
    struct timespec since;
    clock_gettime(CLOCK_REALTIME, &since);
    since.tv_sec -= since_seconds;
    wait_for_node(&since);
}

static double monotonic(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The next timed dump after now (seconds on the monotonic clock), or -1. */
static double next_due(double start, double now, int *at_done)
{
    const mw_config *c = &mw_state.config;
    double due = -1;
    if (c->dump_at > 0 && !*at_done)
        due = start + c->dump_at;
    if (c->dump_every > 0) {
        double k = (double)(long long)((now - start) / c->dump_every) + 1;
        double every = start + k * c->dump_every;
        if (due < 0 || every < due)
            due = every;
    }
    return due;
}

/* What the thread does when woken by signal sig: a fault's asks the peers
 * for their profiles (this rank's own state cannot be trusted); another's
 * dumps this rank, then waits for its node's ranks (see wait_for_node). */
static void on_wake(int sig)
{
    char reason[96], name[32];
    const char *fatal = mw_fatal_signal_name(sig);
    if (fatal != NULL) {
        mw_peer_dumps_request(fatal);
        return;
    }
    struct timespec since;
    clock_gettime(CLOCK_REALTIME, &since);
    since.tv_sec -= 1;   /* the siblings may have been signalled a little earlier */
    snprintf(reason, sizeof reason, "%s", mw_signal_name(sig, name, sizeof name));
    if (mw_partial_write(reason) == 0 && sig != SIGCONT)
        wait_for_node(&since);
}

static void *dumper(void *arg)
{
    (void)arg;
    sigset_t all;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, NULL);   /* a handler here would wait for itself */
    double start = monotonic();
    int at_done = 0, peers = mw_state.config.dump_peers_wait > 0 && mw_state.world_size > 1;
    char reason[192];
    for (;;) {
        double now = monotonic(), due = next_due(start, now, &at_done);
        int timeout = due < 0 ? -1 : due <= now ? 0 : (int)((due - now) * 1000) + 1;
        if (peers && (timeout < 0 || timeout > MW_PEER_CHECK_MS))
            timeout = MW_PEER_CHECK_MS;
        struct pollfd p = {.fd = wake[0], .events = POLLIN};
        int ready = poll(&p, 1, timeout);
        if (ready < 0 && errno == EINTR)
            continue;
        if (peers && mw_peer_dumps_asked(reason, sizeof reason))
            mw_partial_write(reason);
        if (ready == 0) {
            now = monotonic();
            const mw_config *c = &mw_state.config;
            int at = c->dump_at > 0 && !at_done && now >= start + c->dump_at;
            if (!at && !(c->dump_every > 0 && due >= 0 && now >= due))
                continue;   /* only the peers' check was due */
            at_done |= at;
            snprintf(reason, sizeof reason, at ? "MPIWATCH_DUMP_AT=%g" : "MPIWATCH_DUMP_EVERY=%g",
                     at ? c->dump_at : c->dump_every);
            mw_partial_write(reason);
            continue;
        }
        unsigned char byte;
        if (read(wake[0], &byte, 1) != 1)
            continue;
        if (byte == MW_DUMP_STOP)
            return NULL;
        on_wake(byte);
        (void)!write(ack[1], &byte, 1);
    }
}

/* Each handler keeps what the program's own asked for: its blocked signals,
 * and whether interrupted calls restart or fail with EINTR (they restart
 * where there was no handler, as nothing interrupted them then). */
static void install_handlers(uint64_t signals)
{
    for (int sig = 1; sig < 64; sig++) {
        struct sigaction sa;
        if (!(signals & (1ull << sig)) || sigaction(sig, NULL, &previous[sig]) != 0)
            continue;
        const struct sigaction *old = &previous[sig];
        int own = (old->sa_flags & SA_SIGINFO) ||
                  (old->sa_handler != SIG_DFL && old->sa_handler != SIG_IGN);
        memset(&sa, 0, sizeof sa);
        sa.sa_sigaction = on_signal;
        sa.sa_mask = old->sa_mask;
        sa.sa_flags = SA_SIGINFO | (own ? old->sa_flags & (SA_RESTART | SA_ONSTACK) : SA_RESTART);
        sigaction(sig, &sa, NULL);
    }
}

void mw_dumper_start(void)
{
    const mw_config *c = &mw_state.config;
    if (running || c->formats == 0 ||
        (c->dump_signals == 0 && c->dump_at <= 0 && c->dump_every <= 0 && c->dump_peers_wait <= 0))
        return;
    if (pipe2(wake, O_CLOEXEC) != 0 || pipe2(ack, O_CLOEXEC | O_NONBLOCK) != 0) {
        mw_warn("no partial profiles (a pipe: %s)", strerror(errno));
        return;
    }
    fcntl(wake[1], F_SETFL, O_NONBLOCK);
    uint64_t signals = c->dump_signals;
    if (c->dump_peers_wait > 0 && mw_state.world_size > 1) {
        mw_peer_dumps_prepare();   /* before the thread, which reads its path */
        for (int sig = 1; sig < 64; sig++)
            if (mw_fatal_signal_name(sig) != NULL)
                signals |= 1ull << sig;
        handler_wait_ms = MW_DUMP_WAIT_MS + (int)(c->dump_peers_wait * 1000);
    }
    if (pthread_create(&thread, NULL, dumper, NULL) != 0) {
        mw_warn("no partial profiles (no helper thread)");
        return;
    }
    (void)pthread_setname_np(thread, "mpiwatch-dump");   /* as core/background.h's */
    running = 1;
    owner = getpid();
    install_handlers(signals);
    handling = 1;
}

void mw_dumper_stop(void)
{
    unsigned char stop = MW_DUMP_STOP;
    if (!running)
        return;
    handling = 0;
    running = 0;
    if (write(wake[1], &stop, 1) == 1)
        pthread_join(thread, NULL);
}
