/* The trace (docs/trace.md): every profiled call of every thread, recorded
 * by the slow body into per-thread chunks (recorder.c) that a background
 * thread appends to one file per rank (writer.c). The life cycle starts and
 * finishes it; the report reads its totals. */
#ifndef MW_TRACE_H
#define MW_TRACE_H

#include <stdint.h>

#include "core/compiler.h"
#include "core/thread_stats.h"
#include "traffic/traffic.h"

/* At the end of MPI_Init, on every rank (collective when the trace is on:
 * rank 0's name for the files is broadcast): opens this rank's file, starts
 * the writer and routes every call through the slow body. Warns and stays
 * off when the file cannot be made. */
MW_HIDDEN void mw_trace_start(void);

/* At MPI_Finalize, after its own call is recorded: stops recording, writes
 * every chunk left and closes the file. */
MW_HIDDEN void mw_trace_finish(void);

/* The path of the run's files up to ".trace." ("<folder>/<name>", the
 * same on every rank), once the name was agreed on at MPI_Init; NULL when
 * the trace never started. */
MW_HIDDEN const char *mw_trace_run(void);

/* This rank's trace file once mw_trace_finish has closed it whole (the
 * wait-state analysis at MPI_Finalize reads it back); NULL when the trace
 * was off or a write failed. */
MW_HIDDEN const char *mw_trace_file(void);

/* Record one call (trace/call_event.h has the arguments). */
MW_HIDDEN void mw_trace_record(int id, const mw_call *call, int traffic, const mw_fn_stats *s);

/* Record a mark of the calling thread at tick t (MWT_MARK_*, with its
 * value: a region's id, MPI_Pcontrol's level), in order with its calls.
 * Not a call: not counted, and not recorded when the buffer is full. */
MW_HIDDEN void mw_trace_mark(int what, int value, uint64_t t);

typedef struct mw_trace_totals {
    uint64_t events;     /* calls recorded */
    uint64_t dropped;    /* calls lost: the buffer bound was reached */
    uint64_t bytes;      /* written to the file, header included */
} mw_trace_totals;

/* This rank's totals; 0 when the trace was never on. */
MW_HIDDEN int mw_trace_read_totals(mw_trace_totals *out);

#endif
