/* The per-rank trace files (docs/trace.md, "Format"): the constants the
 * runtime's writer and the client's reader share. Not installed. */
#ifndef MPIWATCH_TRACE_H
#define MPIWATCH_TRACE_H

#include <stdint.h>

#define MWT_MAGIC "MWTRACE"      /* 8 bytes with its NUL */
#define MWT_MAGIC_SIZE 8
#define MWT_VERSION 6u

/* A chunk of one thread's records starts with this byte. */
#define MWT_CHUNK 0xC7
/* A sync point (mpiwatch_clock.h) starts with this byte, between chunks:
 * varint the rank's ticks, varint rank 0's ticks. One after the header
 * (MPI_Init), one at the end (MPI_Finalize). */
#define MWT_SYNC 0xC8
/* The user's limits in force (MPIWATCH_TRACE_WINDOW, MPIWATCH_TRACE_FUNCTIONS),
 * right after the header when there are any: varint length, then that many
 * bytes of "VARIABLE=value" lines. Calls they leave out are not recorded. */
#define MWT_LIMITS 0xC9
/* Names of functions, between chunks, before the first chunk whose records
 * use them (each function once a file): varint count, then that many times
 * varint function id, varint length and the name's bytes. Only the
 * functions a rank called are named, so that a short run's file stays short. */
#define MWT_FUNCTIONS 0xCA
/* A communicator's identity, between chunks (trace/comm_ids.h): zigzag the
 * rank's handle of it (as records name it), varint the tick at which it was
 * created (the handle names it from then on), varint how many communicators
 * of the same group the rank created before it, then its group: varint the
 * count of runs, each a zigzag varint, its first world rank minus the rank
 * after the previous run (0 for the first), and a varint length. */
#define MWT_COMM 0xCB
/* Names of the program's named regions (mpiwatch_region_begin), between
 * chunks, before the first chunk whose marks name them (each region once a
 * file): varint count, then that many times varint region id, varint length
 * and the name's bytes. */
#define MWT_REGIONS 0xCC

/* The kind byte of a record. The kinds 4, 5, 6 and 8 add to the call
 * record before them (of the same chunk). A communicator (kind 2) is
 * relative: a varint, 0 for none (-1), else 1 + the zigzag of the value
 * minus the chunk's previous one that was not none (0 before the first),
 * so that a chunk's usual communicator takes a byte. A request (kinds 4, 6,
 * 8) is its handle's bits, as the MPI gave it (the readers match each
 * completion to its start: docs/trace.md, "Requests"), coded against the
 * chunk's recently named handles (mwt_recent below): a varint, 0 for none
 * (a call's own receive), 1 to MWT_RECENT for the handle at that place in
 * the recent list, else MWT_RECENT + 1 + the zigzag of the handle minus the
 * most recent one (0 before the first); either way the handle moves to the
 * front. A halo's requests, reused by the MPI step after step, take a
 * byte. */
#define MWT_RECENT 16

enum {
    MWT_CALL = 1,      /* function, site delta, enter delta, duration */
    MWT_XFER = 2,      /* as MWT_CALL, then peer, tag, comm, bytes sent, bytes received */
    MWT_DROPPED = 3,   /* count of calls dropped before the next record */
    MWT_REQUEST = 4,   /* the request the call started: its handle */
    MWT_ROOT = 5,      /* the root of the collective: world rank */
    MWT_DONE = 6,      /* a request the call completed: handle, source, tag, bytes */
    MWT_POLLS = 7,     /* polls that found nothing, folded: as MWT_CALL, then the count */
    MWT_DONE_BARE = 8, /* as MWT_DONE with no status (source -1, tag -1, 0 bytes): the handle */
    MWT_MARK = 9       /* not a call: what (MWT_MARK_*), value, enter delta (its time) */
};

/* What a mark says, and its value. */
enum {
    MWT_MARK_BEGIN = 0,    /* a named region begins: its id (MWT_REGIONS) */
    MWT_MARK_END = 1,      /* the innermost region open ends: its id */
    MWT_MARK_PCONTROL = 2  /* MPI_Pcontrol(level): the level (0 pauses the trace) */
};

/* A chunk's recently named request handles, most recent first; zeroed at
 * each chunk's start, on both sides. */
typedef struct {
    uint64_t h[MWT_RECENT];
    int n;
} mwt_recent;

static inline void mwt_recent_front(mwt_recent *r, int at, uint64_t handle)
{
    if (at == r->n && r->n < MWT_RECENT)
        r->n++;
    if (at >= MWT_RECENT)
        at = MWT_RECENT - 1;
    for (int i = at; i > 0; i--)
        r->h[i] = r->h[i - 1];
    r->h[0] = handle;
}

/* The code of a (nonzero) handle, which then moves to the front. */
static inline unsigned long long mwt_recent_code(mwt_recent *r, unsigned long long handle)
{
    unsigned long long last = r->n ? r->h[0] : 0, code;
    int at = 0;
    while (at < r->n && r->h[at] != handle)
        at++;
    if (at < r->n) {
        code = (unsigned long long)at + 1;
    } else {
        long long d = (long long)(handle - last);
        code = MWT_RECENT + 1 + (((unsigned long long)d << 1) ^ (unsigned long long)(d >> 63));
    }
    mwt_recent_front(r, at, handle);
    return code;
}

/* The handle of a nonzero code (read from a file: checked); 0 for a code
 * naming a place the list does not have yet. */
static inline unsigned long long mwt_recent_handle(mwt_recent *r, unsigned long long code)
{
    unsigned long long handle;
    int at;
    if (code <= MWT_RECENT) {
        at = (int)code - 1;
        if (at >= r->n)
            return 0;
        handle = r->h[at];
    } else {
        unsigned long long z = code - MWT_RECENT - 1;
        long long d = (long long)(z >> 1) ^ -(long long)(z & 1);
        handle = (r->n ? r->h[0] : 0) + (unsigned long long)d;
        at = r->n;
        if (handle == 0)
            return 0;
    }
    mwt_recent_front(r, at, handle);
    return handle;
}

#endif
