/* The out-of-line half of the call sites' memos (traffic/memo.h): filling a
 * memo from the thread's handle caches, and the end of a call of a new
 * shape: noted and accounted by the general rules (traffic/inline.h), whose
 * effect the memo then caches for the calls of that shape. */
#include "core/handles.h"
#include "core/state.h"
#include "traffic/memo.h"
#include "traffic/traffic.h"

/* Every world rank of a map lies in MPI_COMM_WORLD (not so for processes
 * spawned or connected later): then the inline path needs no check. */
static int all_in_world(const int *world, int n, int world_size)
{
    if (world == mw_identity_map)
        return n <= world_size;
    for (int i = 0; i < n; i++)
        if ((unsigned)world[i] >= (unsigned)world_size)
            return 0;
    return 1;
}

/* A memo's keys as C handles (a Fortran memo's are integer handles). */
static MPI_Datatype memo_type(uintptr_t key, int kind)
{
    return kind & MW_MEMO_FORTRAN ? mw_type_from_int((mw_handle_int)key) : (MPI_Datatype)key;
}

static MPI_Comm memo_comm(uintptr_t key, int kind)
{
    return kind & MW_MEMO_FORTRAN ? mw_comm_from_int((mw_handle_int)key) : (MPI_Comm)key;
}

mw_site *mw_memo_fill(mw_site *e)
{
    mw_thread *t = mw_self;
    mw_memo *m = &e->memo;
    uintptr_t type_key = m->type, comm_key = m->comm;
    int kind = m->kind;
    /* The MPI calls below are ours: inside the guard, not profiled. */
    mw_guard_hold();
    m->type = 0;
    MPI_Datatype type = memo_type(type_key, kind);
    MPI_Comm comm = memo_comm(comm_key, kind);
    mw_handles_check(t);
    int64_t size = mw_type_size_cached(t, type);
    /* Last: a look-up that drops a rank map empties the memos, this one's
     * fields included, so none may come after the map is read. */
    const mw_group_slot *g = mw_comm_facts(t, comm);
    int ok = g->size > 0 && g->world != NULL && size >= 0 && mw_pairs_attach(t) &&
             all_in_world(g->world, g->size, t->world_size);
    mw_guard_release();
    if (!ok)
        return NULL;
    m->comm = comm_key;
    m->comm_id = mw_comm_id(comm);
    m->world = g->world;
    m->peers = g->size;
    m->size = size;
    m->hist = t->hist[mw_site_fn(e->key)];
    m->pairs = t->pairs;
    m->shape = MW_MEMO_NO_SHAPE;
    if (mw_site_address(e->key) == 0)   /* fn[]: the site table is full */
        __atomic_store_n(&t->fn_memos, 1, __ATOMIC_RELAXED);
    m->type = type_key;   /* last: the memo is valid from here */
    return e;
}

mw_site *mw_memo_prepare(int id, const void *ra, int kind, uintptr_t type, uintptr_t comm)
{
    mw_thread *t = mw_self;
    mw_site *e = mw_site_find(t, mw_site_key(id, ra));
    /* A site away from its home slot (another took it first) is never hit
     * inline: its memo is checked here, and filled only when it differs. */
    if (type != 0 && e->memo.type == type && e->memo.comm == comm && e->memo.kind == kind)
        return e;
    /* The keys as mw_memo_hit compares them: zero-extended (MW_MEMO_KEY). */
    e->memo.comm = comm;
    e->memo.kind = kind;
    e->memo.type = type;
    return mw_memo_fill(e);
}

#if MW_HAVE_MEMO
/* The call kept in mw_tls.xfer at e, noted by the notes of
 * traffic/inline.h (the rules, written there only). A Fortran body keeps no
 * status: its receives from MPI_ANY_SOURCE take the general way
 * (fortran_calls.py), and a send-receive's source decides alone. */
static void note_kept(mw_call *c, const mw_site *e, int64_t count, int tag)
{
    int kind = e->memo.kind;
    MPI_Datatype type = memo_type(e->memo.type, kind);
    MPI_Comm comm = memo_comm(e->memo.comm, kind);
    int peer = mw_tls.xfer.peer;
    const MPI_Status *status = kind & MW_MEMO_FORTRAN ? NULL : mw_tls.xfer.status;
    switch (kind & ~MW_MEMO_FORTRAN) {
    case MW_MEMO_SEND:
        mw_note_send(c, count, type, peer, tag, comm);
        break;
    case MW_MEMO_RECV:
        mw_note_recv(c, count, type, peer, tag, comm, status);
        break;
    case MW_MEMO_SENDRECV:
        mw_note_sendrecv(c, count, type, peer, 0, mw_tls.xfer.count2, type, mw_tls.xfer.peer2,
                         comm, status);
        break;
    default:
        mw_note_allreduce(c, count, type, comm);
        break;
    }
}

/* Cache what call c added at e (mw_account: its bytes, histogram slot and
 * destination row) for the calls of its shape, which add the same. A memo
 * serves calls whose peers are ranks of its communicator (a reduction has
 * none) and that are messages; the others take the general way each time. */
static void remember(mw_site *e, const mw_call *c, int kind, int wide)
{
    mw_memo *m = &e->memo;
    int ranked = kind == MW_MEMO_ALLREDUCE ||
                 ((unsigned)mw_tls.xfer.peer < (unsigned)m->peers &&
                  (kind != MW_MEMO_SENDRECV || (unsigned)mw_tls.xfer.peer2 < (unsigned)m->peers));
    /* m->type is 0 when the notes' look-ups emptied the memos. */
    if (!ranked || MW_CALL_NO_MESSAGE(c) || m->type == 0)
        return;
    if (c->messages && (unsigned)c->peer >= (unsigned)mw_self->world_size)
        return;
    m->shape = wide ? MW_MEMO_NO_SHAPE : mw_tls.xfer.shape;
    m->bytes = (uint64_t)(kind == MW_MEMO_RECV ? c->recv : c->sent);
    m->slot = &m->hist[mw_size_bucket((uint64_t)MW_CALL_MESSAGE_SIZE(c))];
    m->pair = c->messages ? m->pairs + 2 * (size_t)(unsigned)c->peer : NULL;
    /* A send-receive that sends nothing is counted again from its memo only
     * with as many bytes received (mw_xfer_end_sendrecv). */
    m->recv_bytes = (uint64_t)c->recv;
    m->peer_world = c->peer;
}

void mw_xfer_account_new_shape(mw_call *c, int kind, int id, int wide, int tag)
{
    mw_site *e = mw_tls.xfer.site;
    note_kept(c, e, mw_xfer_count(wide), tag);
    mw_account(id, c, &e->s);
    remember(e, c, kind, wide);
}

int mw_xfer_new_shape(int kind, int id, int wide)
{
    mw_call c;
    /* The statistics need no tag. */
    mw_xfer_account_new_shape(&c, kind, id, wide, 0);
    mw_guard_release();
    return MPI_SUCCESS;
}

int mw_xfer_failed(int ret)
{
    mw_xfer_clock_out();
    mw_guard_release();
    return ret;
}
#endif
