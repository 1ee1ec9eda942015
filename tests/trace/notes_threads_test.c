/* Unit tests of the trace's notes (runtime/trace/notes.c): a start and a
 * completion name the request by its handle, and an MPI_ANY_SOURCE
 * receive's completion turns its status's source into a world rank through
 * the communicator its start kept, across threads, in the orders a real run
 * meets only by chance: a completion is looked up after its MPI call, and
 * MPICH gives the freed handle at once to another thread's new request,
 * which that thread may even complete before the first thread's look-up
 * runs. Threads take turns through semaphores; the handles are made up, no
 * MPI call is made. TAP on stdout; for tests/trace/check-trace-notes.sh. */
#include <pthread.h>
#include <semaphore.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "core/handles.h"
#include "core/state.h"
#include "core/tls.h"
#include "trace/notes.h"
#include "trace/pending.h"

/* What notes.c takes from the rest of the library: MPI_COMM_SELF's ranks
 * are world ranks 100 on, so that a source tells its communicator. */
mw_process_state mw_state;
_Thread_local mw_tls_block mw_tls MW_TLS_MODEL;
int mw_comm_world_rank(mw_thread *t, MPI_Comm comm, int rank)
{
    (void)t;
    return comm == MPI_COMM_SELF ? 100 + rank : rank;
}

int PMPI_Get_count(const MPI_Status *status, MPI_Datatype type, int *count)
{
    (void)status;
    (void)type;
    *count = 8;
    return MPI_SUCCESS;
}

static int tests, failed;

static void ok(int cond, const char *what)
{
    tests++;
    printf("%s %d - %s\n", cond ? "ok" : "not ok", tests, what);
    failed += !cond;
}

/* A made-up handle: the MPI's request type holds the bits of n. */
static MPI_Request handle(uintptr_t n)
{
    MPI_Request r;
    memset(&r, 0, sizeof r);
    memcpy(&r, &n, sizeof r < sizeof n ? sizeof r : sizeof n);
    return r;
}

/* Start an MPI_ANY_SOURCE receive of handle h on comm, on this thread; the
 * handle its record names. */
static uint64_t start(MPI_Request h, MPI_Comm comm)
{
    mw_trace_note_request(MPI_SUCCESS, h, comm, 1);
    uint64_t bits = mw_trace_pending_tls.request;
    mw_trace_pending_clear(&mw_trace_pending_tls);
    return bits;
}

/* After an MPI_Wait noted with mw_trace_note_completing, whose status came
 * from rank 3 of the receive's communicator: the source its completion
 * names (-1 when not known, -2 when it completed none). */
static int waited(void)
{
    MPI_Status status;
    memset(&status, 0, sizeof status);
    status.MPI_SOURCE = 3;
    status.MPI_TAG = 7;
    mw_trace_note_completed(MPI_SUCCESS, MW_TRACE_DONE_ONE, NULL, NULL, NULL, &status);
    int source = mw_trace_pending_tls.ndone == 1 ? mw_trace_pending_tls.done[0].source : -2;
    mw_trace_pending_clear(&mw_trace_pending_tls);
    return source;
}

static sem_t turn1, turn2;
static MPI_Request shared;
static uint64_t id1, id2;
static int got1, got2;

/* Thread 1 waits on its request; "descheduled" between the call and the
 * look-up, while thread 2 starts and completes a request of the same handle. */
static void *reused_1(void *arg)
{
    (void)arg;
    id1 = start(shared, MPI_COMM_WORLD);
    mw_trace_note_completing(1, &shared);
    sem_post(&turn2);   /* the MPI has freed the handle */
    sem_wait(&turn1);
    got1 = waited();
    return NULL;
}

static void *reused_2(void *arg)
{
    (void)arg;
    sem_wait(&turn2);
    id2 = start(shared, MPI_COMM_SELF);
    mw_trace_note_completing(1, &shared);
    got2 = waited();
    sem_post(&turn1);
    return NULL;
}

