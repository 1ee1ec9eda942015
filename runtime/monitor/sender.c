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
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/background.h"
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
/* An idle rank's sender (no event drained, nothing to write) looks less
 * often, its tick doubling up to this: 512 ranks' senders woke 102,400 times
 * a second on 2 cores at 5 ms, ranks that wait or compute included, and
 * starved the relays and the client they feed. The first look after an
 * idle spell comes at most this late: a burst of calls then has the ring
 * (MPIWATCH_MONITOR_BUFFER events a thread) for that long. */
#define MW_TICK_IDLE_MS 20
#define MW_LEVELS 64
#define MW_INFLIGHT_MAX 1024               /* threads shown in one INFLIGHT frame */
#define MW_INFLIGHT_REPEAT_NS 1000000000ull   /* an unchanged set of calls is re-sent this often */

typedef struct frame_mark {
    uint64_t end;                         /* stream offset just past the frame */
    uint64_t events;
} frame_mark;

/* The rank's monitor, all of it. The groups say who touches what: the
 * application's threads only the "shared" group (under its lock, or
 * atomically); the sender thread the groups below it, which the finalizing
 * thread takes over once it has joined the sender (mw_monitor_finish). */
static struct {
    /* ---- life cycle: the threads that call MPI_Init, MPI_Finalize or exit */
    int started;                          /* mw_monitor_start has run */
    const mw_transport *transport;        /* NULL: the monitor is off */
    pthread_t thread;
    int running;                          /* the sender thread exists */
    int finished;                         /* the stream is ending or has ended */

    /* ---- shared with the application's threads */
    pthread_mutex_t lock;
    pthread_cond_t cond;
    int attached_once;                    /* lock: a client has attached (MPIWATCH_WAIT) */
    int thread_done;                      /* lock: the sender thread has left its loop */
    int levels[MW_LEVELS];                /* lock: MPI_Pcontrol levels not sent yet */
    uint64_t level_ticks[MW_LEVELS];      /* lock: when each was set */
    int nlevels;                          /* lock */
    int last_level;                       /* lock: the level in force (1 from the start) */
    int stop_flag;                        /* atomic */
    int snapshot_request;                 /* atomic */

    /* ---- the client's byte stream, and when the next snapshot is due */
    mw_buf out;
    frame_mark *marks;                    /* EVENTS frames not yet fully written, in order */
    size_t nmarks, marks_head, marks_cap;
    uint64_t stream_queued, stream_written;   /* this client's byte stream */
    int attached;
    mw_timebase tb;
    uint64_t next_snapshot;               /* ns since the epoch */
    /* Every frame respects MW_OUT_CAP: while a client is behind (stopped, or a
     * pipe nobody reads), snapshots replace the unsent one before them and
     * level changes wait, so a rank's memory stays bounded however long the
     * client sleeps. What was not sent is counted for the report. */
    uint64_t frames_skipped;
    uint64_t snap_start, snap_end;        /* the last queued snapshot, in stream offsets;
                                             snap_start UINT64_MAX: none (on_attach) */

    /* ---- the events' counters, for SNAPSHOT, GOODBYE and the report */
    uint64_t sent_total;                  /* events in frames for clients, minus those lost */
    uint64_t sent_client;                 /* events in frames for the current client */
    uint64_t dropped_sender;              /* dropped here (not by a full ring) */
    uint64_t last_unwatched;              /* the last unwatched count that was not negative */
    mw_monitor_counts final_counts;       /* at MPI_Finalize, for the report */

    /* ---- the calls in progress last sent to this client, and when */
    mw_inflight inflight_sent[MW_INFLIGHT_MAX], inflight_now[MW_INFLIGHT_MAX];
    size_t ninflight_sent;
    uint64_t inflight_sent_at;            /* ns since the epoch; 0: none sent to this client */

