/* What the trace's notes (trace/notes.h) left for the call being recorded:
 * one per thread, filled by notes.c, taken and cleared by the recorder.
 * Internal to trace/. */
#ifndef MW_TRACE_PENDING_H
#define MW_TRACE_PENDING_H

#include <stdint.h>

#include "core/compiler.h"

/* A request a call completed: its handle's bits (0: the call's own receive),
 * and the status's source (world rank; known only for a receive kept by
 * mw_trace_note_any_source, or a call's own receive), tag and bytes (-1,
 * -1, 0 when not known; a send's status says nothing the readers use). */
typedef struct mw_trace_done {
    uint64_t request;
    int source, tag;
    uint64_t bytes;
} mw_trace_done;

typedef struct mw_trace_pending {
    uint64_t request;         /* the handle's bits of the request the call started; 0 none */
    int root;                 /* world rank */
    int has_root;
    int poll_failed;          /* a test or probe that found nothing */
    int completing;           /* requests noted before the call */
    int completing_cap;
    uint64_t *handles;        /* their handles, as bits */
    uint64_t started_before;  /* the last receive kept when the call began (notes.c) */
    int ndone, done_cap;
    mw_trace_done *done;      /* what completed */
} mw_trace_pending;

/* The calling thread's, read inline by the recorder on every call. */
extern MW_HIDDEN _Thread_local mw_trace_pending mw_trace_pending_tls MW_TLS_MODEL;

/* Did the notes leave anything for the call (a record beyond kind 1 or 2,
 * or a poll to fold)? */
static inline int mw_trace_pending_any(const mw_trace_pending *p)
{
    return (p->request != 0) | p->has_root | p->poll_failed | p->completing | p->ndone;
}

/* Forget the call's notes (its record has been written). */
static inline void mw_trace_pending_clear(mw_trace_pending *p)
{
    p->request = 0;
    p->has_root = 0;
    p->poll_failed = 0;
    p->completing = 0;
    p->ndone = 0;
}

#endif
