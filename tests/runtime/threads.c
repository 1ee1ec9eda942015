/* threads.c: NTHREADS threads per rank call MPI at the same time under
 * MPI_THREAD_MULTIPLE, each on its own duplicate of MPI_COMM_WORLD: ITERS
 * rounds of Comm_rank, Irecv from the left neighbour, Send to the right one,
 * Wait, and Allreduce. The counts are fixed, so the report's totals are
 * exact (threads.expect). check-tsan.sh also builds it with ThreadSanitizer
 * (and, with -DMW_TSAN_CANARY, with a deliberate race). Exits 77 (rank 0
 * prints SKIP) when the MPI does not provide MPI_THREAD_MULTIPLE. Rank 0
 * prints "errors N". */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>

#define NTHREADS 4
#define ITERS 100
#define COUNT 16

static MPI_Comm comms[NTHREADS];
static int errors[NTHREADS];
static int world_size;
/* The threads make their first MPI calls together, when mpiwatch sets up
 * its per-thread state and caches. */
static pthread_barrier_t start;

#ifdef MW_TSAN_CANARY
/* A deliberate data race in a function named like mpiwatch's own, built only
 * for check-tsan.sh: it must be reported (not suppressed) there, or a clean
 * ThreadSanitizer run would prove nothing. */
static int canary;
__attribute__((noinline)) void mw_tsan_canary(void)
{
    canary++;
}
#endif

static void *worker(void *arg)
{
    int t = (int)(long)arg;
    MPI_Comm comm = comms[t];
    int in[COUNT], out[COUNT];

#ifdef MW_TSAN_CANARY
    mw_tsan_canary();
#endif
    pthread_barrier_wait(&start);

    for (int i = 0; i < ITERS; i++) {
        int rank;
        MPI_Comm_rank(comm, &rank);
        int right = (rank + 1) % world_size, left = (rank + world_size - 1) % world_size;
        MPI_Request req;
        MPI_Irecv(in, COUNT, MPI_INT, left, i, comm, &req);
        for (int k = 0; k < COUNT; k++)
            out[k] = rank * 100000 + t * 1000 + i + k;
        MPI_Send(out, COUNT, MPI_INT, right, i, comm);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        for (int k = 0; k < COUNT; k++)
            if (in[k] != left * 100000 + t * 1000 + i + k)
                errors[t]++;
        int one = t + 1, sum = 0;
        MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, comm);
        if (sum != (t + 1) * world_size)
            errors[t]++;
    }
    return NULL;
}

int main(int argc, char **argv)
{
    int provided = MPI_THREAD_SINGLE, rank;
    pthread_t threads[NTHREADS];

    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &world_size);
    if (provided < MPI_THREAD_MULTIPLE) {
        if (rank == 0)
            printf("SKIP: the MPI provides thread level %d, not MPI_THREAD_MULTIPLE (%d)\n",
                   provided, MPI_THREAD_MULTIPLE);
        MPI_Finalize();
        return 77;
    }
    for (int t = 0; t < NTHREADS; t++)
        MPI_Comm_dup(MPI_COMM_WORLD, &comms[t]);
    pthread_barrier_init(&start, NULL, NTHREADS);
    for (int t = 0; t < NTHREADS; t++)
        if (pthread_create(&threads[t], NULL, worker, (void *)(long)t) != 0) {
            fprintf(stderr, "pthread_create failed\n");
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
    int local = 0;
    for (int t = 0; t < NTHREADS; t++) {
        pthread_join(threads[t], NULL);
        local += errors[t];
    }
    pthread_barrier_destroy(&start);
    for (int t = 0; t < NTHREADS; t++)
        MPI_Comm_free(&comms[t]);
    int total = 0;
    MPI_Allreduce(&local, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("errors %d\n", total);
    MPI_Finalize();
    return total != 0;
}
