/* Encoding the protocol's frames (docs/protocol.md) into a byte queue:
 * little-endian integers, u16-length strings, each frame a u32 length, a
 * type byte and its body. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/clock.h"
#include "mw_functions.h"
#include "monitor/inflight.h"
#include "monitor/monitor.h"
#include "core/state.h"

void mw_buf_free(mw_buf *b)
{
    free(b->data);
    memset(b, 0, sizeof *b);
}

void mw_buf_consume(mw_buf *b, size_t n)
{
    b->head += n;
    if (b->head == b->len)
        b->head = b->len = 0;
}

/* Room for n more bytes; moves the unsent bytes to the front first. */
static unsigned char *reserve(mw_buf *b, size_t n)
{
    if (b->head > 0 && b->head >= b->len / 2) {
        memmove(b->data, b->data + b->head, b->len - b->head);
        b->len -= b->head;
        b->head = 0;
    }
    if (b->len + n > b->cap) {
        size_t cap = b->cap ? b->cap : 65536;
        while (cap < b->len + n)
            cap *= 2;
        unsigned char *d = realloc(b->data, cap);
        if (d == NULL) {
            b->failed = 1;
            return NULL;
        }
        b->data = d;
        b->cap = cap;
    }
    return b->data + b->len;
}

static unsigned char *put16(unsigned char *p, uint16_t v)
{
    p[0] = (unsigned char)v;
    p[1] = (unsigned char)(v >> 8);
    return p + 2;
}

static unsigned char *put32(unsigned char *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (unsigned char)(v >> (8 * i));
    return p + 4;
}

static unsigned char *put64(unsigned char *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (unsigned char)(v >> (8 * i));
    return p + 8;
}

static unsigned char *putstr(unsigned char *p, const char *s)
{
    size_t n = s ? strlen(s) : 0;
    if (n > 65535)
        n = 65535;
    p = put16(p, (uint16_t)n);
    memcpy(p, s ? s : "", n);
    return p + n;
}

static size_t strsize(const char *s)
{
    size_t n = s ? strlen(s) : 0;
    return 2 + (n > 65535 ? 65535 : n);
}

/* Start a frame of body bytes: returns where the body goes. */
static unsigned char *frame(mw_buf *b, int type, size_t body)
{
    unsigned char *p = reserve(b, MWP_FRAME_HEADER + body);
    if (p == NULL)
        return NULL;
    p = put32(p, (uint32_t)(body + 1));
    *p++ = (unsigned char)type;
    b->len += MWP_FRAME_HEADER + body;
    return p;
}

/* ------------------------------------------------------------ time */

void mw_timebase_init(mw_timebase *tb)
{
    tb->ticks0 = mw_now();
    tb->ns0 = mw_clock_monotonic_ns();
    tb->ns_per_tick = 1.0;
}

/* With the TSC, the rate is measured against CLOCK_MONOTONIC since
 * mw_timebase_init; the sender thread keeps its own estimate, so that it
 * never touches the calibration the report uses (runtime/clock.c). */
void mw_timebase_update(mw_timebase *tb)
{
    if (!mw_clock_use_tsc)
        return;
    uint64_t t = mw_now(), ns = mw_clock_monotonic_ns();
    if (ns - tb->ns0 >= 1000000u && t > tb->ticks0)
        tb->ns_per_tick = (double)(ns - tb->ns0) / (double)(t - tb->ticks0);
}

uint64_t mw_timebase_ns(const mw_timebase *tb, uint64_t ticks)
{
    if (ticks <= mw_state.start_ticks)
        return 0;
    return (uint64_t)((double)(ticks - mw_state.start_ticks) * tb->ns_per_tick + 0.5);
}

/* ------------------------------------------------------------ frames */

int mw_frame_forward(mw_buf *b, uint32_t rank, const unsigned char *data, size_t n)
{
    unsigned char *p = frame(b, MWP_FORWARD, MWP_FORWARD_FIXED + n);
    if (p == NULL)
        return -1;
    p = put32(p, rank);
    memcpy(p, data, n);
    return 0;
}

int mw_frame_hello(mw_buf *b, uint64_t epoch_wall_ns, const char *timer)
{
    char host[256] = "";
    gethostname(host, sizeof host - 1);
    size_t body = MWP_HELLO_FIXED + strsize(host) + strsize(mw_state.program) +
                  strsize(timer) + strsize(mw_mpi_description) + 4;
    for (int i = 0; i < MW_FN_COUNT; i++)
        body += strsize(mw_fn_names[i]);
    unsigned char *p = frame(b, MWP_HELLO, body);
    if (p == NULL)
        return -1;
    p = put16(p, MWP_VERSION);
    p = put32(p, (uint32_t)mw_state.world_rank);
    p = put32(p, (uint32_t)mw_state.world_size);
    p = put32(p, (uint32_t)getpid());
    p = put64(p, epoch_wall_ns);
    p = putstr(p, host);
    p = putstr(p, mw_state.program);
    p = putstr(p, timer);
    p = putstr(p, mw_mpi_description);
    p = put32(p, (uint32_t)MW_FN_COUNT);
    for (int i = 0; i < MW_FN_COUNT; i++)
        p = putstr(p, mw_fn_names[i]);
    return 0;
}

#define MW_EVENTS_PER_FRAME ((MWP_FRAME_MAX - 1 - MWP_EVENTS_FIXED) / MWP_EVENT_SIZE)

