/* The trace's file and its writer thread (docs/trace.md, "Recording"):
 * every 20 ms the writer takes the queue of full chunks (trace/chunks.h),
 * encodes each (trace/transcode.h) and appends it to this rank's file. A failed write (a full disk)
 * stops the trace with one warning, never the job. */
#define _DEFAULT_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "core/background.h"
#include "core/call_events.h"
#include "core/clock.h"
#include "core/mode.h"
#include "core/state.h"
#include "core/thread_stats.h"
#include "core/user_regions.h"
#include "core/warn.h"
#include "mpiwatch_trace.h"
#include "mw_functions.h"
#include "trace/chunks.h"
#include "trace/comm_ids.h"
#include "trace/clock_sync.h"
#include "trace/limits.h"
#include "trace/trace.h"
#include "trace/transcode.h"
#include "trace/varint.h"

#define MW_TRACE_TICK_NS 20000000L

static struct {
    int agreed;                   /* every rank traces: the sync points are collective */
    int started;                  /* the file is open: totals are meaningful */
    int fd;
    char path[4600];
    char run[4600];               /* "<folder>/<name>": every rank's file but the ".trace.R" */
    pthread_t thread;
    int running;
    pthread_mutex_t lock;
    pthread_cond_t cond;
    int stop;                     /* lock */
    int failed;                   /* atomic: a write failed, the trace is off */
    uint64_t bytes;               /* atomic: written */
} w = {.fd = -1, .lock = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER};

/* The format's numbers (trace/varint.h), by size. */
static size_t put_varint(unsigned char *p, uint64_t v)
{
    return (size_t)(mw_trace_put_varint(p, v) - p);
}

/* A sync point (mpiwatch_trace.h, MWT_SYNC); its size. */
static size_t put_sync(unsigned char *p, mwt_sync_point sync)
{
    size_t n = 0;
    p[n++] = MWT_SYNC;
    n += put_varint(p + n, sync.local);
    n += put_varint(p + n, sync.peer);
    return n;
}

/* Append all of buf; 0 or an errno. */
static int append(const struct iovec *iov, int count)
{
    struct iovec v[2];
    memcpy(v, iov, (size_t)count * sizeof v[0]);
    struct iovec *p = v;
    while (count > 0) {
        ssize_t n = writev(w.fd, p, count);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return errno;
        }
        if (n == 0)
            return EIO;
        __atomic_add_fetch(&w.bytes, (uint64_t)n, __ATOMIC_RELAXED);
        while (count > 0 && (size_t)n >= p->iov_len) {
            n -= (ssize_t)p->iov_len;
            p++;
            count--;
        }
        if (count > 0) {
            p->iov_base = (char *)p->iov_base + n;
            p->iov_len -= (size_t)n;
        }
    }
    return 0;
}

/* Stop recording for good: the calls go back to their usual body. */
static void stop_recording(void)
{
    __atomic_store_n(&mw_trace_recording, 0, __ATOMIC_RELAXED);
    mw_call_events_set(MW_CALL_EVENTS_TRACE, 0);
    mw_mode_set_trace(0, 0);
}

/* A write failed (rc, an errno): the trace stops, said once. */
static void write_failed(int rc)
{
    __atomic_store_n(&w.failed, 1, __ATOMIC_RELAXED);
    stop_recording();
    mw_warn("writing the trace file %s failed (%s); the trace stops here (the job and its "
            "report go on)", w.path, strerror(rc));
}

/* The number the file gave each function it has named (MWT_FUNCTIONS): 0,
 * 1, 2... in the order named, so that a call's function takes one byte
 * (the ids of most MPI functions pass 127); MW_UNNAMED for the others (a
 * reader refuses a call of a function its file has not named). */
#define MW_UNNAMED UINT16_MAX
_Static_assert(MW_FN_COUNT < MW_UNNAMED, "a function's number fits 16 bits");
static uint16_t file_id[MW_FN_COUNT];
static uint16_t named_count;

static void append_functions(const unsigned char *names, size_t size, int count)
{
    unsigned char head[16];
    size_t n = 0;
    head[n++] = MWT_FUNCTIONS;
    n += put_varint(head + n, (uint64_t)count);
    struct iovec iov[2] = {{head, n}, {(void *)names, size}};
    int rc = append(iov, 2);
    if (rc != 0)
        write_failed(rc);
}

/* Name every function not named yet that the rank's profile has counted,
 * before the chunks just taken from the queue are written: the slow body
 * counts a call before it records it, and a chunk is queued after its
 * records are made, so these names cover every function those chunks use
 * (and perhaps one or two that a later chunk will). */
