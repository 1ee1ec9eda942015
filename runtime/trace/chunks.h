/* What the recorder (the call path) and the writer thread share (chunks.c,
 * but for the recorder's own functions at the end): the chunk a thread
 * fills, the queue of full ones, the bytes held in chunks, which
 * MPIWATCH_TRACE_BUFFER bounds, and the switch. Internal to trace/. */
#ifndef MW_TRACE_CHUNKS_H
#define MW_TRACE_CHUNKS_H

#include <stddef.h>
#include <stdint.h>

#include "core/compiler.h"

#define MW_TRACE_CHUNK_BYTES (64u << 10)

/* A chunk's records are raw (trace/raw.h: fixed-width, aligned to 8);
 * the writer encodes them. */
typedef struct mw_trace_chunk {
    struct mw_trace_chunk *next;   /* in the writer's queue */
    uint32_t thread;
    uint32_t used;                 /* bytes of records in data */
    _Alignas(8) unsigned char data[MW_TRACE_CHUNK_BYTES];
} mw_trace_chunk;

/* Bytes held in chunks (allocated, not yet written and freed), and the
 * bound; both in bytes. */
extern MW_HIDDEN uint64_t mw_trace_held;
extern MW_HIDDEN uint64_t mw_trace_bound;

/* A new, empty chunk for thread, if the bound allows; NULL otherwise. */
MW_HIDDEN mw_trace_chunk *mw_trace_chunk_new(uint32_t thread);

/* Free a chunk and give its bytes back to the bound. */
MW_HIDDEN void mw_trace_chunk_free(mw_trace_chunk *c);

/* Queue a full chunk for the writer: lock-free, never waits. */
MW_HIDDEN void mw_trace_chunk_queue(mw_trace_chunk *c);

/* Take every queued chunk, oldest first (each thread's in the order it
 * queued them): the writer's side of the queue. */
MW_HIDDEN mw_trace_chunk *mw_trace_chunks_take(void);

/* Every thread's partial chunk, queued, with the calls it dropped since
 * its last record (at the end, by the finalizing thread, once recording
 * has stopped and the bound is lifted; recorder.c). */
MW_HIDDEN void mw_trace_queue_partial(void);

/* Calls recorded and dropped by every thread so far (recorder.c). */
MW_HIDDEN void mw_trace_thread_counts(uint64_t *events, uint64_t *dropped);

/* Recording is on: set by the trace's start, cleared at its finish. */
extern MW_HIDDEN int mw_trace_recording;

#endif
