/* The monitor's sender thread and life cycle: started by mw_on_init when
 * the monitor is on, it attaches clients, drains the event rings every few
 * milliseconds into EVENTS frames, sends SNAPSHOT and LEVEL frames, and
 * writes without ever blocking. mw_monitor_finish stops it and ends the
 * stream from the finalizing thread: final SNAPSHOT, GOODBYE, at most 2 s
 * of flushing.
 *
 * Events are switched on only while a client is attached, so an unwatched
 * rank pays nothing per call beyond the test of the flag. The calls made
 * meanwhile are counted as "unwatched" by difference: calls in the
 * statistics minus events that reached a ring (recorded or dropped). That
 * is exact when no call is in flight (at MPI_Finalize); in a periodic
 * SNAPSHOT a call between its statistics update and its event may count
 * as unwatched for a moment.
 *
 * Counters: every drained event is either put into a frame for the client
 * (sent; taken back and counted dropped if the client goes before it is
 * written) or dropped (the output is full, memory, or no client any more).
 * So calls = sent + dropped + unwatched at the GOODBYE.
 *
 * Data shared with the application's threads: the stop flag, the snapshot
 * request and the level queue (atomics or the lock below); the statistics,
 * which the sender reads with relaxed atomic loads (the writers are the
 * per-thread tables of core/thread_stats.h; a snapshot may be a few calls behind). */
#define _DEFAULT_SOURCE   /* syscall(SYS_gettid) */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/mode.h"
#include "monitor/events.h"
#include "monitor/inflight.h"
#include "monitor/monitor.h"
#include "core/state.h"
#include "core/warn.h"

#define MW_OUT_CAP (4u << 20)          /* pending output beyond which events are dropped */
#define MW_DRAIN_BATCH 4096
#define MW_TICK_MS 5
#define MW_FLUSH_NS 2000000000ull
#define MW_LEVELS 64
#define MW_INFLIGHT_MAX 1024               /* threads shown in one INFLIGHT frame */
#define MW_INFLIGHT_REPEAT_NS 1000000000ull   /* an unchanged set of calls is re-sent this often */

/* ------------------------------------------------------------ shared */

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static int attached_once;                 /* lock: a client has attached (MPIWATCH_WAIT) */
static int thread_done;                   /* lock: the sender thread has left its loop */
static int levels[MW_LEVELS];             /* lock: MPI_Pcontrol levels not sent yet */
static uint64_t level_ticks[MW_LEVELS];
static int nlevels, last_level = 1;
static int stop_flag;                     /* atomic */
static int snapshot_request;              /* atomic */

static const mw_transport *tp;            /* NULL: the monitor is off */
static pthread_t thread;
static int running;                       /* the sender thread exists */
static int finished;

/* ------------------------------------------------------------ the sender's own */

typedef struct frame_mark {
    uint64_t end;                         /* stream offset just past the frame */
    uint64_t events;
} frame_mark;

static mw_buf out;
static frame_mark *marks;                 /* EVENTS frames not yet fully written, in order */
static size_t nmarks, marks_head, marks_cap;
static uint64_t stream_queued, stream_written;   /* this client's byte stream */
static int attached;
static uint64_t sent_total;               /* events in frames for clients, minus those lost */
static uint64_t sent_client;              /* events in frames for the current client */
static uint64_t dropped_sender;           /* dropped here (not by a full ring) */
static mw_event batch[MW_DRAIN_BATCH];
static mw_timebase tb;
static uint64_t next_snapshot;            /* ns since the epoch */
/* Every frame respects MW_OUT_CAP: while a client is behind (stopped, or a
 * pipe nobody reads), snapshots replace the unsent one before them and
 * level changes wait, so a rank's memory stays bounded however long the
 * client sleeps. What was not sent is counted for the report. */
static uint64_t frames_skipped;
static uint64_t snap_start = UINT64_MAX, snap_end;   /* the last queued snapshot, in stream offsets */

/* The calls in progress last sent to this client, and when. */
static mw_inflight inflight_sent[MW_INFLIGHT_MAX], inflight_now[MW_INFLIGHT_MAX];
static size_t ninflight_sent;
static uint64_t inflight_sent_at;         /* ns since the epoch; 0: none sent to this client */

static uint64_t now_ns(void)
{
    return mw_timebase_ns(&tb, mw_now());
}

