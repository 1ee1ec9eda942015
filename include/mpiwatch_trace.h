/* The per-rank trace files (docs/trace.md, "Format"): the constants the
 * runtime's writer and the client's reader share. Not installed. */
#ifndef MPIWATCH_TRACE_H
#define MPIWATCH_TRACE_H

#define MWT_MAGIC "MWTRACE"      /* 8 bytes with its NUL */
#define MWT_MAGIC_SIZE 8
#define MWT_VERSION 1u

/* A chunk of one thread's records starts with this byte. */
#define MWT_CHUNK 0xC7

/* The kind byte of a record. */
enum {
    MWT_CALL = 1,      /* function, site delta, enter delta, duration */
    MWT_XFER = 2,      /* as MWT_CALL, then peer, tag, comm, bytes sent, bytes received */
    MWT_DROPPED = 3    /* count of calls dropped before the next record */
};

/* The longest record: kind, five varints of 64 bits and five of 32. */
#define MWT_RECORD_MAX (1 + 5 * 10 + 5 * 5)

#endif