static void name_new_functions(void)
{
    static mw_fn_stats counted[MW_FN_COUNT];
    static unsigned char names[1 << 15];
    size_t n = 0;
    int count = 0;
    mw_stats_merge(counted);
    for (int i = 0; i < MW_FN_COUNT; i++) {
        if (counted[i].calls == 0 || file_id[i] != MW_UNNAMED)
            continue;
        size_t len = strlen(mw_fn_names[i]);
        if (n + len + 20 > sizeof names) {   /* never for MPI's names: one more block */
            append_functions(names, n, count);
            n = 0;
            count = 0;
        }
        file_id[i] = named_count++;
        n += put_varint(names + n, file_id[i]);
        n += put_varint(names + n, len);
        memcpy(names + n, mw_fn_names[i], len);
        n += len;
        count++;
    }
    if (count > 0)
        append_functions(names, n, count);
}

/* Name every region registered and not named yet (MWT_REGIONS), before
 * the chunks just taken: a region is registered before its mark is made. */
static void name_new_regions(void)
{
    static int named;
    static unsigned char block[16 + MW_MAX_REGIONS * (MW_REGION_NAME + 8)];
    int count = mw_region_count();
    if (count <= named)
        return;
    size_t n = 0;
    block[n++] = MWT_REGIONS;
    n += put_varint(block + n, (uint64_t)(count - named));
    for (int id = named; id < count; id++) {
        const char *name = mw_region_name(id);
        size_t len = strnlen(name, MW_REGION_NAME - 1);
        n += put_varint(block + n, (uint64_t)id);
        n += put_varint(block + n, len);
        memcpy(block + n, name, len);
        n += len;
    }
    named = count;
    struct iovec iov[1] = {{block, n}};
    int rc = append(iov, 1);
    if (rc != 0)
        write_failed(rc);
}

static void write_chunk(mw_trace_chunk *c)
{
    if (__atomic_load_n(&w.failed, __ATOMIC_RELAXED))
        return;
    static unsigned char coded[MW_TRACE_CODED_BYTES];   /* one writer at a time */
    uint64_t first_t;
    size_t size = mw_trace_transcode(c, coded, &first_t, file_id);
    unsigned char head[32];
    size_t n = 0;
    head[n++] = MWT_CHUNK;
    n += put_varint(head + n, c->thread);
    n += put_varint(head + n, size);
    n += put_varint(head + n, first_t);
    struct iovec iov[2] = {{head, n}, {coded, size}};
    int rc = append(iov, 2);
    if (rc != 0)
        write_failed(rc);
}

/* Write every queued chunk, in the order each thread queued them. */
static void drain(void)
{
    mw_trace_chunk *fifo = mw_trace_chunks_take();
    /* The communicators made before these chunks were queued, and their
     * functions, before the chunks that use them. */
    size_t size = 0;
    unsigned char *comms = mw_trace_comms_take(&size);
    if (comms != NULL && !__atomic_load_n(&w.failed, __ATOMIC_RELAXED)) {
        struct iovec iov[1] = {{comms, size}};
        int rc = append(iov, 1);
        if (rc != 0)
            write_failed(rc);
    }
    free(comms);
    if (fifo != NULL && !__atomic_load_n(&w.failed, __ATOMIC_RELAXED)) {
        name_new_functions();
        name_new_regions();
    }
    while (fifo != NULL) {
        mw_trace_chunk *next = fifo->next;
        write_chunk(fifo);
        mw_trace_chunk_free(fifo);
        fifo = next;
    }
}

static void *writer_main(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&w.lock);
    while (!w.stop) {
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_nsec += MW_TRACE_TICK_NS;
        if (until.tv_nsec >= 1000000000L) {
            until.tv_sec++;
            until.tv_nsec -= 1000000000L;
        }
        pthread_cond_timedwait(&w.cond, &w.lock, &until);
        pthread_mutex_unlock(&w.lock);
        drain();
        pthread_mutex_lock(&w.lock);
    }
    pthread_mutex_unlock(&w.lock);
    return NULL;
}

/* mpiwatch-<program>-<N>r-<date>-<time>-<pid>, rank 0's, on every rank. */
static int agree_on_name(char *name, size_t size)
{
    if (mw_state.world_rank == 0) {
        char stamp[32];
        time_t now = time(NULL);
        struct tm tm;
        localtime_r(&now, &tm);
        strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &tm);
        snprintf(name, size, "mpiwatch-%s-%dr-%s-%ld", mw_state.program, mw_state.world_size,
                 stamp, (long)getpid());
    }
    int rc = PMPI_Bcast(name, (int)size, MPI_CHAR, 0, MPI_COMM_WORLD);
    name[size - 1] = '\0';
    return rc;
}

/* The file's header (docs/trace.md): at most 60 bytes; its size. The
 * functions are named later, as the calls are written (MWT_FUNCTIONS). */
static size_t header(unsigned char *buf, uint64_t origin, uint64_t wall_ns)
{
    size_t n = 0;
    memcpy(buf, MWT_MAGIC, MWT_MAGIC_SIZE);
    n = MWT_MAGIC_SIZE;
    for (int i = 0; i < 4; i++)
        buf[n++] = (unsigned char)(MWT_VERSION >> (8 * i));
    n += put_varint(buf + n, (uint64_t)mw_state.world_rank);
    n += put_varint(buf + n, (uint64_t)mw_state.world_size);
    double per_second = 1e9 / mw_clock_seconds(1000000000ull);
    uint64_t bits;
    memcpy(&bits, &per_second, sizeof bits);
    for (int i = 0; i < 8; i++)
        buf[n++] = (unsigned char)(bits >> (8 * i));
    n += put_varint(buf + n, origin);
    n += put_varint(buf + n, wall_ns);
    return n;
}