/* Remember that the stream up to now ends with an EVENTS frame of n events. */
static void mark_events(uint64_t events)
{
    if (nmarks == marks_cap && marks_head > 0) {
        memmove(marks, marks + marks_head, (nmarks - marks_head) * sizeof *marks);
        nmarks -= marks_head;
        marks_head = 0;
    }
    if (nmarks == marks_cap) {
        size_t cap = marks_cap ? 2 * marks_cap : 256;
        frame_mark *m = realloc(marks, cap * sizeof *m);
        if (m == NULL)
            return;   /* then these events stay counted as sent if the client goes */
        marks = m;
        marks_cap = cap;
    }
    marks[nmarks++] = (frame_mark){stream_queued, events};
}

/* Count the stream bytes of frames appended since last time. */
static void account_queued(size_t before)
{
    stream_queued += mw_buf_pending(&out) - before;
}

/* ------------------------------------------------------------ statistics */

static uint64_t timebase_ns_of(uint64_t ticks, const void *arg)
{
    const mw_timebase *b = arg;
    return (uint64_t)((double)ticks * b->ns_per_tick + 0.5);
}

static uint64_t report_ns_of(uint64_t ticks, const void *arg)
{
    (void)arg;
    return (uint64_t)(mw_clock_seconds(ticks) * 1e9 + 0.5);
}

/* The counters as of stats (calls made) and the rings (events recorded). */
static void counters(const mw_fn_stats *stats, uint64_t recorded, uint64_t ring_dropped,
                     mw_monitor_counts *c)
{
    static uint64_t last_unwatched;
    uint64_t calls = 0;
    for (int i = 0; i < MW_FN_COUNT; i++)
        calls += stats[i].calls;
    c->sent = sent_total;
    c->dropped = ring_dropped + dropped_sender;
    if (calls >= recorded + ring_dropped)
        last_unwatched = calls - recorded - ring_dropped;
    c->unwatched = last_unwatched;
}

/* Room for a snapshot when the client is behind: the last snapshot, if it
 * is the newest frame and none of it has gone out, is taken back (the new
 * one holds everything it held). 0 when the new one must be skipped. */
static int snapshot_room(void)
{
    if (mw_buf_pending(&out) < MW_OUT_CAP)
        return 1;
    frames_skipped++;
    if (snap_start == UINT64_MAX || snap_end != stream_queued || snap_start < stream_written)
        return 0;
    out.len -= (size_t)(snap_end - snap_start);
    stream_queued = snap_start;
    return 1;
}

/* The rank's row of the communication matrix, after its snapshot. Part of
 * the snapshot for snapshot_room: replaced with it while the client is
 * behind. */
static void send_pairs(void)
{
    static uint64_t *bytes;
    int n = mw_state.world_size;
    if (n <= 0 || (bytes == NULL && (bytes = malloc(2 * (size_t)n * sizeof *bytes)) == NULL))
        return;
    mw_pairs_merge(bytes, bytes + n, n);
    size_t before = mw_buf_pending(&out);
    if (mw_frame_pairs(&out, now_ns(), bytes, bytes + n, n) == 0) {
        account_queued(before);
        snap_end = stream_queued;
    }
}

static void periodic_snapshot(void)
{
    static mw_fn_stats stats[MW_FN_COUNT];
    mw_monitor_counts c;
    uint64_t recorded, ring_dropped;
    next_snapshot = now_ns() + (uint64_t)(mw_monitor_opts.interval * 1e9);
    if (!snapshot_room())
        return;
    mw_events_counts(&recorded, &ring_dropped);
    mw_stats_merge(stats);
    counters(stats, recorded, ring_dropped, &c);
    size_t before = mw_buf_pending(&out);
    if (mw_frame_snapshot(&out, now_ns(), &c, stats, timebase_ns_of, &tb) == 0) {
        snap_start = stream_queued;
        account_queued(before);
        snap_end = stream_queued;
        send_pairs();
    }
}

/* ------------------------------------------------------------ attach, detach */

static void timer_name(char *outname, size_t size)
{
    if (mw_clock_use_tsc)
        snprintf(outname, size, "tsc (invariant, %.3f GHz)", 1.0 / tb.ns_per_tick);
    else
        snprintf(outname, size, "clock_gettime(CLOCK_MONOTONIC)");
}

