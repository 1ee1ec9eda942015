/* The per-rank trace files (docs/trace.md, "Format"): the constants the
 * runtime's writer and the client's reader share. Not installed. */
#ifndef MPIWATCH_TRACE_H
#define MPIWATCH_TRACE_H

#define MWT_MAGIC "MWTRACE"      /* 8 bytes with its NUL */
#define MWT_MAGIC_SIZE 8
#define MWT_VERSION 4u

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

/* The kind byte of a record. The kinds 4, 5, 6 and 8 add to the call
 * record before them (of the same chunk). A request id (kinds 4, 6, 8) and
 * a communicator (kind 2) are relative: a varint, 0 for none (request 0, a
 * call's own receive; communicator -1), else 1 + the zigzag of the value
 * minus the chunk's previous one of its sort that was not none (0 before
 * the first), so that a request started or completed next to its
 * neighbours, and a chunk's usual communicator, take a byte. */
enum {
    MWT_CALL = 1,      /* function, site delta, enter delta, duration */
    MWT_XFER = 2,      /* as MWT_CALL, then peer, tag, comm, bytes sent, bytes received */
    MWT_DROPPED = 3,   /* count of calls dropped before the next record */
    MWT_REQUEST = 4,   /* the request the call started: its id */
    MWT_ROOT = 5,      /* the root of the collective: world rank */
    MWT_DONE = 6,      /* a request the call completed: id, source, tag, bytes */
    MWT_POLLS = 7,     /* polls that found nothing, folded: as MWT_CALL, then the count */
    MWT_DONE_BARE = 8  /* as MWT_DONE with no status (source -1, tag -1, 0 bytes): the id */
};

#endif
