/* The incremental frame decoder of docs/protocol.md.
 *
 * A transport hands it whatever bytes arrived, split anywhere; it calls back
 * once per complete frame. Every length and count is checked against the
 * frame that holds it, so malformed input puts the decoder into an error
 * state with a message; it never reads out of bounds and never allocates
 * more than one maximal frame (1 MiB) plus HELLO's name table. */
#ifndef MWC_DECODER_H
#define MWC_DECODER_H

#include <stddef.h>
#include <stdint.h>

#include "mpiwatch_protocol.h"   /* frame types, sizes and layouts */

typedef struct { const char *p; uint16_t len; } mwc_str;

typedef struct {
    uint32_t function, thread;
    uint64_t t_in, t_out;
    int32_t peer, tag, comm;
    uint32_t flags;
    uint64_t sent, recv;
} mwc_event;

typedef struct {
    uint32_t function;
    uint64_t calls, time, sent, recv;
} mwc_entry;

/* A call in progress (INFLIGHT). peer and tag may be MWP_NONE or MWP_ANY,
 * root and comm MWP_NONE, comm_size 0: not known. Only function is checked
 * by the decoder; the other fields are whatever the rank sent. */
typedef struct {
    uint32_t function, thread;
    uint64_t t_in;
    int32_t peer, tag, root, comm, comm_size;
    uint32_t flags;
} mwc_inflight;

/* A PAIRS record: what the rank has sent to rank `to` so far. `to` is
 * whatever the rank sent: the model checks it against the job's size. */
typedef struct {
    uint32_t to;
    uint64_t bytes, messages;
} mwc_pair;

/* One decoded frame. Pointers point into the decoder's buffer or the fed
 * chunk: valid only during the callback. Records and entries stay packed;
 * mwc_frame_event()/_entry()/_inflight()/_pair() unpack one. */
typedef struct {
    int type;
    union {
        struct {
            uint16_t version;
            uint32_t rank, size, pid;
            uint64_t epoch;
            mwc_str host, program, timer, mpi;
            uint32_t nfunctions;
            const mwc_str *names;
        } hello;
        struct { uint32_t count; const unsigned char *records; } events;
        struct {
            uint64_t t, sent, dropped, unwatched;
            uint32_t count;
            const unsigned char *entries;
        } snapshot;
        struct { uint64_t t, sent, dropped; } goodbye;
        struct { uint64_t t; int32_t level; } level;
        struct { uint64_t t; uint32_t count; const unsigned char *records; } inflight;
        struct { uint64_t t; uint32_t count; const unsigned char *records; } pairs;
        struct { uint32_t rank; const unsigned char *data; size_t len; } forward;
    } u;
} mwc_frame;

void mwc_frame_event(const mwc_frame *f, uint32_t i, mwc_event *out);
void mwc_frame_entry(const mwc_frame *f, uint32_t i, mwc_entry *out);
void mwc_frame_inflight(const mwc_frame *f, uint32_t i, mwc_inflight *out);
void mwc_frame_pair(const mwc_frame *f, uint32_t i, mwc_pair *out);

/* Return nonzero to stop decoding: mwc_decoder_feed then returns 1 and the
 * rest of that chunk is dropped (the caller is giving up on the stream). */
typedef int (*mwc_frame_fn)(void *ctx, const mwc_frame *f);

typedef struct {
    int phase;               /* see decoder.c */
    unsigned char hdr[5];    /* length (4) and type (1) of the current frame */
    size_t hlen;             /* header bytes so far */
    uint32_t length;         /* the current frame's length field */
    unsigned char *buf;      /* body bytes so far, when a frame spans chunks */
    size_t blen, bcap;
    size_t skip;             /* body bytes of an unknown frame still to skip */
    uint32_t nfunctions;     /* from HELLO: the bound on function ids */
    unsigned char *seen;     /* bitmap of ids, to reject repeats in a SNAPSHOT */
    mwc_str *names;          /* HELLO's names, rebuilt per HELLO frame */
    uint64_t frames;         /* frames decoded, for messages */
    uint64_t offset;         /* stream offset of the current frame */
    uint64_t consumed;       /* bytes fed so far */
    int relay;               /* a node leader's stream: FORWARD frames only, no HELLO */
    char error[200];
} mwc_decoder;

void mwc_decoder_init(mwc_decoder *d);
/* A decoder for a node leader's connection: it accepts FORWARD frames only
 * (whose bytes are ranks' streams, for their own decoders). */
void mwc_decoder_init_relay(mwc_decoder *d);
void mwc_decoder_free(mwc_decoder *d);

/* 0: all bytes consumed; 1: the callback asked to stop; -1: malformed
 * input (d->error says why; every later call returns -1 too). */
int mwc_decoder_feed(mwc_decoder *d, const void *data, size_t n, mwc_frame_fn fn, void *ctx);

/* Nonzero when no frame is half received: EOF here is a clean end. */
int mwc_decoder_idle(const mwc_decoder *d);
/* Nonzero once GOODBYE was decoded. */
int mwc_decoder_finished(const mwc_decoder *d);

#endif