static void on_attach(void)
{
    struct timespec wall;
    char timer[64];
    clock_gettime(CLOCK_REALTIME, &wall);
    uint64_t wall_ns = (uint64_t)wall.tv_sec * 1000000000u + (uint64_t)wall.tv_nsec;
    uint64_t since = now_ns();
    attached = 1;
    sent_client = 0;
    stream_queued = stream_written = 0;
    nmarks = marks_head = 0;
    out.head = out.len = 0;
    snap_start = UINT64_MAX;
    mw_events_enable(1);
    timer_name(timer, sizeof timer);
    size_t before = mw_buf_pending(&out);
    if (mw_frame_hello(&out, wall_ns > since ? wall_ns - since : 0, timer) == 0)
        account_queued(before);
    periodic_snapshot();
    inflight_sent_at = 0;
    pthread_mutex_lock(&lock);
    attached_once = 1;
    nlevels = 0;                          /* the client starts from the snapshot */
    pthread_cond_broadcast(&cond);
    pthread_mutex_unlock(&lock);
}

/* Events in frames not yet written: lost with the client. */
static uint64_t unwritten_events(void)
{
    uint64_t n = 0;
    for (size_t i = marks_head; i < nmarks; i++)
        if (marks[i].end > stream_written)
            n += marks[i].events;
    return n;
}

static void on_detach(int final)
{
    uint64_t lost = unwritten_events();
    if (!final)
        mw_events_enable(0);
    sent_total -= lost;
    dropped_sender += lost;
    out.head = out.len = 0;
    nmarks = marks_head = 0;
    attached = 0;
    tp->detach(final);
}

/* ------------------------------------------------------------ the stream */

static int flush(void)
{
    while (mw_buf_pending(&out) > 0) {
        size_t n = mw_buf_pending(&out);
        long w = tp->write(out.data + out.head, n);
        if (w < 0)
            return -1;
        if (w == 0)
            return 0;
        mw_buf_consume(&out, (size_t)w);
        stream_written += (uint64_t)w;
        while (marks_head < nmarks && marks[marks_head].end <= stream_written)
            marks_head++;
    }
    if (marks_head == nmarks)
        nmarks = marks_head = 0;
    return 0;
}

/* Drain the rings once; returns how many events were taken. */
static size_t drain_once(void)
{
    size_t n = mw_events_drain(batch, MW_DRAIN_BATCH);
    size_t done = 0;
    while (attached && done < n) {
        size_t before = mw_buf_pending(&out);
        size_t room = before < MW_OUT_CAP ? (MW_OUT_CAP - before) / 56 : 0;
        size_t take = n - done < room ? n - done : room;
        size_t k = take ? mw_frame_events(&out, batch + done, take, &tb) : 0;
        if (k == 0)
            break;
        account_queued(before);
        mark_events(k);
        sent_total += k;
        sent_client += k;
        done += k;
    }
    dropped_sender += n - done;
    return n;
}

static void send_levels(void)
{
    int lv[MW_LEVELS], n;
    uint64_t lt[MW_LEVELS];
    if (mw_buf_pending(&out) >= MW_OUT_CAP)
        return;   /* they wait (MW_LEVELS of them at most) until the client catches up */
    pthread_mutex_lock(&lock);
    n = nlevels;
    memcpy(lv, levels, (size_t)n * sizeof lv[0]);
    memcpy(lt, level_ticks, (size_t)n * sizeof lt[0]);
    nlevels = 0;
    pthread_mutex_unlock(&lock);
    for (int i = 0; i < n; i++) {
        size_t before = mw_buf_pending(&out);
        if (mw_frame_level(&out, mw_timebase_ns(&tb, lt[i]), lv[i]) == 0)
            account_queued(before);
    }
}

/* Send the calls in progress when they changed, and at least once a second
 * while there are any: a client that attaches to a hung job sees them at
 * once, and their durations stay fresh. Like a snapshot, an INFLIGHT frame
 * waits while the client is behind. */
static void send_inflight(void)
{
    if (mw_buf_pending(&out) >= MW_OUT_CAP)
        return;
    size_t n = mw_inflight_collect(inflight_now, MW_INFLIGHT_MAX);
    uint64_t t = now_ns();
    int changed = inflight_sent_at == 0 ||
                  mw_inflight_changed(inflight_now, n, inflight_sent, ninflight_sent);
    if (!changed && (n == 0 || t - inflight_sent_at < MW_INFLIGHT_REPEAT_NS))
        return;
    size_t before = mw_buf_pending(&out);
    if (mw_frame_inflight(&out, t, inflight_now, n, &tb) != 0)
        return;
    account_queued(before);
    memcpy(inflight_sent, inflight_now, n * sizeof inflight_now[0]);
    ninflight_sent = n;
    inflight_sent_at = t;
}