void mw_trace_start(void)
{
    static unsigned char head[1 << 16];
    char name[512] = "";
    if (!mw_state.config.trace || w.started)
        return;
    if (agree_on_name(name, sizeof name) != MPI_SUCCESS) {
        mw_warn("rank %d: the trace's file name could not be agreed on; no trace",
                mw_state.world_rank);
        return;
    }
    w.agreed = 1;
    snprintf(w.run, sizeof w.run, "%s/%s", mw_state.config.trace_dir, name);
    mwt_sync_point sync;
    int synced = mw_trace_clock_sync(&sync) == 0;
    if (!mw_state.config.trace_rank)
        return;   /* not in MPIWATCH_TRACE_RANKS: no file (after the collective steps) */
    snprintf(w.path, sizeof w.path, "%s/%s.trace.%d", mw_state.config.trace_dir, name,
             mw_state.world_rank);
    for (int i = 0; i < MW_FN_COUNT; i++)
        file_id[i] = MW_UNNAMED;
    struct timespec wall;
    uint64_t origin = mw_now();
    clock_gettime(CLOCK_REALTIME, &wall);
    size_t n = header(head, origin,
                      (uint64_t)wall.tv_sec * 1000000000ull + (uint64_t)wall.tv_nsec);
    w.fd = open(w.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (w.fd < 0) {
        mw_warn("rank %d: the trace file %s cannot be made (%s); no trace (see "
                "MPIWATCH_TRACE_DIR)", mw_state.world_rank, w.path, strerror(errno));
        return;
    }
    w.started = 1;
    mw_trace_limits_begin(origin, 1e9 / mw_clock_seconds(1000000000ull));
    const char *limits = mw_trace_limits_text();
    if (*limits != '\0') {   /* its length is bounded far below the header's room */
        head[n++] = MWT_LIMITS;
        n += put_varint(head + n, strlen(limits));
        memcpy(head + n, limits, strlen(limits));
        n += strlen(limits);
    }
    if (synced)
        n += put_sync(head + n, sync);
    struct iovec iov[1] = {{head, n}};
    int rc = append(iov, 1);
    if (rc != 0) {
        w.failed = 1;
        mw_warn("writing the trace file %s failed (%s); no trace", w.path, strerror(rc));
        return;
    }
    mw_trace_bound = mw_state.config.trace_buffer;
    rc = mw_background_start(&w.thread, writer_main, "mpiwatch-trace");
    if (rc != 0) {
        w.failed = 1;
        mw_warn("the trace's writer thread cannot be started (%s); no trace", strerror(rc));
        return;
    }
    w.running = 1;
    __atomic_store_n(&mw_trace_recording, 1, __ATOMIC_RELAXED);
    mw_call_events_set(MW_CALL_EVENTS_TRACE, 1);
    mw_mode_set_trace(1, !mw_trace_limited);
}

void mw_trace_finish(void)
{
    mwt_sync_point sync;
    if (!w.agreed)
        return;
    w.agreed = 0;
    int synced = mw_trace_clock_sync(&sync) == 0;   /* collective: before any return */
    if (!w.started || w.fd < 0)
        return;
    stop_recording();
    if (w.running) {
        pthread_mutex_lock(&w.lock);
        w.stop = 1;
        pthread_cond_signal(&w.cond);
        pthread_mutex_unlock(&w.lock);
        pthread_join(w.thread, NULL);
        w.running = 0;
    }
    drain();
    /* Recording has stopped: the last chunks may take memory beyond the bound. */
    __atomic_store_n(&mw_trace_bound, UINT64_MAX, __ATOMIC_RELAXED);
    mw_trace_queue_partial();
    drain();
    if (synced && !__atomic_load_n(&w.failed, __ATOMIC_RELAXED)) {
        unsigned char tail[32];
        struct iovec iov[1] = {{tail, put_sync(tail, sync)}};
        append(iov, 1);
    }
    close(w.fd);
    w.fd = -1;
}

const char *mw_trace_run(void)
{
    return w.run[0] != '\0' ? w.run : NULL;
}

const char *mw_trace_file(void)
{
    return w.started && w.fd < 0 && !__atomic_load_n(&w.failed, __ATOMIC_RELAXED) ? w.path : NULL;
}

int mw_trace_read_totals(mw_trace_totals *out)
{
    out->events = out->dropped = 0;
    out->bytes = __atomic_load_n(&w.bytes, __ATOMIC_RELAXED);
    if (!w.started)
        return 0;
    mw_trace_thread_counts(&out->events, &out->dropped);
    return 1;
}