    /* ---- scratch space, kept to spare the loop an allocation per tick */
    mw_event batch[MW_DRAIN_BATCH];       /* one drain of the rings */
    mw_fn_stats stats[MW_FN_COUNT];       /* the merged statistics of a snapshot */
    uint64_t *pair_bytes;                 /* the rank's row of the matrix: bytes, messages */
} sender = {
    /* Only zeros here (as the mutex and condition initialisers are on glibc),
     * so that the struct, with its large arrays, stays in .bss and out of
     * the library file; mw_monitor_start sets last_level. */
    .lock = PTHREAD_MUTEX_INITIALIZER,
    .cond = PTHREAD_COND_INITIALIZER,
};

static uint64_t now_ns(void)
{
    return mw_timebase_ns(&sender.tb, mw_now());
}

/* Remember that the stream up to now ends with an EVENTS frame of n events. */
static void mark_events(uint64_t events)
{
    if (sender.nmarks == sender.marks_cap && sender.marks_head > 0) {
        memmove(sender.marks, sender.marks + sender.marks_head,
                (sender.nmarks - sender.marks_head) * sizeof *sender.marks);
        sender.nmarks -= sender.marks_head;
        sender.marks_head = 0;
    }
    if (sender.nmarks == sender.marks_cap) {
        size_t cap = sender.marks_cap ? 2 * sender.marks_cap : 256;
        frame_mark *m = realloc(sender.marks, cap * sizeof *m);
        if (m == NULL)
            return;   /* then these events stay counted as sent if the client goes */
        sender.marks = m;
        sender.marks_cap = cap;
    }
    sender.marks[sender.nmarks++] = (frame_mark){sender.stream_queued, events};
}

/* Count the stream bytes of frames appended since last time. */
static void account_queued(size_t before)
{
    sender.stream_queued += mw_buf_pending(&sender.out) - before;
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
    uint64_t calls = 0;
    for (int i = 0; i < MW_FN_COUNT; i++)
        calls += stats[i].calls;
    c->sent = sender.sent_total;
    c->dropped = ring_dropped + sender.dropped_sender;
    if (calls >= recorded + ring_dropped)
        sender.last_unwatched = calls - recorded - ring_dropped;
    c->unwatched = sender.last_unwatched;
}

/* Room for a snapshot when the client is behind: the last snapshot, if it
 * is the newest frame and none of it has gone out, is taken back (the new
 * one holds everything it held). 0 when the new one must be skipped. */
static int snapshot_room(void)
{
    if (mw_buf_pending(&sender.out) < MW_OUT_CAP)
        return 1;
    sender.frames_skipped++;
    if (sender.snap_start == UINT64_MAX || sender.snap_end != sender.stream_queued ||
        sender.snap_start < sender.stream_written)
        return 0;
    sender.out.len -= (size_t)(sender.snap_end - sender.snap_start);
    sender.stream_queued = sender.snap_start;
    return 1;
}

/* The rank's row of the communication matrix, after its snapshot. Part of
 * the snapshot for snapshot_room: replaced with it while the client is
 * behind. */
static void send_pairs(void)
{
    int n = mw_state.world_size;
    if (n <= 0 || (sender.pair_bytes == NULL &&
                   (sender.pair_bytes = malloc(2 * (size_t)n * sizeof *sender.pair_bytes)) == NULL))
        return;
    uint64_t *bytes = sender.pair_bytes;
    mw_pairs_merge(bytes, bytes + n, n);
    size_t before = mw_buf_pending(&sender.out);
    if (mw_frame_pairs(&sender.out, now_ns(), bytes, bytes + n, n) == 0) {
        account_queued(before);
        sender.snap_end = sender.stream_queued;
    }
}

static uint64_t interval_ns(void)
{
    return (uint64_t)(mw_monitor_opts.interval * 1e9);
}

static void periodic_snapshot(void)
{
    mw_fn_stats *stats = sender.stats;
    mw_monitor_counts c;
    uint64_t recorded, ring_dropped;
    sender.next_snapshot = now_ns() + interval_ns();
    if (!snapshot_room())
        return;
    mw_events_counts(&recorded, &ring_dropped);
    mw_stats_merge(stats);
    counters(stats, recorded, ring_dropped, &c);
    size_t before = mw_buf_pending(&sender.out);
    if (mw_frame_snapshot(&sender.out, now_ns(), &c, stats, timebase_ns_of, &sender.tb) == 0) {
        sender.snap_start = sender.stream_queued;
        account_queued(before);
        sender.snap_end = sender.stream_queued;
        send_pairs();
    }
}

