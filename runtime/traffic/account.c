/* Bytes per destination rank, out of line: the first message of a thread
 * that attached before MPI_Init, and the persistent requests' starts. The
 * call path's accounting is inline (traffic/inline.h). */
#include "core/thread_stats.h"
#include "traffic/traffic.h"

void mw_count_pair_miss(mw_thread *t, int dest, int64_t bytes, int messages)
{
    if (dest < 0 || !mw_pairs_attach(t) || dest >= t->world_size)
        return;
    uint64_t *p = t->pairs + 2 * (size_t)dest;
    MW_OWN_STORE(p[0], MW_OWN_LOAD(p[0]) + (uint64_t)bytes);
    MW_OWN_STORE(p[1], MW_OWN_LOAD(p[1]) + (uint64_t)messages);
}

void mw_count_pair(int dest, int64_t bytes, int messages)
{
    mw_thread *t = mw_thread_self();
    if (t != NULL && dest >= 0)
        mw_count_pair_in(t, dest, bytes, messages);
}
