/* Unit tests of the trace's request table (runtime/trace/notes.c) across
 * threads, in the orders a real run meets only by chance: a completion is
 * looked up after its MPI call, and MPICH gives the freed handle at once to
 * another thread's new request, which that thread may even complete before
 * the first thread's look-up runs (check-trace-otf2's threads case on
 * MPICH: "MpiIrecv of request 48, which no MpiIrecvRequest started").
 * Threads take turns through semaphores; the handles are made up, no MPI
 * call is made. TAP on stdout; for tests/trace/check-trace-notes.sh. */
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

/* What notes.c takes from the rest of the library. */
mw_process_state mw_state;
_Thread_local mw_tls_block mw_tls MW_TLS_MODEL;
int mw_comm_world_rank(mw_thread *t, MPI_Comm comm, int rank)
{
    (void)t;
    (void)comm;
    return rank;
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

/* Start a send request of handle h on this thread; its trace id. */
static uint64_t start(MPI_Request h)
{
    mw_trace_note_request(MPI_SUCCESS, h, MPI_COMM_WORLD, 0);
    uint64_t id = mw_trace_pending_tls.request;
    mw_trace_pending_clear(&mw_trace_pending_tls);
    return id;
}

/* After an MPI_Wait noted with mw_trace_note_completing: the id it
 * completed, 0 when none. */
static uint64_t waited(void)
{
    mw_trace_note_completed(MPI_SUCCESS, MW_TRACE_DONE_ONE, NULL, NULL, NULL, MPI_STATUS_IGNORE);
    uint64_t id = mw_trace_pending_tls.ndone == 1 ? mw_trace_pending_tls.done[0].request : 0;
    mw_trace_pending_clear(&mw_trace_pending_tls);
    return id;
}

static sem_t turn1, turn2;
static MPI_Request shared;
static uint64_t id1, id2, got1, got2;

/* Thread 1 waits on its request; "descheduled" between the call and the
 * look-up, while thread 2 starts and completes a request of the same handle. */
static void *reused_1(void *arg)
{
    (void)arg;
    id1 = start(shared);
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
    id2 = start(shared);
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
    id2 = start(shared);
    sem_post(&turn1);
    return NULL;
}

/* A request started on thread 1 and completed on thread 2. */
static void *across_1(void *arg)
{
    (void)arg;
    id1 = start(shared);
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
    ok(id1 != 0 && id2 > id1, "two threads' requests of one handle get ids");
    ok(got2 == id2, "a thread that reused a freed handle completes its own request");
    ok(got1 == id1, "a completion looked up after another thread reused its handle finds its own");

    run(during_1, during_2, 0x1002);
    ok(got1 == 0, "a wait does not complete a request started while it ran");
    mw_trace_note_completing(1, &shared);
    ok(waited() == id2, "that request is completed by its own wait");

    run(across_1, across_2, 0x1003);
    ok(got2 == id1, "a request started on one thread completes on another");

    /* Requests sharing a handle on one thread (Open MPI's to MPI_PROC_NULL):
     * the earliest started first, in a wait each and in one MPI_Waitall. */
    MPI_Request h = handle(0x1004), two[2] = {h, h};
    uint64_t a = start(h), b = start(h);
    mw_trace_note_completing(1, &h);
    uint64_t first = waited();
    mw_trace_note_completing(1, &h);
    ok(first == a && waited() == b, "one handle's requests complete in the order they started");
    a = start(h);
    b = start(h);
    mw_trace_note_completing(2, two);
    mw_trace_note_completed(MPI_SUCCESS, MW_TRACE_DONE_ALL, NULL, NULL, NULL, MPI_STATUSES_IGNORE);
    mw_trace_pending *p = &mw_trace_pending_tls;
    ok(p->ndone == 2 && p->done[0].request == a && p->done[1].request == b,
       "a waitall of one handle twice completes both, earliest first");
    mw_trace_pending_clear(p);

    printf("1..%d\n", tests);
    return failed ? 1 : 0;
}