/* Thread 1 is inside its wait when thread 2 starts a request of the same
 * handle; thread 1's wait completed a request it did not know. */
static void *during_1(void *arg)
{
    (void)arg;
    mw_trace_note_completing(1, &shared);
    sem_post(&turn2);
    sem_wait(&turn1);
    got1 = waited();
    return NULL;
}

static void *during_2(void *arg)
{
    (void)arg;
    sem_wait(&turn2);
    id2 = start(shared, MPI_COMM_SELF);
    sem_post(&turn1);
    return NULL;
}

/* A request started on thread 1 and completed on thread 2. */
static void *across_1(void *arg)
{
    (void)arg;
    id1 = start(shared, MPI_COMM_SELF);
    sem_post(&turn2);
    return NULL;
}

static void *across_2(void *arg)
{
    (void)arg;
    sem_wait(&turn2);
    mw_trace_note_completing(1, &shared);
    got2 = waited();
    return NULL;
}

static void run(void *(*a)(void *), void *(*b)(void *), uintptr_t h)
{
    pthread_t ta, tb;
    shared = handle(h);
    id1 = id2 = got1 = got2 = 0;
    sem_init(&turn1, 0, 0);
    sem_init(&turn2, 0, 0);
    pthread_create(&ta, NULL, a, NULL);
    pthread_create(&tb, NULL, b, NULL);
    pthread_join(ta, NULL);
    pthread_join(tb, NULL);
    sem_destroy(&turn1);
    sem_destroy(&turn2);
}

int main(void)
{
    run(reused_1, reused_2, 0x1001);
    ok(id1 == 0x1001 && id2 == 0x1001, "a start's record names its handle");
    ok(got2 == 103, "a thread that reused a freed handle completes its own receive");
    ok(got1 == 3, "a completion looked up after another thread reused its handle finds its own");

    run(during_1, during_2, 0x1002);
    ok(got1 == -1, "a wait does not take the source of a receive started while it ran");
    mw_trace_note_completing(1, &shared);
    ok(waited() == 103, "that receive's source is its own wait's");

    run(across_1, across_2, 0x1003);
    ok(got2 == 103, "a receive started on one thread completes on another");

    /* Receives sharing a handle on one thread (Open MPI's from MPI_PROC_NULL):
     * the earliest started first, in a wait each and in one MPI_Waitall. */
    MPI_Request h = handle(0x1004), two[2] = {h, h};
    start(h, MPI_COMM_WORLD);
    start(h, MPI_COMM_SELF);
    mw_trace_note_completing(1, &h);
    int first = waited();
    mw_trace_note_completing(1, &h);
    ok(first == 3 && waited() == 103, "one handle's receives complete in the order they started");
    start(h, MPI_COMM_WORLD);
    start(h, MPI_COMM_SELF);
    MPI_Status st[2];
    memset(st, 0, sizeof st);
    st[0].MPI_SOURCE = st[1].MPI_SOURCE = 3;
    mw_trace_note_completing(2, two);
    mw_trace_note_completed(MPI_SUCCESS, MW_TRACE_DONE_ALL, NULL, NULL, NULL, st);
    mw_trace_pending *p = &mw_trace_pending_tls;
    ok(p->ndone == 2 && p->done[0].source == 3 && p->done[1].source == 103 &&
           p->done[0].request == 0x1004 && p->done[0].bytes == 8,
       "a waitall of one handle twice completes both, earliest first, by the handle");
    mw_trace_pending_clear(p);

    /* A send keeps nothing: its completion names the handle, no source. */
    mw_trace_note_request(MPI_SUCCESS, handle(0x1005), MPI_COMM_WORLD, 0);
    ok(mw_trace_pending_tls.request == 0x1005, "a send's start names its handle");
    mw_trace_pending_clear(&mw_trace_pending_tls);
    MPI_Request s5 = handle(0x1005);
    mw_trace_note_completing(1, &s5);
    ok(waited() == -1, "a send's completion names no source");

    printf("1..%d\n", tests);
    return failed ? 1 : 0;
}
