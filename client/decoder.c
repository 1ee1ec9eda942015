#include "decoder.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

/* Phases: before HELLO, between frames after it, after GOODBYE, broken.
 * Within a phase, hlen/blen/skip say how much of the current frame is in. */
enum { P_START, P_STREAM, P_DONE, P_ERROR };

void mwc_decoder_init(mwc_decoder *d)
{
    memset(d, 0, sizeof *d);
    d->phase = P_START;
}

void mwc_decoder_init_relay(mwc_decoder *d)
{
    mwc_decoder_init(d);
    d->relay = 1;
}

void mwc_decoder_free(mwc_decoder *d)
{
    free(d->buf);
    free(d->seen);
    free(d->names);
    memset(d, 0, sizeof *d);
    d->phase = P_ERROR;
}

int mwc_decoder_idle(const mwc_decoder *d)
{
    return d->hlen == 0 && d->skip == 0;
}

int mwc_decoder_finished(const mwc_decoder *d)
{
    return d->phase == P_DONE;
}

static int fail(mwc_decoder *d, const char *fmt, ...)
{
    char what[150];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    snprintf(d->error, sizeof d->error, "frame %llu at byte %llu: %s",
             (unsigned long long)d->frames + 1, (unsigned long long)d->offset, what);
    d->phase = P_ERROR;
    return -1;
}

/* A bounds-checked reader over one frame body: any read past the end sets
 * bad and returns zeros, and the parser checks bad once at the end. */
typedef struct { const unsigned char *p; size_t left; int bad; } cursor;

static const unsigned char *take(cursor *c, size_t n)
{
    if (c->bad || c->left < n) {
        c->bad = 1;
        return NULL;
    }
    const unsigned char *p = c->p;
    c->p += n;
    c->left -= n;
    return p;
}
static uint16_t get16(cursor *c) { const unsigned char *p = take(c, 2); return p ? mwc_le16(p) : 0; }
static uint32_t get32(cursor *c) { const unsigned char *p = take(c, 4); return p ? mwc_le32(p) : 0; }
static uint64_t get64(cursor *c) { const unsigned char *p = take(c, 8); return p ? mwc_le64(p) : 0; }
static mwc_str getstr(cursor *c)
{
    mwc_str s = { "", 0 };
    uint16_t n = get16(c);
    const unsigned char *p = take(c, n);
    if (p) {
        s.p = (const char *)p;
        s.len = n;
    }
    return s;
}

void mwc_frame_event(const mwc_frame *f, uint32_t i, mwc_event *e)
{
    const unsigned char *p = f->u.events.records + (size_t)i * MWP_EVENT_SIZE;
    e->function = mwc_le32(p + MWP_EV_FUNCTION);
    e->thread = mwc_le32(p + MWP_EV_THREAD);
    e->t_in = mwc_le64(p + MWP_EV_T_IN);
    e->t_out = mwc_le64(p + MWP_EV_T_OUT);
    e->peer = (int32_t)mwc_le32(p + MWP_EV_PEER);
    e->tag = (int32_t)mwc_le32(p + MWP_EV_TAG);
    e->comm = (int32_t)mwc_le32(p + MWP_EV_COMM);
    e->flags = mwc_le32(p + MWP_EV_FLAGS);
    e->sent = mwc_le64(p + MWP_EV_SENT);
    e->recv = mwc_le64(p + MWP_EV_RECV);
}

void mwc_frame_entry(const mwc_frame *f, uint32_t i, mwc_entry *e)
{
    const unsigned char *p = f->u.snapshot.entries + (size_t)i * MWP_ENTRY_SIZE;
    e->function = mwc_le32(p + MWP_EN_FUNCTION);
    e->calls = mwc_le64(p + MWP_EN_CALLS);
    e->time = mwc_le64(p + MWP_EN_TIME);
    e->sent = mwc_le64(p + MWP_EN_SENT);
    e->recv = mwc_le64(p + MWP_EN_RECV);
}

