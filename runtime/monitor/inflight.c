/* Collecting the calls in progress (monitor/inflight.h). Each thread's TLS
 * block holds its current call (core/tls.h). A thread inside a fast or
 * watched body has its time in (the TSC) in its guard word; inside the slow
 * body the guard word is 1 and the time in is published separately. The
 * fields are written before the time in, so reading the time, then the
 * fields, then the time again gives one call's fields or a visible change. */
#include <mpi.h>

#include "core/handles.h"
#include "core/mode.h"
#include "core/thread_stats.h"
#include "core/tls.h"
#include "monitor/inflight.h"
#include "monitor/monitor.h"
#include "mpiwatch_protocol.h"
#include "mw_functions.h"
#include "mw_mpi_interop.h"

int mw_inflight_on;

/* Reading another thread's call is a sequence-lock read: the owner writes
 * its guard word and caches with plain stores (the call path stays as it
 * is), the reader checks that the call did not change while it read and
 * drops what it read otherwise. ThreadSanitizer cannot know that pattern,
 * so its builds ignore this thread's reads in read_call. */
#if defined(__SANITIZE_THREAD__)
void __tsan_ignore_thread_begin(void);
void __tsan_ignore_thread_end(void);
#define SEQ_READ_BEGIN() __tsan_ignore_thread_begin()
#define SEQ_READ_END() __tsan_ignore_thread_end()
#else
#define SEQ_READ_BEGIN() ((void)0)
#define SEQ_READ_END() ((void)0)
#endif

void mw_inflight_begin(void)
{
    __atomic_store_n(&mw_inflight_on, 1, __ATOMIC_RELAXED);
    mw_mode_set_monitor(1);
}

void mw_inflight_end(void)
{
    mw_mode_set_monitor(0);
    __atomic_store_n(&mw_inflight_on, 0, __ATOMIC_RELAXED);
}

/* The time in of the call the block's thread is inside, 0 for none. */
static uint64_t time_in(const mw_tls_block *b)
{
    uint64_t g = __atomic_load_n(&b->guard.word, __ATOMIC_ACQUIRE);
    if (g == MW_GUARD_FREE)
        return 0;
    if (g == MW_GUARD_HELD)   /* the slow body (or MW_GUARD_NEW: a thread not started) */
        return __atomic_load_n(&b->now.t_in, __ATOMIC_ACQUIRE);
    return g;
}

static int32_t rank_field(int rank, int world_rank)
{
    if (rank == MPI_ANY_SOURCE)
        return MWP_ANY;
    return world_rank >= 0 ? world_rank : MWP_NONE;
}

/* Read one thread's call into r; 0 when it is not inside one, or the call
 * changed while it was read. */
static int read_call(const mw_thread *t, mw_inflight *r)
{
    const mw_tls_block *b = t->tls;
    uint64_t t_in = time_in(b);
    if (t_in == 0)
        return 0;
    int id = __atomic_load_n(&b->now.id, __ATOMIC_RELAXED);
    uintptr_t comm_word = __atomic_load_n(&b->now.comm, __ATOMIC_RELAXED);
    int peer = __atomic_load_n(&b->now.peer, __ATOMIC_RELAXED);
    int tag = __atomic_load_n(&b->now.tag, __ATOMIC_RELAXED);
    int root = __atomic_load_n(&b->now.root, __ATOMIC_RELAXED);
    __atomic_thread_fence(__ATOMIC_ACQUIRE);
    if (time_in(b) != t_in || id < 0 || id >= MW_FN_COUNT)
        return 0;
    unsigned flags = mw_inflight_flags[id];
    if (!(flags & MW_INFLIGHT_HAS_COMM) || comm_word == 0)   /* 0: a Fortran call's */
        flags &= ~(unsigned)(MW_INFLIGHT_HAS_COMM | MW_INFLIGHT_HAS_PEER | MW_INFLIGHT_HAS_TAG |
                             MW_INFLIGHT_HAS_ROOT);
    MPI_Comm comm = (flags & MW_INFLIGHT_HAS_COMM) ? (MPI_Comm)comm_word : MPI_COMM_NULL;
    int size = 0, world = 0;
    int peer_world = -1, root_world = -1;
    if (comm != MPI_COMM_NULL) {
        /* One lookup gives the size, and the world rank of the peer (or,
         * for a rooted collective, of the root); a second only for a call
         * that names both. */
        int has_peer = (flags & MW_INFLIGHT_HAS_PEER) != 0, has_root = (flags & MW_INFLIGHT_HAS_ROOT) != 0;
        int first = mw_comm_peek(t, comm, has_peer ? peer : has_root ? root : -1, &size, &world);
        peer_world = has_peer ? first : -1;
        root_world = !has_root ? -1 : has_peer ? mw_comm_peek(t, comm, root, &size, &world) : first;
    }
    *r = (mw_inflight){
        .function = (uint32_t)id,
        .thread = t->number,
        .t_in = t_in,
        .peer = (flags & MW_INFLIGHT_HAS_PEER) ? rank_field(peer, peer_world) : MWP_NONE,
        .tag = !(flags & MW_INFLIGHT_HAS_TAG) ? MWP_NONE : tag == MPI_ANY_TAG ? MWP_ANY : tag,
        .root = (flags & MW_INFLIGHT_HAS_ROOT) && root_world >= 0 ? root_world : MWP_NONE,
        .comm = comm != MPI_COMM_NULL ? (int32_t)mw_comm_to_int(comm) : MWP_NONE,
        .comm_size = size,
        .flags = (flags & 0xffu) | (world ? MWP_IF_WORLD : 0u),
    };
    /* The communicator was read while the call was still in it. */
    return time_in(b) == t_in;
}

typedef struct collect_arg {
    mw_inflight *out;
    size_t max, n;
} collect_arg;

static void collect_one(mw_thread *t, void *arg)
{
    collect_arg *c = arg;
    if (t->tls == NULL || c->n >= c->max)
        return;
    SEQ_READ_BEGIN();
    int got = read_call(t, &c->out[c->n]);
    SEQ_READ_END();
    c->n += got != 0;
}

size_t mw_inflight_collect(mw_inflight *out, size_t max)
{
    collect_arg c = {out, max, 0};
    mw_threads_each(collect_one, &c);
    return c.n;
}

int mw_inflight_changed(const mw_inflight *a, size_t na, const mw_inflight *b, size_t nb)
{
    if (na != nb)
        return 1;
    for (size_t i = 0; i < na; i++)
        if (a[i].t_in != b[i].t_in || a[i].thread != b[i].thread ||
            a[i].function != b[i].function)
            return 1;
    return 0;
}