/* ------------------------------------------------------------ attach, detach */

static void timer_name(char *outname, size_t size)
{
    if (mw_clock_use_tsc)
        snprintf(outname, size, "tsc (invariant, %.3f GHz)", 1.0 / sender.tb.ns_per_tick);
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
    sender.attached = 1;
    sender.sent_client = 0;
    sender.stream_queued = sender.stream_written = 0;
    sender.nmarks = sender.marks_head = 0;
    sender.out.head = sender.out.len = 0;
    sender.snap_start = UINT64_MAX;
    mw_events_enable(1);
    timer_name(timer, sizeof timer);
    size_t before = mw_buf_pending(&sender.out);
    if (mw_frame_hello(&sender.out, wall_ns > since ? wall_ns - since : 0, timer) == 0)
        account_queued(before);
    periodic_snapshot();
    sender.inflight_sent_at = 0;
    pthread_mutex_lock(&sender.lock);
    sender.attached_once = 1;
    sender.nlevels = 0;                   /* the client starts from the snapshot */
    pthread_cond_broadcast(&sender.cond);
    pthread_mutex_unlock(&sender.lock);
}

/* Events in frames not yet written: lost with the client. */
static uint64_t unwritten_events(void)
{
    uint64_t n = 0;
    for (size_t i = sender.marks_head; i < sender.nmarks; i++)
        if (sender.marks[i].end > sender.stream_written)
            n += sender.marks[i].events;
    return n;
}

static void on_detach(int final)
{
    uint64_t lost = unwritten_events();
    if (!final)
        mw_events_enable(0);
    sender.sent_total -= lost;
    sender.dropped_sender += lost;
    sender.out.head = sender.out.len = 0;
    sender.nmarks = sender.marks_head = 0;
    sender.attached = 0;
    sender.transport->detach(final);
}

/* ------------------------------------------------------------ the stream */

static int flush(void)
{
    while (mw_buf_pending(&sender.out) > 0) {
        size_t n = mw_buf_pending(&sender.out);
        long w = sender.transport->write(sender.out.data + sender.out.head, n);
        if (w < 0)
            return -1;
        if (w == 0)
            return 0;
        mw_buf_consume(&sender.out, (size_t)w);
        sender.stream_written += (uint64_t)w;
        while (sender.marks_head < sender.nmarks &&
               sender.marks[sender.marks_head].end <= sender.stream_written)
            sender.marks_head++;
    }
    if (sender.marks_head == sender.nmarks)
        sender.nmarks = sender.marks_head = 0;
    return 0;
}

/* Drain the rings once; returns how many events were taken. */
static size_t drain_once(void)
{
    size_t n = mw_events_drain(sender.batch, MW_DRAIN_BATCH);
    size_t done = 0;
    while (sender.attached && done < n) {
        size_t before = mw_buf_pending(&sender.out);
        size_t room = before < MW_OUT_CAP ? (MW_OUT_CAP - before) / 56 : 0;
        size_t take = n - done < room ? n - done : room;
        size_t k = take ? mw_frame_events(&sender.out, sender.batch + done, take, &sender.tb) : 0;
        if (k == 0)
            break;
        account_queued(before);
        mark_events(k);
        sender.sent_total += k;
        sender.sent_client += k;
        done += k;
    }
    sender.dropped_sender += n - done;
    return n;
}