size_t mw_frame_events(mw_buf *b, const mw_event *ev, size_t n, const mw_timebase *tb)
{
    if (n > MW_EVENTS_PER_FRAME)
        n = MW_EVENTS_PER_FRAME;
    if (n == 0)
        return 0;
    unsigned char *p = frame(b, MWP_EVENTS, MWP_EVENTS_FIXED + n * MWP_EVENT_SIZE);
    if (p == NULL)
        return 0;
    p = put32(p, (uint32_t)n);
    for (size_t i = 0; i < n; i++) {   /* the fields in the order of mwp_event_layout */
        const mw_event *e = &ev[i];
        p = put32(p, e->function);
        p = put32(p, e->thread);
        p = put64(p, mw_timebase_ns(tb, e->t_in));
        p = put64(p, mw_timebase_ns(tb, e->t_out));
        p = put32(p, (uint32_t)e->peer);
        p = put32(p, (uint32_t)e->tag);
        p = put32(p, (uint32_t)e->comm);
        p = put32(p, e->flags & MW_EVENT_TRAFFIC ? MWP_EVENT_TRAFFIC : 0u);
        p = put64(p, e->sent > 0 ? (uint64_t)e->sent : 0);
        p = put64(p, e->recv > 0 ? (uint64_t)e->recv : 0);
    }
    return n;
}

int mw_frame_snapshot(mw_buf *b, uint64_t t, const mw_monitor_counts *c, const mw_fn_stats *stats,
                      uint64_t (*ns_of)(uint64_t, const void *), const void *arg)
{
    uint32_t count = 0;
    for (int i = 0; i < MW_FN_COUNT; i++)
        count += stats[i].calls != 0;
    unsigned char *p = frame(b, MWP_SNAPSHOT, MWP_SNAPSHOT_FIXED + (size_t)count * MWP_ENTRY_SIZE);
    if (p == NULL)
        return -1;
    p = put64(p, t);
    p = put64(p, c->sent);
    p = put64(p, c->dropped);
    p = put64(p, c->unwatched);
    p = put32(p, count);
    for (int i = 0; i < MW_FN_COUNT; i++) {   /* entries in the order of mwp_entry_layout */
        if (stats[i].calls == 0)
            continue;
        p = put32(p, (uint32_t)i);
        p = put64(p, stats[i].calls);
        p = put64(p, ns_of(stats[i].ticks, arg));
        p = put64(p, stats[i].sent);
        p = put64(p, stats[i].recv);
    }
    return 0;
}

int mw_frame_goodbye(mw_buf *b, uint64_t t, uint64_t sent, uint64_t dropped)
{
    unsigned char *p = frame(b, MWP_GOODBYE, MWP_GOODBYE_SIZE);
    if (p == NULL)
        return -1;
    p = put64(p, t);
    p = put64(p, sent);
    put64(p, dropped);
    return 0;
}

int mw_frame_level(mw_buf *b, uint64_t t, int32_t level)
{
    unsigned char *p = frame(b, MWP_LEVEL, MWP_LEVEL_SIZE);
    if (p == NULL)
        return -1;
    p = put64(p, t);
    put32(p, (uint32_t)level);
    return 0;
}

/* A call's time in was read on its own thread's core and the frame's time
 * on the sender's: on a virtual machine the two cores' TSCs may differ by a
 * little, so a call entered just before the frame could seem to enter after
 * it. Its time in is then the frame's: it has been in the call for 0 s. */
int mw_frame_inflight(mw_buf *b, uint64_t t, const mw_inflight *calls, size_t n,
                      const mw_timebase *tb)
{
    unsigned char *p = frame(b, MWP_INFLIGHT, MWP_INFLIGHT_FIXED + n * MWP_INFLIGHT_SIZE);
    if (p == NULL)
        return -1;
    p = put64(p, t);
    p = put32(p, (uint32_t)n);
    for (size_t i = 0; i < n; i++) {
        const mw_inflight *c = &calls[i];
        p = put32(p, c->function);
        p = put32(p, c->thread);
        uint64_t t_in = mw_timebase_ns(tb, c->t_in);
        p = put64(p, t_in < t ? t_in : t);
        p = put32(p, (uint32_t)c->peer);
        p = put32(p, (uint32_t)c->tag);
        p = put32(p, (uint32_t)c->root);
        p = put32(p, (uint32_t)c->comm);
        p = put32(p, (uint32_t)c->comm_size);
        p = put32(p, c->flags);
    }
    return 0;
}

typedef struct pair_entry {
    uint32_t to;
    uint64_t bytes, messages;
} pair_entry;

static int by_bytes_desc(const void *a, const void *b)
{
    const pair_entry *x = a, *y = b;
    if (x->bytes != y->bytes)
        return x->bytes < y->bytes ? 1 : -1;
    return x->to < y->to ? -1 : (x->to > y->to);
}

int mw_frame_pairs(mw_buf *b, uint64_t t, const uint64_t *bytes, const uint64_t *messages, int n)
{
    size_t count = 0;
    for (int d = 0; d < n; d++)
        count += messages[d] > 0;
    pair_entry *e = malloc((count ? count : 1) * sizeof *e);
    if (e == NULL)
        return -1;
    size_t k = 0;
    for (int d = 0; d < n; d++)
        if (messages[d] > 0)
            e[k++] = (pair_entry){(uint32_t)d, bytes[d], messages[d]};
    if (count > MWP_PAIRS_MAX) {
        qsort(e, count, sizeof *e, by_bytes_desc);
        count = MWP_PAIRS_MAX;
    }
    unsigned char *p = frame(b, MWP_PAIRS, MWP_PAIRS_FIXED + count * MWP_PAIR_SIZE);
    if (p == NULL) {
        free(e);
        return -1;
    }
    p = put64(p, t);
    p = put32(p, (uint32_t)count);
    for (size_t i = 0; i < count; i++) {
        p = put32(p, e[i].to);
        p = put64(p, e[i].bytes);
        p = put64(p, e[i].messages);
    }
    free(e);
    return 0;
}