void mwc_frame_inflight(const mwc_frame *f, uint32_t i, mwc_inflight *c)
{
    const unsigned char *p = f->u.inflight.records + (size_t)i * MWP_INFLIGHT_SIZE;
    c->function = mwc_le32(p + MWP_IF_FUNCTION);
    c->thread = mwc_le32(p + MWP_IF_THREAD);
    c->t_in = mwc_le64(p + MWP_IF_T_IN);
    c->peer = (int32_t)mwc_le32(p + MWP_IF_PEER);
    c->tag = (int32_t)mwc_le32(p + MWP_IF_TAG);
    c->root = (int32_t)mwc_le32(p + MWP_IF_ROOT);
    c->comm = (int32_t)mwc_le32(p + MWP_IF_COMM);
    c->comm_size = (int32_t)mwc_le32(p + MWP_IF_COMM_SIZE);
    c->flags = mwc_le32(p + MWP_IF_FLAGS);
}

void mwc_frame_pair(const mwc_frame *f, uint32_t i, mwc_pair *c)
{
    const unsigned char *p = f->u.pairs.records + (size_t)i * MWP_PAIR_SIZE;
    c->to = mwc_le32(p + MWP_PA_TO);
    c->bytes = mwc_le64(p + MWP_PA_BYTES);
    c->messages = mwc_le64(p + MWP_PA_MESSAGES);
}

static const char *type_name(int type)
{
    switch (type) {
    case MWP_HELLO: return "HELLO";
    case MWP_EVENTS: return "EVENTS";
    case MWP_SNAPSHOT: return "SNAPSHOT";
    case MWP_GOODBYE: return "GOODBYE";
    case MWP_INFLIGHT: return "INFLIGHT";
    case MWP_PAIRS: return "PAIRS";
    case MWP_FORWARD: return "FORWARD";
    default: return "LEVEL";
    }
}

/* The whole body must be used: the version fixes every frame's layout. */
static int check_end(mwc_decoder *d, cursor *c, int type)
{
    if (c->bad)
        return fail(d, "%s frame is truncated", type_name(type));
    if (c->left)
        return fail(d, "%s frame has %zu bytes after its last field", type_name(type), c->left);
    return 0;
}

static int parse_hello(mwc_decoder *d, cursor *c, mwc_frame *f)
{
    f->u.hello.version = get16(c);
    f->u.hello.rank = get32(c);
    f->u.hello.size = get32(c);
    f->u.hello.pid = get32(c);
    f->u.hello.epoch = get64(c);
    f->u.hello.host = getstr(c);
    f->u.hello.program = getstr(c);
    f->u.hello.timer = getstr(c);
    f->u.hello.mpi = getstr(c);
    uint32_t n = get32(c);
    if (c->bad)
        return fail(d, "HELLO frame is truncated");
    if (f->u.hello.version != MWP_VERSION)
        return fail(d, "HELLO says protocol version %u; this client speaks version %d",
                    (unsigned)f->u.hello.version, MWP_VERSION);
    if (f->u.hello.size == 0 || f->u.hello.rank >= f->u.hello.size)
        return fail(d, "HELLO says rank %u of %u ranks", (unsigned)f->u.hello.rank,
                    (unsigned)f->u.hello.size);
    /* Each name takes at least its 2-byte length: this bounds the table. */
    if (n > c->left / 2)
        return fail(d, "HELLO announces %u function names, more than its %zu bytes can hold",
                    (unsigned)n, c->left);
    free(d->names);
    free(d->seen);
    d->names = mwc_calloc(n, sizeof *d->names);
    d->seen = mwc_calloc(n / 8 + 1, 1);
    for (uint32_t i = 0; i < n; i++)
        d->names[i] = getstr(c);
    if (check_end(d, c, MWP_HELLO))
        return -1;
    d->nfunctions = n;
    f->u.hello.nfunctions = n;
    f->u.hello.names = d->names;
    return 0;
}

static int parse_events(mwc_decoder *d, cursor *c, mwc_frame *f)
{
    uint32_t n = get32(c);
    if (c->bad)
        return fail(d, "EVENTS frame is truncated");
    if (c->left / MWP_EVENT_SIZE < n || c->left != (size_t)n * MWP_EVENT_SIZE)
        return fail(d, "EVENTS frame announces %u records but holds %zu bytes of records",
                    (unsigned)n, c->left);
    f->u.events.count = n;
    f->u.events.records = c->p;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t fn = mwc_le32(c->p + (size_t)i * MWP_EVENT_SIZE);
        if (fn >= d->nfunctions)
            return fail(d, "EVENTS record %u names function %u; HELLO named %u",
                        (unsigned)i, (unsigned)fn, (unsigned)d->nfunctions);
    }
    return 0;
}