static void send_levels(void)
{
    int lv[MW_LEVELS], n;
    uint64_t lt[MW_LEVELS];
    if (mw_buf_pending(&sender.out) >= MW_OUT_CAP)
        return;   /* they wait (MW_LEVELS of them at most) until the client catches up */
    pthread_mutex_lock(&sender.lock);
    n = sender.nlevels;
    memcpy(lv, sender.levels, (size_t)n * sizeof lv[0]);
    memcpy(lt, sender.level_ticks, (size_t)n * sizeof lt[0]);
    sender.nlevels = 0;
    pthread_mutex_unlock(&sender.lock);
    for (int i = 0; i < n; i++) {
        size_t before = mw_buf_pending(&sender.out);
        if (mw_frame_level(&sender.out, mw_timebase_ns(&sender.tb, lt[i]), lv[i]) == 0)
            account_queued(before);
    }
}

/* Send the calls in progress when they changed, looked at once an interval
 * (a busy rank is in another call at every 5 ms tick, and sent up to 200
 * frames a second), and at least once a second while there are any: a
 * client that attaches to a hung job sees them at once, and their durations
 * stay fresh. final: the last one, at once. Like a snapshot, an INFLIGHT
 * frame waits while the client is behind. */
static void send_inflight(int final)
{
    if (mw_buf_pending(&sender.out) >= MW_OUT_CAP)
        return;
    uint64_t t = now_ns(), since = t - sender.inflight_sent_at;
    uint64_t look = interval_ns() < MW_INFLIGHT_REPEAT_NS ? interval_ns() : MW_INFLIGHT_REPEAT_NS;
    if (!final && sender.inflight_sent_at != 0 && since < look)
        return;
    size_t n = mw_inflight_collect(sender.inflight_now, MW_INFLIGHT_MAX);
    int changed = sender.inflight_sent_at == 0 ||
                  mw_inflight_changed(sender.inflight_now, n, sender.inflight_sent,
                                      sender.ninflight_sent);
    if (!changed && (n == 0 || since < MW_INFLIGHT_REPEAT_NS))
        return;
    size_t before = mw_buf_pending(&sender.out);
    if (mw_frame_inflight(&sender.out, t, sender.inflight_now, n, &sender.tb) != 0)
        return;
    account_queued(before);
    memcpy(sender.inflight_sent, sender.inflight_now, n * sizeof sender.inflight_now[0]);
    sender.ninflight_sent = n;
    sender.inflight_sent_at = t;
}

/* One look; how many events it drained. */
static size_t step(void)
{
    mw_timebase_update(&sender.tb);
    if (sender.transport->poll_attach() && !sender.attached)
        on_attach();
    if (sender.attached && sender.transport->gone())
        on_detach(0);
    size_t drained = drain_once();
    if (sender.attached) {
        send_levels();
        send_inflight(0);
        if (__atomic_exchange_n(&sender.snapshot_request, 0, __ATOMIC_ACQ_REL) ||
            now_ns() >= sender.next_snapshot)
            periodic_snapshot();
        if (flush() < 0)
            on_detach(0);
    } else {
        __atomic_store_n(&sender.snapshot_request, 0, __ATOMIC_RELAXED);
    }
    return drained;
}

/* The wait before the next look: MW_TICK_MS while events come or bytes
 * wait, doubling up to MW_TICK_IDLE_MS while idle, never past the next
 * snapshot's time. */
static int next_tick(int tick, size_t drained)
{
    int busy = drained > 0 || (sender.attached && mw_buf_pending(&sender.out) > 0);
    tick = busy ? MW_TICK_MS : tick * 2 < MW_TICK_IDLE_MS ? tick * 2 : MW_TICK_IDLE_MS;
    if (sender.attached) {
        uint64_t now = now_ns();
        uint64_t due = sender.next_snapshot > now ? (sender.next_snapshot - now) / 1000000u : 0;
        if (due < (uint64_t)tick)
            tick = (int)due + 1;
    }
    return tick;
}