static void step(void)
{
    mw_timebase_update(&tb);
    if (tp->poll_attach() && !attached)
        on_attach();
    if (attached && tp->gone())
        on_detach(0);
    drain_once();
    if (attached) {
        send_levels();
        send_inflight();
        if (__atomic_exchange_n(&snapshot_request, 0, __ATOMIC_ACQ_REL) || now_ns() >= next_snapshot)
            periodic_snapshot();
        if (flush() < 0)
            on_detach(0);
    } else {
        __atomic_store_n(&snapshot_request, 0, __ATOMIC_RELAXED);
    }
}

/* The sender yields the CPU to the application: on a node whose cores the
 * ranks keep busy (MPI progress engines spin), a sender at the ranks'
 * priority would take time slices from them, and the job would slow down
 * by what the monitor costs. Linux applies a nice value to the one thread
 * named by its id. */
static void lower_priority(void)
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

static void *sender_main(void *arg)
{
    (void)arg;
    mw_guard_hold();   /* nothing this thread does is the application's MPI */
    lower_priority();
    while (!__atomic_load_n(&stop_flag, __ATOMIC_ACQUIRE)) {
        step();
        tp->wait(MW_TICK_MS, attached && mw_buf_pending(&out) > 0);
    }
    pthread_mutex_lock(&lock);
    thread_done = 1;
    pthread_cond_broadcast(&cond);
    pthread_mutex_unlock(&lock);
    return NULL;
}

/* ------------------------------------------------------------ start */

/* The process ends without MPI_Finalize (exit, or MPI_Abort's exit): stop
 * the thread if it stops promptly, and close the sockets. */
static void at_exit(void)
{
    if (!running || finished)
        return;
    finished = 1;
    __atomic_store_n(&stop_flag, 1, __ATOMIC_RELEASE);
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_nsec += 200000000;
    if (until.tv_nsec >= 1000000000) {
        until.tv_sec++;
        until.tv_nsec -= 1000000000;
    }
    pthread_mutex_lock(&lock);
    while (!thread_done && pthread_cond_timedwait(&cond, &lock, &until) == 0)
        ;
    int done = thread_done;
    pthread_mutex_unlock(&lock);
    if (done) {
        pthread_join(thread, NULL);
        running = 0;
        tp->shutdown(1);
    }
}

static const mw_transport *open_transport(const char *token)
{
    if (mw_monitor_opts.transport == MW_TRANSPORT_MPI) {
        int provided = MPI_THREAD_SINGLE;
        PMPI_Query_thread(&provided);
        if (provided != MPI_THREAD_MULTIPLE) {
            if (mw_state.world_rank == 0)
                mw_warn("MPI ports need MPI_THREAD_MULTIPLE, which this MPI did not provide; using TCP");
        } else if (mw_mpiport_open(token) == 0) {
            return &mw_mpiport_transport;
        }
    }
    return mw_tcp_open(mw_monitor_opts.bind, token) == 0 ? &mw_tcp_transport : NULL;
}

static void wait_for_client(void)
{
    double secs = mw_monitor_opts.wait;
    if (mw_state.world_rank == 0) {
        fprintf(stderr, "mpiwatch: waiting up to %g s for a monitor client to attach (MPIWATCH_WAIT)\n",
                secs);
        fflush(stderr);
    }
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    double whole = (double)(long long)secs;
    until.tv_sec += (time_t)whole;
    until.tv_nsec += (long)((secs - whole) * 1e9);
    if (until.tv_nsec >= 1000000000) {
        until.tv_sec++;
        until.tv_nsec -= 1000000000;
    }
    pthread_mutex_lock(&lock);
    while (!attached_once && pthread_cond_timedwait(&cond, &lock, &until) == 0)
        ;
    pthread_mutex_unlock(&lock);
}