static int parse_snapshot(mwc_decoder *d, cursor *c, mwc_frame *f)
{
    f->u.snapshot.t = get64(c);
    f->u.snapshot.sent = get64(c);
    f->u.snapshot.dropped = get64(c);
    f->u.snapshot.unwatched = get64(c);
    uint32_t n = get32(c);
    if (c->bad)
        return fail(d, "SNAPSHOT frame is truncated");
    if (c->left / MWP_ENTRY_SIZE < n || c->left != (size_t)n * MWP_ENTRY_SIZE)
        return fail(d, "SNAPSHOT frame announces %u entries but holds %zu bytes of entries",
                    (unsigned)n, c->left);
    f->u.snapshot.count = n;
    f->u.snapshot.entries = c->p;
    memset(d->seen, 0, d->nfunctions / 8 + 1);
    int rc = 0;
    for (uint32_t i = 0; i < n && rc == 0; i++) {
        uint32_t fn = mwc_le32(c->p + (size_t)i * MWP_ENTRY_SIZE);
        if (fn >= d->nfunctions)
            rc = fail(d, "SNAPSHOT entry %u names function %u; HELLO named %u",
                      (unsigned)i, (unsigned)fn, (unsigned)d->nfunctions);
        else if (d->seen[fn / 8] & (1u << (fn % 8)))
            rc = fail(d, "SNAPSHOT names function %u twice", (unsigned)fn);
        else
            d->seen[fn / 8] |= (unsigned char)(1u << (fn % 8));
    }
    return rc;
}

static int parse_inflight(mwc_decoder *d, cursor *c, mwc_frame *f)
{
    f->u.inflight.t = get64(c);
    uint32_t n = get32(c);
    if (c->bad)
        return fail(d, "INFLIGHT frame is truncated");
    if (c->left / MWP_INFLIGHT_SIZE < n || c->left != (size_t)n * MWP_INFLIGHT_SIZE)
        return fail(d, "INFLIGHT frame announces %u records but holds %zu bytes of records",
                    (unsigned)n, c->left);
    f->u.inflight.count = n;
    f->u.inflight.records = c->p;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t fn = mwc_le32(c->p + (size_t)i * MWP_INFLIGHT_SIZE + MWP_IF_FUNCTION);
        if (fn >= d->nfunctions)
            return fail(d, "INFLIGHT record %u names function %u; HELLO named %u",
                        (unsigned)i, (unsigned)fn, (unsigned)d->nfunctions);
    }
    return 0;
}

/* PAIRS: only the count is checked here (against the frame, without
 * overflow: n * 20 could wrap in 32 bits); destinations are left to the
 * model, which knows the job's size. The frame bound keeps n within
 * MWP_PAIRS_MAX. */
static int parse_pairs(mwc_decoder *d, cursor *c, mwc_frame *f)
{
    f->u.pairs.t = get64(c);
    uint32_t n = get32(c);
    if (c->bad)
        return fail(d, "PAIRS frame is truncated");
    if (c->left / MWP_PAIR_SIZE < n || c->left != (size_t)n * MWP_PAIR_SIZE)
        return fail(d, "PAIRS frame announces %u records but holds %zu bytes of records",
                    (unsigned)n, c->left);
    f->u.pairs.count = n;
    f->u.pairs.records = c->p;
    return 0;
}

