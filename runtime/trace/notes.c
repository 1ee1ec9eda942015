/* The trace's notes (trace/notes.h): each thread's pending notes, and the
 * rank's outstanding receives whose source only their status will tell, so
 * that the status's source becomes a world rank. Runs only while the trace
 * records: its cost is the trace's. */
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "core/handles.h"
#include "core/state.h"
#include "core/tls.h"
#include "trace/notes.h"
#include "trace/pending.h"

_Thread_local mw_trace_pending mw_trace_pending_tls MW_TLS_MODEL;
#define pending mw_trace_pending_tls

/* Requests are recorded by their handles (docs/trace.md, "Requests"): the
 * readers match each completion to the start of its handle, on the rank's
 * clock, so that a start writes its handle and nothing more. What only the
 * call path can know is the source of an MPI_ANY_SOURCE receive as a world
 * rank: its status gives a rank of the receive's communicator, which the
 * completing call does not name. So those receives alone (a receive's start
 * that names its source gives the readers that source) are kept here, with
 * their communicator, until completed: open addressing on the handle's
 * bits, with tombstones; a lock, since a request may complete on another
 * thread. */
typedef struct {
    uint64_t handle;          /* 0: empty */
    uint64_t seq;             /* its start's number; 0 with a handle: removed */
    MPI_Comm comm;
    const void *thread;       /* the starting thread's notes (&pending) */
} slot;

static int lock;

/* A test-and-set lock: held for a few loads and stores (a calloc when the
 * table grows); a waiter yields rather than spin on a busy node. */
static inline void table_lock(void)
{
    while (__atomic_exchange_n(&lock, 1, __ATOMIC_ACQUIRE))
        sched_yield();
}

static inline void table_unlock(void)
{
    __atomic_store_n(&lock, 0, __ATOMIC_RELEASE);
}
static slot *slots;
static size_t nslots, used;   /* used: live and removed slots */
static size_t live;           /* read unlocked: a completion skips an empty table */
static uint64_t last_seq;

static size_t hash(uint64_t h)
{
    h ^= h >> 29;
    h *= 0xbf58476d1ce4e5b9ull;
    h ^= h >> 32;
    return (size_t)h;
}

static int grow(void)
{
    size_t n = nslots ? nslots * 2 : 256;
    slot *fresh = calloc(n, sizeof *fresh);
    if (fresh == NULL)
        return -1;
    size_t kept = 0;
    for (size_t i = 0; i < nslots; i++) {
        if (slots[i].handle == 0 || slots[i].seq == 0)
            continue;
        size_t j = hash(slots[i].handle) & (n - 1);
        while (fresh[j].handle != 0)
            j = (j + 1) & (n - 1);
        fresh[j] = slots[i];
        kept++;
    }
    free(slots);
    slots = fresh;
    nslots = n;
    used = kept;
    return 0;
}

/* The slot of a receive of handle that a call completed, or NULL. lock
 * held. A handle may be in several live slots: an MPI may give several
 * outstanding requests one handle (Open MPI's requests to MPI_PROC_NULL
 * share a static one), and the look-up runs after the MPI call, when the
 * MPI may already have given the freed handle to another thread's new
 * request, and that thread may even have completed it while this one was
 * descheduled (MPICH reuses a handle at once). So: only a request started
 * before the completing call began (seq <= before), one this thread started
 * rather than another's, and of those the earliest started. */
static slot *find(uint64_t handle, uint64_t before)
{
    slot *best = NULL;
    if (nslots == 0)
        return NULL;
    for (size_t j = hash(handle) & (nslots - 1); slots[j].handle != 0; j = (j + 1) & (nslots - 1)) {
        slot *s = &slots[j];
        if (s->handle != handle || s->seq - 1 >= before)   /* removed (0), or too new */
            continue;
        if (best == NULL) {   /* the usual case: the handle's only slot */
            best = s;
            continue;
        }
        int mine = s->thread == &pending, best_mine = best->thread == &pending;
        if (mine > best_mine || (mine == best_mine && s->seq < best->seq))
            best = s;
    }
    return best;
}

void mw_trace_note_any_source(MPI_Request request, MPI_Comm comm)
{
    uint64_t handle = mw_request_bits(request);
    table_lock();
    if (2 * (used + 1) <= nslots || grow() == 0) {
        size_t j = hash(handle) & (nslots - 1);
        while (slots[j].handle != 0 && slots[j].seq != 0)
            j = (j + 1) & (nslots - 1);
        if (slots[j].handle == 0)
            used++;
        uint64_t seq = last_seq + 1;
        __atomic_store_n(&last_seq, seq, __ATOMIC_RELAXED);   /* read unlocked below */
        slots[j] = (slot){handle, seq, comm, &pending};
        __atomic_store_n(&live, live + 1, __ATOMIC_RELAXED);
    }
    table_unlock();
}

void mw_trace_note_request(int ret, MPI_Request request, MPI_Comm comm, int receives)
{
    if (ret != MPI_SUCCESS || request == MPI_REQUEST_NULL)
        return;
    pending.request = mw_request_bits(request);
    if (receives)   /* the slow body's: its source is not looked at */
        mw_trace_note_any_source(request, comm);
}

