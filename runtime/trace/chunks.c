/* The trace's chunks (trace/chunks.h): allocated within the bound, queued
 * by the recording threads onto a lock-free stack (one compare-and-swap,
 * never a wait), taken all at once by the writer. */
#include <stdlib.h>

#include "trace/chunks.h"

uint64_t mw_trace_held;
uint64_t mw_trace_bound;
int mw_trace_recording;

static mw_trace_chunk *queue;   /* atomic: the stack of full chunks, newest first */

mw_trace_chunk *mw_trace_chunk_new(uint32_t thread)
{
    uint64_t size = sizeof(mw_trace_chunk);
    if (__atomic_add_fetch(&mw_trace_held, size, __ATOMIC_RELAXED) >
        __atomic_load_n(&mw_trace_bound, __ATOMIC_RELAXED)) {
        __atomic_sub_fetch(&mw_trace_held, size, __ATOMIC_RELAXED);
        return NULL;
    }
    mw_trace_chunk *c = malloc(sizeof *c);
    if (c == NULL) {
        __atomic_sub_fetch(&mw_trace_held, size, __ATOMIC_RELAXED);
        return NULL;
    }
    c->next = NULL;
    c->thread = thread;
    c->used = 0;
    return c;
}

void mw_trace_chunk_free(mw_trace_chunk *c)
{
    free(c);
    __atomic_sub_fetch(&mw_trace_held, sizeof(mw_trace_chunk), __ATOMIC_RELAXED);
}

void mw_trace_chunk_queue(mw_trace_chunk *c)
{
    c->next = __atomic_load_n(&queue, __ATOMIC_RELAXED);
    while (!__atomic_compare_exchange_n(&queue, &c->next, c, 1, __ATOMIC_RELEASE,
                                        __ATOMIC_RELAXED))
        ;
}

mw_trace_chunk *mw_trace_chunks_take(void)
{
    /* One consumer takes the whole stack: no ABA, and the stack reversed
     * is the order the chunks were queued in. */
    mw_trace_chunk *c = __atomic_exchange_n(&queue, NULL, __ATOMIC_ACQUIRE), *fifo = NULL;
    while (c != NULL) {
        mw_trace_chunk *next = c->next;
        c->next = fifo;
        fifo = c;
        c = next;
    }
    return fifo;
}