/* Decode one complete frame body and hand it on. */
static int frame(mwc_decoder *d, int type, const unsigned char *body, size_t n,
                 mwc_frame_fn fn, void *ctx)
{
    cursor c = { body, n, 0 };
    mwc_frame f;
    memset(&f, 0, sizeof f);
    f.type = type;
    if (d->relay != (type == MWP_FORWARD))
        return fail(d, d->relay ? "a node leader sent a %s frame, not FORWARD"
                                : "a %s frame from a rank whose endpoint is not a node leader's",
                    type_name(type));
    if (type == MWP_FORWARD) {
        f.u.forward.rank = get32(&c);
        if (c.bad || c.left == 0)
            return fail(d, "FORWARD frame without bytes to forward");
        f.u.forward.data = c.p;
        f.u.forward.len = c.left;
        d->frames++;
        return fn(ctx, &f) ? 1 : 0;
    }
    if (d->phase == P_START && type != MWP_HELLO)
        return fail(d, "the stream starts with a %s frame, not HELLO", type_name(type));
    if (d->phase == P_STREAM && type == MWP_HELLO)
        return fail(d, "a second HELLO frame");
    int rc;
    switch (type) {
    case MWP_HELLO: rc = parse_hello(d, &c, &f); break;
    case MWP_EVENTS: rc = parse_events(d, &c, &f); break;
    case MWP_SNAPSHOT: rc = parse_snapshot(d, &c, &f); break;
    case MWP_INFLIGHT: rc = parse_inflight(d, &c, &f); break;
    case MWP_PAIRS: rc = parse_pairs(d, &c, &f); break;
    case MWP_GOODBYE:
        f.u.goodbye.t = get64(&c);
        f.u.goodbye.sent = get64(&c);
        f.u.goodbye.dropped = get64(&c);
        rc = check_end(d, &c, type);
        break;
    default:
        f.u.level.t = get64(&c);
        f.u.level.level = (int32_t)get32(&c);
        rc = check_end(d, &c, type);
        break;
    }
    if (rc)
        return -1;
    d->frames++;
    d->phase = type == MWP_GOODBYE ? P_DONE : P_STREAM;
    return fn(ctx, &f) ? 1 : 0;
}

int mwc_decoder_feed(mwc_decoder *d, const void *data, size_t n, mwc_frame_fn fn, void *ctx)
{
    const unsigned char *p = data;
    while (n > 0) {
        if (d->phase == P_ERROR)
            return -1;
        if (d->phase == P_DONE) {
            d->offset = d->consumed;
            return fail(d, "%zu bytes after GOODBYE", n);
        }
        if (d->skip) { /* the body of a frame type this client does not know */
            size_t k = n < d->skip ? n : d->skip;
            d->skip -= k;
            p += k;
            n -= k;
            d->consumed += k;
            if (d->skip == 0) {
                d->frames++;
                d->hlen = 0;
            }
            continue;
        }
        if (d->hlen < 5) {
            if (d->hlen == 0)
                d->offset = d->consumed;
            size_t k = 5 - d->hlen < n ? 5 - d->hlen : n;
            memcpy(d->hdr + d->hlen, p, k);
            d->hlen += k;
            p += k;
            n -= k;
            d->consumed += k;
            if (d->hlen >= 4) {
                d->length = mwc_le32(d->hdr);
                if (d->length == 0 || d->length > MWP_FRAME_MAX)
                    return fail(d, "length %u is outside 1..%u", (unsigned)d->length,
                                MWP_FRAME_MAX);
            }
            if (d->hlen < 5)
                continue;
            int type = d->hdr[4];
            if (type < MWP_HELLO || type > MWP_FORWARD) {
                if (d->relay)
                    return fail(d, "a node leader sent a frame of unknown type %d, not FORWARD",
                                type);
                if (d->phase == P_START)
                    return fail(d, "the stream starts with a frame of unknown type %d, not HELLO",
                                type);
                d->skip = d->length - 1;
                if (d->skip == 0) {
                    d->frames++;
                    d->hlen = 0;
                }
                continue;
            }
            d->blen = 0;
        }
        size_t need = d->length - 1 - d->blen;
        const unsigned char *body;
        if (d->blen == 0 && n >= need) {
            body = p; /* the whole body is in this chunk: no copy */
        } else {
            if (d->bcap < d->length) {
                d->buf = mwc_realloc(d->buf, d->length);
                d->bcap = d->length;
            }
            size_t k = n < need ? n : need;
            memcpy(d->buf + d->blen, p, k);
            d->blen += k;
            p += k;
            n -= k;
            d->consumed += k;
            if (k < need)
                return 0;
            body = d->buf;
            need = 0;
        }
        p += need;
        n -= need;
        d->consumed += need;
        size_t blen = d->length - 1;
        d->hlen = 0;
        d->blen = 0;
        int rc = frame(d, d->hdr[4], body, blen, fn, ctx);
        if (rc)
            return rc;
    }
    return d->phase == P_ERROR ? -1 : 0;
}