void mw_monitor_start(void)
{
    char token[40], line[1024];
    static int started;

    if (started)
        return;
    started = 1;
    mw_monitor_options_load(NULL, NULL);
    mw_monitor_options_report(mw_state.world_rank == 0);
    if (mw_monitor_opts.help && mw_state.world_rank == 0)
        mw_monitor_print_help();
    if (mw_monitor_opts.publish == MW_PUBLISH_OFF)
        return;
    if (mw_monitor_token(token) != 0) {
        mw_warn("no random bytes for the monitor's token; the monitor is off on this rank");
    } else {
        mw_events_set_capacity(mw_monitor_opts.buffer);
        tp = open_transport(token);
    }
    if (tp != NULL) {
        mw_timebase_init(&tb);
        sigset_t all, old;
        sigfillset(&all);
        pthread_sigmask(SIG_SETMASK, &all, &old);   /* the application's signals are not ours */
        int rc = pthread_create(&thread, NULL, sender_main, NULL);
        pthread_sigmask(SIG_SETMASK, &old, NULL);
        if (rc != 0) {
            mw_warn("cannot start the monitor's thread (error %d); the monitor is off on this rank", rc);
            tp->shutdown(0);
            tp = NULL;
        } else {
            running = 1;
            atexit(at_exit);
            mw_inflight_begin();
        }
    }
    snprintf(line, sizeof line, MWP_ENDPOINT_FORMAT, MWP_VERSION, mw_state.world_rank,
             mw_state.world_size, tp ? tp->endpoint() : MWP_ENDPOINT_NONE);
    mw_monitor_publish(line);
    if (tp != NULL && mw_monitor_opts.wait > 0)
        wait_for_client();
}

void mw_monitor_pcontrol(int level)
{
    if (!running)
        return;
    pthread_mutex_lock(&lock);
    if (level != last_level) {
        if (nlevels == MW_LEVELS) {       /* keep the latest */
            memmove(levels, levels + 1, (MW_LEVELS - 1) * sizeof levels[0]);
            memmove(level_ticks, level_ticks + 1, (MW_LEVELS - 1) * sizeof level_ticks[0]);
            nlevels--;
        }
        levels[nlevels] = level;
        level_ticks[nlevels++] = mw_now();
        last_level = level;
    }
    pthread_mutex_unlock(&lock);
    if (level == 2)
        __atomic_store_n(&snapshot_request, 1, __ATOMIC_RELEASE);
}

/* ------------------------------------------------------------ finish */

static mw_monitor_counts final_counts;

void mw_monitor_finish(const mw_fn_stats *stats)
{
    if (!running || finished)
        return;
    finished = 1;
    __atomic_store_n(&stop_flag, 1, __ATOMIC_RELEASE);
    pthread_join(thread, NULL);
    running = 0;
    /* This thread now owns the stream. Everything the application did is in
     * the rings and in stats. */
    mw_events_enable(0);
    mw_inflight_end();
    mw_timebase_update(&tb);
    if (!attached && tp->poll_attach())
        on_attach();
    if (attached && tp->gone())
        on_detach(0);
    while (drain_once() > 0)
        ;
    uint64_t recorded, ring_dropped;
    mw_events_counts(&recorded, &ring_dropped);
    counters(stats, recorded, ring_dropped, &final_counts);
    if (attached) {
        send_levels();
        send_inflight();
        size_t before = mw_buf_pending(&out);
        uint64_t t = now_ns();
        if (mw_frame_snapshot(&out, t, &final_counts, stats, report_ns_of, NULL) == 0) {
            account_queued(before);
            send_pairs();
            before = mw_buf_pending(&out);
            if (mw_frame_goodbye(&out, t, sent_client, final_counts.dropped) == 0)
                account_queued(before);
        }
        uint64_t deadline = mw_clock_monotonic_ns() + MW_FLUSH_NS;
        int rc = 0;
        while (mw_buf_pending(&out) > 0 && (rc = flush()) == 0 && mw_clock_monotonic_ns() < deadline)
            if (mw_buf_pending(&out) > 0)
                tp->wait(10, 1);
        while (rc == 0 && tp->busy() && mw_clock_monotonic_ns() < deadline)
            tp->wait(10, 0);
        if (mw_buf_pending(&out) > 0) {
            mw_warn("monitor: the client did not take the last %zu bytes within 2 s; "
                    "the stream ends without its goodbye", mw_buf_pending(&out));
        }
        on_detach(1);
        final_counts.sent = sent_total;
        final_counts.dropped = ring_dropped + dropped_sender;
    }
    tp->shutdown(0);
    mw_monitor_unpublish();
    if (final_counts.dropped > 0)
        mw_warn("monitor: %llu events were dropped (buffer full or client too slow); "
                "raise MPIWATCH_MONITOR_BUFFER", (unsigned long long)final_counts.dropped);
    mw_buf_free(&out);
    free(marks);
    marks = NULL;
    nmarks = marks_head = marks_cap = 0;
}

int mw_monitor_active(const char **transport, mw_monitor_counts *counts, uint64_t *skipped)
{
    if (tp == NULL)
        return 0;
    *transport = tp->name;
    *counts = final_counts;
    *skipped = frames_skipped;
    return 1;
}
