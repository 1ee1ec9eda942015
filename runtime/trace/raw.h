/* The trace's records as the call path writes them into its thread's chunk
 * (trace/chunks.h): fixed-width fields, plain stores, nothing encoded, no
 * delta taken. The writer thread transcodes each chunk into the file's
 * encoding (trace/transcode.c; docs/trace.md, "Format") before appending
 * it, so the encoding's cost is paid off the call path. The one definition
 * of the chunks' layout, for the recorder and the transcoder. A record is a
 * whole number of 8-byte words and starts with its head; its kind is the
 * file's (MWT_*), and says which of the records below it is. Internal to
 * trace/. */
#ifndef MW_TRACE_RAW_H
#define MW_TRACE_RAW_H

#include <stdint.h>

#include "core/compiler.h"
#include "mpiwatch_trace.h"

typedef struct mw_raw_head {
    uint32_t kind;
    int32_t value;         /* by kind: the function, the root, the source */
} mw_raw_head;

/* MWT_CALL, MWT_XFER (an mw_raw_transfer follows) and MWT_POLLS (a
 * uint64_t follows: the count of polls). Times as measured: the transcoder
 * keeps a chunk's entries from going back and takes the deltas. */
typedef struct mw_raw_call {
    mw_raw_head head;      /* value: the function id */
    uint64_t site;         /* the site's key (mw_site_address gives its address) */
    uint64_t t_in, t_out;
} mw_raw_call;

typedef struct mw_raw_transfer {
    int32_t peer, tag, comm, unused;
    int64_t sent, recv;    /* bytes; a negative count is written as 0 */
} mw_raw_transfer;

/* MWT_DROPPED (its count) and MWT_REQUEST (the request id). */
typedef struct mw_raw_count {
    mw_raw_head head;
    uint64_t value;
} mw_raw_count;

/* MWT_ROOT is a head alone (value: the root). MWT_DONE: */
typedef struct mw_raw_done {
    mw_raw_head head;      /* value: the source */
    int32_t tag, unused;
    uint64_t request, bytes;
} mw_raw_done;

/* MWT_MARK: value, the mark's (a region's id, a level). */
typedef struct mw_raw_mark {
    mw_raw_head head;
    uint32_t what, unused;
    uint64_t t;
} mw_raw_mark;

/* The bytes of a record of kind (0 for a kind that is not one). */
static inline uint32_t mw_raw_size(uint32_t kind)
{
    switch (kind) {
    case MWT_CALL: return sizeof(mw_raw_call);
    case MWT_XFER: return sizeof(mw_raw_call) + sizeof(mw_raw_transfer);
    case MWT_POLLS: return sizeof(mw_raw_call) + sizeof(uint64_t);
    case MWT_DROPPED:
    case MWT_REQUEST: return sizeof(mw_raw_count);
    case MWT_ROOT: return sizeof(mw_raw_head);
    case MWT_DONE: return sizeof(mw_raw_done);
    case MWT_MARK: return sizeof(mw_raw_mark);
    default: return 0;
    }
}

/* The most one call takes besides its completions: a count of calls dropped
 * before it, a transfer, its request and its root; and one completion. */
#define MW_RAW_RECORD_MAX \
    (sizeof(mw_raw_count) + sizeof(mw_raw_call) + sizeof(mw_raw_transfer) + \
     sizeof(mw_raw_count) + sizeof(mw_raw_head))
#define MW_RAW_DONE_SIZE sizeof(mw_raw_done)

/* The most bytes a chunk's records take once encoded: no record's encoding
 * is longer than twice its raw form (a call's is 36 bytes at most for 32;
 * a transfer's 71 for 64). */
#define MW_RAW_CODED_MAX(raw_bytes) (2 * (size_t)(raw_bytes))

/* Write the call record at p (MWT_CALL or MWT_XFER, whose transfer the
 * caller adds); the end of what was written. */
static MW_ALWAYS_INLINE unsigned char *mw_raw_put_call(unsigned char *p, uint32_t kind, int id,
                                                       uint64_t site, uint64_t t_in,
                                                       uint64_t t_out)
{
    mw_raw_call *q = (mw_raw_call *)(void *)p;
    q->head.kind = kind;
    q->head.value = id;
    q->site = site;
    q->t_in = t_in;
    q->t_out = t_out;
    return p + sizeof *q;
}

static MW_ALWAYS_INLINE unsigned char *mw_raw_put_count(unsigned char *p, uint32_t kind,
                                                        uint64_t value)
{
    mw_raw_count *q = (mw_raw_count *)(void *)p;
    q->head.kind = kind;
    q->head.value = 0;
    q->value = value;
    return p + sizeof *q;
}

#endif