static void *sender_main(void *arg)
{
    (void)arg;
    mw_guard_hold();   /* nothing this thread does is the application's MPI */
    mw_monitor_lower_priority();
    int tick = MW_TICK_MS;
    while (!__atomic_load_n(&sender.stop_flag, __ATOMIC_ACQUIRE)) {
        tick = next_tick(tick, step());
        sender.transport->wait(tick, sender.attached && mw_buf_pending(&sender.out) > 0);
    }
    pthread_mutex_lock(&sender.lock);
    sender.thread_done = 1;
    pthread_cond_broadcast(&sender.cond);
    pthread_mutex_unlock(&sender.lock);
    return NULL;
}

/* ------------------------------------------------------------ start */

/* The process ends without MPI_Finalize (exit, or MPI_Abort's exit): stop
 * the thread if it stops promptly, and close the sockets. */
static void at_exit(void)
{
    if (!sender.running || sender.finished)
        return;
    sender.finished = 1;
    __atomic_store_n(&sender.stop_flag, 1, __ATOMIC_RELEASE);
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_nsec += 200000000;
    if (until.tv_nsec >= 1000000000) {
        until.tv_sec++;
        until.tv_nsec -= 1000000000;
    }
    pthread_mutex_lock(&sender.lock);
    while (!sender.thread_done && pthread_cond_timedwait(&sender.cond, &sender.lock, &until) == 0)
        ;
    int done = sender.thread_done;
    pthread_mutex_unlock(&sender.lock);
    if (done) {
        pthread_join(sender.thread, NULL);
        sender.running = 0;
        sender.transport->shutdown(1);
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
    pthread_mutex_lock(&sender.lock);
    while (!sender.attached_once && pthread_cond_timedwait(&sender.cond, &sender.lock, &until) == 0)
        ;
    pthread_mutex_unlock(&sender.lock);
}

void mw_monitor_start(void)
{
    char token[40], line[1024];

    if (sender.started)
        return;
    sender.started = 1;
    sender.last_level = 1;                /* MPI_Pcontrol's level until the application sets one */
    mw_monitor_options_load(NULL, NULL);
    mw_monitor_options_report(mw_state.world_rank == 0);
    if (mw_monitor_opts.help && mw_state.world_rank == 0)
        mw_monitor_print_help();
    if (mw_monitor_opts.publish == MW_PUBLISH_OFF)
        return;
    int have_token = mw_monitor_token(token) == 0;
    const mw_transport *node = mw_node_open(have_token ? token : NULL);   /* collective */
    if (!have_token) {
        mw_warn("no random bytes for the monitor's token; the monitor is off on this rank");
    } else {
        mw_events_set_capacity(mw_monitor_opts.buffer);
        sender.transport = node ? node : open_transport(token);
    }
    if (sender.transport != NULL) {
        mw_timebase_init(&sender.tb);
        int rc = mw_background_start(&sender.thread, sender_main, "mpiwatch-mon");
        if (rc != 0) {
            mw_warn("cannot start the monitor's thread (error %d); the monitor is off on this rank", rc);
            sender.transport->shutdown(0);
            sender.transport = NULL;
        } else {
            sender.running = 1;
            atexit(at_exit);
            mw_inflight_begin();
        }
    }
    snprintf(line, sizeof line, MWP_ENDPOINT_FORMAT, MWP_VERSION, mw_state.world_rank,
             mw_state.world_size,
             sender.transport ? sender.transport->endpoint() : MWP_ENDPOINT_NONE);
    mw_monitor_publish(line);
    if (sender.transport != NULL && mw_monitor_opts.wait > 0)
        wait_for_client();
}

void mw_monitor_pcontrol(int level)
{
    if (!sender.running)
        return;
    pthread_mutex_lock(&sender.lock);
    if (level != sender.last_level) {
        if (sender.nlevels == MW_LEVELS) {       /* keep the latest */
            memmove(sender.levels, sender.levels + 1, (MW_LEVELS - 1) * sizeof sender.levels[0]);
            memmove(sender.level_ticks, sender.level_ticks + 1,
                    (MW_LEVELS - 1) * sizeof sender.level_ticks[0]);
            sender.nlevels--;
        }
        sender.levels[sender.nlevels] = level;
        sender.level_ticks[sender.nlevels++] = mw_now();
        sender.last_level = level;
    }
    pthread_mutex_unlock(&sender.lock);
    if (level == 2)
        __atomic_store_n(&sender.snapshot_request, 1, __ATOMIC_RELEASE);
}

/* ------------------------------------------------------------ finish */

static void finish_stream(const mw_fn_stats *stats);

void mw_monitor_finish(const mw_fn_stats *stats)
{
    finish_stream(stats);
    mw_node_finish();   /* collective over the node, whatever this rank's stream did */
}

/* Write what is left while the client takes it (MW_FINAL_STALL_NS). Returns
 * 0 when all of it went and the transport is idle, -1 otherwise. */
static int final_flush(void)
{
    uint64_t start = mw_clock_monotonic_ns(), progress = start;
    for (;;) {
        size_t before = mw_buf_pending(&sender.out);
        int busy_before = sender.transport->busy();
        if (flush() != 0)
            return -1;
        size_t left = mw_buf_pending(&sender.out);
        int busy = sender.transport->busy();
        if (left == 0 && !busy)
            return 0;
        uint64_t now = mw_clock_monotonic_ns();
        if (left < before || (busy_before && !busy))
            progress = now;
        if (now - progress >= MW_FINAL_STALL_NS || now - start >= MW_FINAL_MAX_NS)
            return -1;
        sender.transport->wait(10, left > 0);
    }
}

static void finish_stream(const mw_fn_stats *stats)
{
    if (!sender.running || sender.finished)
        return;
    sender.finished = 1;
    __atomic_store_n(&sender.stop_flag, 1, __ATOMIC_RELEASE);
    pthread_join(sender.thread, NULL);
    sender.running = 0;
    /* This thread now owns the stream. Everything the application did is in
     * the rings and in stats. */
    mw_events_enable(0);
    mw_inflight_end();
    mw_timebase_update(&sender.tb);
    if (!sender.attached && sender.transport->poll_attach())
        on_attach();
    if (sender.attached && sender.transport->gone())
        on_detach(0);
    while (drain_once() > 0)
        ;
    uint64_t recorded, ring_dropped;
    mw_monitor_counts *final = &sender.final_counts;
    mw_events_counts(&recorded, &ring_dropped);
    counters(stats, recorded, ring_dropped, final);
    if (sender.attached) {
        send_levels();
        send_inflight(1);
        size_t before = mw_buf_pending(&sender.out);
        uint64_t t = now_ns();
        if (mw_frame_snapshot(&sender.out, t, final, stats, report_ns_of, NULL) == 0) {
            account_queued(before);
            send_pairs();
            before = mw_buf_pending(&sender.out);
            if (mw_frame_goodbye(&sender.out, t, sender.sent_client, final->dropped) == 0)
                account_queued(before);
        }
        if (final_flush() != 0)
            mw_warn("monitor: the client did not take the last %zu bytes (none taken for "
                    "%llu s, or %llu s in all); the stream ends without its goodbye",
                    mw_buf_pending(&sender.out),
                    (unsigned long long)(MW_FINAL_STALL_NS / 1000000000ull),
                    (unsigned long long)(MW_FINAL_MAX_NS / 1000000000ull));
        on_detach(1);
        final->sent = sender.sent_total;
        final->dropped = ring_dropped + sender.dropped_sender;
    }
    sender.transport->shutdown(0);
    mw_monitor_unpublish();
    if (final->dropped > 0)
        mw_warn("monitor: %llu events were dropped (buffer full or client too slow); "
                "raise MPIWATCH_MONITOR_BUFFER", (unsigned long long)final->dropped);
    mw_buf_free(&sender.out);
    free(sender.marks);
    sender.marks = NULL;
    sender.nmarks = sender.marks_head = sender.marks_cap = 0;
}

int mw_monitor_active(const char **transport, mw_monitor_counts *counts, uint64_t *skipped)
{
    if (sender.transport == NULL)
        return 0;
    *transport = sender.transport->name;
    *counts = sender.final_counts;
    *skipped = sender.frames_skipped;
    return 1;
}
