/* A chunk's raw records encoded for the file (trace/transcode.h), on the
 * writer thread: the varints and deltas the call path does not compute. */
#include "trace/transcode.h"

#include "core/thread_stats.h"
#include "trace/varint.h"

/* A communicator as the format has it (mpiwatch_trace.h): 0 for none,
 * else 1 + the zigzag of v after the chunk's previous one. */
static unsigned char *put_relative(unsigned char *o, int64_t v, int64_t none, int64_t *last)
{
    if (v == none)
        return mw_trace_put_varint(o, 0);
    int64_t d = v - *last;
    *last = v;
    return mw_trace_put_varint(o, 1 + mw_trace_zigzag(d));
}

/* A record entered at t (a call, a mark): t kept from going back before the
 * chunk's previous entry (a clock that stepped back: the order is kept),
 * the chunk's first time set by its first record; returns t as kept. */
static uint64_t entered(uint64_t t, uint64_t *last_t, int *timed, uint64_t *first_t)
{
    if (!*timed) {
        *first_t = *last_t = t;
        *timed = 1;
    }
    return t < *last_t ? *last_t : t;
}

size_t mw_trace_transcode(const mw_trace_chunk *c, unsigned char *out, uint64_t *first_t,
                          const uint16_t *file_id)
{
    const unsigned char *p = c->data, *end = c->data + c->used;
    unsigned char *o = out;
    uint64_t last_t = 0, last_site = 0;
    int64_t last_comm = 0;   /* MPICH's handles take 5 bytes whole */
    mwt_recent recent = {{0}, 0};
    int timed = 0;   /* a record has set last_t */
    *first_t = 0;
    while (p < end) {
        const mw_raw_head *h = (const mw_raw_head *)(const void *)p;
        uint32_t size = mw_raw_size(h->kind);
        if (size == 0 || size > (size_t)(end - p))
            break;   /* never: the recorder writes only these */
        *o++ = (unsigned char)h->kind;
        switch (h->kind) {
        case MWT_CALL:
        case MWT_XFER:
        case MWT_POLLS: {
            const mw_raw_call *q = (const mw_raw_call *)(const void *)p;
            uint64_t site = mw_site_address(q->site);
            uint64_t t_in = entered(q->t_in, &last_t, &timed, first_t);
            o = mw_trace_put_varint(o, file_id ? file_id[h->value] : (uint64_t)h->value);
            o = mw_trace_put_signed(o, (int64_t)(site - last_site));
            o = mw_trace_put_varint(o, t_in - last_t);
            o = mw_trace_put_varint(o, q->t_out > t_in ? q->t_out - t_in : 0);
            last_t = t_in;
            last_site = site;
            if (h->kind == MWT_XFER) {
                const mw_raw_transfer *x = (const mw_raw_transfer *)(const void *)(q + 1);
                o = mw_trace_put_signed(o, x->peer);
                o = mw_trace_put_signed(o, x->tag);
                o = put_relative(o, x->comm, -1, &last_comm);
                o = mw_trace_put_varint(o, (uint64_t)(x->sent > 0 ? x->sent : 0));
                o = mw_trace_put_varint(o, (uint64_t)(x->recv > 0 ? x->recv : 0));
            } else if (h->kind == MWT_POLLS) {
                o = mw_trace_put_varint(o, *(const uint64_t *)(const void *)(q + 1));
            }
            break;
        }
        case MWT_DROPPED:
            o = mw_trace_put_varint(o, ((const mw_raw_count *)(const void *)p)->value);
            break;
        case MWT_REQUEST:
            o = mw_trace_put_varint(
                o, mwt_recent_code(&recent, ((const mw_raw_count *)(const void *)p)->value));
            break;
        case MWT_ROOT:
            o = mw_trace_put_signed(o, h->value);
            break;
        case MWT_MARK: {
            const mw_raw_mark *m = (const mw_raw_mark *)(const void *)p;
            uint64_t t = entered(m->t, &last_t, &timed, first_t);
            o = mw_trace_put_varint(o, m->what);
            o = mw_trace_put_varint(o, (uint64_t)(uint32_t)h->value);
            o = mw_trace_put_varint(o, t - last_t);
            last_t = t;
            break;
        }
        case MWT_DONE: {
            /* An ignored status says nothing but the handle. */
            const mw_raw_done *d = (const mw_raw_done *)(const void *)p;
            int bare = h->value == -1 && d->tag == -1 && d->bytes == 0;
            if (bare)
                o[-1] = MWT_DONE_BARE;
            o = mw_trace_put_varint(o, d->request ? mwt_recent_code(&recent, d->request) : 0);
            if (!bare) {
                o = mw_trace_put_signed(o, h->value);
                o = mw_trace_put_signed(o, d->tag);
                o = mw_trace_put_varint(o, d->bytes);
            }
            break;
        }
        }
        p += size;
    }
    return (size_t)(o - out);
}