void mw_trace_note_completing(int count, const MPI_Request *requests)
{
    pending.completing = 0;
    if (count <= 0 || requests == NULL)
        return;
    /* Before the call: every receive this call can complete is numbered by
     * now, and one started while it runs has a larger number. */
    pending.started_before = __atomic_load_n(&last_seq, __ATOMIC_RELAXED);
    if (count > pending.completing_cap) {
        uint64_t *more = realloc(pending.handles, (size_t)count * sizeof *more);
        if (more == NULL)
            return;
        pending.handles = more;
        pending.completing_cap = count;
    }
    for (int i = 0; i < count; i++)
        pending.handles[i] = mw_request_bits(requests[i]);
    pending.completing = count;
}

/* The tag and bytes a (not ignored) status says. */
static MW_ALWAYS_INLINE void status_says(const MPI_Status *status, mw_trace_done *done)
{
    int n = 0;
    done->tag = status->MPI_TAG;
    if (PMPI_Get_count(status, MPI_BYTE, &n) == MPI_SUCCESS && n >= 0)
        done->bytes = (uint64_t)n;
}

/* A receive's source (world rank), tag and bytes from its status, when
 * the status says them (not ignored, nor from MPI_PROC_NULL). */
static MW_ALWAYS_INLINE void received_from(MPI_Comm comm, const MPI_Status *status, mw_trace_done *done)
{
    if (status == NULL || status == MPI_STATUS_IGNORE || status->MPI_SOURCE < 0)
        return;
    done->source = mw_comm_world_rank(mw_self, comm, status->MPI_SOURCE);
    status_says(status, done);
}

/* Both inline, as they were in completed() alone: a call out of line each
 * cost MPI_Waitall of two requests about 45 instructions (check-cost). */
static MW_ALWAYS_INLINE void push_done(mw_trace_done done)
{
    if (pending.ndone == pending.done_cap) {
        int cap = pending.done_cap ? 2 * pending.done_cap : 8;
        mw_trace_done *more = realloc(pending.done, (size_t)cap * sizeof *more);
        if (more == NULL)
            return;
        pending.done = more;
        pending.done_cap = cap;
    }
    pending.done[pending.ndone++] = done;
}

/* The request at position i completed, with status (NULL: ignored): its
 * handle, and what the status says (the readers keep it for a receive). */
static void completed(int i, const MPI_Status *status)
{
    if (i < 0 || i >= pending.completing || pending.handles[i] == mw_request_bits(MPI_REQUEST_NULL))
        return;
    mw_trace_done done = {pending.handles[i], -1, -1, 0};
    int told = status != NULL && status != MPI_STATUS_IGNORE;
    if (told)
        status_says(status, &done);
    if (__atomic_load_n(&live, __ATOMIC_RELAXED) != 0) {   /* an MPI_ANY_SOURCE receive open */
        MPI_Comm comm = MPI_COMM_NULL;
        table_lock();
        slot *s = find(done.request, pending.started_before);
        if (s != NULL) {
            comm = s->comm;
            s->seq = 0;   /* removed */
            __atomic_store_n(&live, live - 1, __ATOMIC_RELAXED);
        }
        table_unlock();
        if (s != NULL && told && status->MPI_SOURCE >= 0)
            done.source = mw_comm_world_rank(mw_self, comm, status->MPI_SOURCE);
    }
    push_done(done);
}

void mw_trace_note_completed(int ret, int form, const int *flag, const int *index,
                             const int *indices, const MPI_Status *statuses)
{
    int ignored = statuses == MPI_STATUS_IGNORE || statuses == MPI_STATUSES_IGNORE;
    pending.ndone = 0;
    if (ret != MPI_SUCCESS)
        return;
    if (flag != NULL && !*flag) {
        pending.poll_failed = 1;
        return;
    }
    switch (form) {
    case MW_TRACE_DONE_ONE:
        completed(0, ignored ? NULL : statuses);
        break;
    case MW_TRACE_DONE_ALL:
        for (int i = 0; i < pending.completing; i++)
            completed(i, ignored ? NULL : &statuses[i]);
        break;
    case MW_TRACE_DONE_ANY:
        if (*index != MPI_UNDEFINED)
            completed(*index, ignored ? NULL : statuses);
        break;
    case MW_TRACE_DONE_SOME:
        pending.poll_failed = *index == 0;   /* MPI_Testsome found none */
        for (int k = 0; *index != MPI_UNDEFINED && k < *index; k++)
            completed(indices[k], ignored ? NULL : &statuses[k]);
        break;
    }
}

void mw_trace_note_root(int root, MPI_Comm comm)
{
    pending.has_root = 1;
    if (root == MPI_ROOT)   /* this rank is the root, in an intercommunicator's root group */
        pending.root = mw_state.world_rank;
    else
        pending.root = root >= 0 && mw_self != NULL ? mw_comm_world_rank(mw_self, comm, root) : -1;
}

void mw_trace_note_received(int ret, int source, int tag, MPI_Count count, MPI_Datatype type,
                            MPI_Comm comm, const MPI_Status *status)
{
    if (ret != MPI_SUCCESS)
        return;   /* from MPI_PROC_NULL: no source below, so nothing is pushed */
    mw_trace_done done = {0, -1, -1, 0};
    received_from(comm, status, &done);
    if (done.source < 0 && (status == NULL || status == MPI_STATUS_IGNORE)) {
        /* ignored status: the arguments say what they can (not MPI_ANY_*) */
        int size = 0;
        done.source = source >= 0 ? mw_comm_world_rank(mw_self, comm, source) : -1;
        done.tag = tag >= 0 ? tag : -1;
        if (count > 0 && PMPI_Type_size(type, &size) == MPI_SUCCESS && size > 0)
            done.bytes = (uint64_t)count * (uint64_t)size;
    }
    if (done.source >= 0)
        push_done(done);
}
