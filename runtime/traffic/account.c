/* Bytes into the per-thread statistics: per function, per message size,
 * and per destination rank. */
#include <stdlib.h>

#include "core/state.h"
#include "core/thread_stats.h"
#include "traffic/traffic.h"

/* Bucket of a message size: 0 for empty, else 1 + floor(log2(bytes)). */
static int bucket(uint64_t bytes)
{
    int b = bytes ? 64 - __builtin_clzll(bytes) : 0;
    return b < MW_HIST_BUCKETS ? b : MW_HIST_BUCKETS - 1;
}

static void count_pair(mw_thread *t, int dest, int64_t bytes, int messages)
{
    if (t->sent_to == NULL) {
        int n = mw_state.world_size;
        uint64_t *to;
        if (!mw_state.started || n <= 0 || (to = calloc(2 * (size_t)n, sizeof *to)) == NULL)
            return;
        t->msgs_to = to + n;
        t->world_size = n;
        /* The monitor's sender reads the row (mw_pairs_merge): the pointer last. */
        __atomic_store_n(&t->sent_to, to, __ATOMIC_RELEASE);
    }
    if (dest < t->world_size) {
        MW_OWN_STORE(t->sent_to[dest], MW_OWN_LOAD(t->sent_to[dest]) + (uint64_t)bytes);
        MW_OWN_STORE(t->msgs_to[dest], MW_OWN_LOAD(t->msgs_to[dest]) + (uint64_t)messages);
    }
}

void mw_count_pair(int dest, int64_t bytes, int messages)
{
    mw_thread *t = mw_thread_self();
    if (t != NULL && dest >= 0)
        count_pair(t, dest, bytes, messages);
}

void mw_account(int id, const mw_call *c, mw_fn_stats *s)
{
    mw_thread *t = mw_self;
    if (t == NULL)
        return;
    MW_OWN_STORE(s->sent, MW_OWN_LOAD(s->sent) + (uint64_t)c->sent);
    MW_OWN_STORE(s->recv, MW_OWN_LOAD(s->recv) + (uint64_t)c->recv);
    /* Histograms and pairs are about messages: a call that moved nothing
     * and had no peer (a barrier, a send to MPI_PROC_NULL) is not one. */
    if (c->sent == 0 && c->recv == 0 && !c->messages && c->peer < 0)
        return;
    if (t->hist[id] == NULL && (t->hist[id] = calloc(MW_HIST_BUCKETS, sizeof **t->hist)) == NULL)
        return;
    int b = bucket((uint64_t)(c->sent ? c->sent : c->recv));
    t->hist[id][b]++;
    MW_OWN_STORE(s->sizes, MW_OWN_LOAD(s->sizes) | 1ull << b);   /* the site's size ranges */
    if (c->messages && c->peer >= 0)
        count_pair(t, c->peer, c->sent, c->messages);
}
