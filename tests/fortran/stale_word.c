/* A stale handed word (runtime/core/handoff.h). First two Fortran
 * MPI_SEND calls (mpi_send_, from libmpiwatch_f) to this rank: where the
 * binding reaches the C wrapper (MPICH), the first is the probe and the
 * second is handed over. Then MPI_SEND's hand-over stub is called with
 * targets that return without entering MPI, as a binding that did not reach
 * the C wrapper would (after a mode change in between, say). The calls after
 * each must still be counted, once each (check-stale-word.sh): a body
 * without a memo (MPI_Barrier, MPI_Comm_rank) frees the word the general way
 * (and, hand-overs having been used, warns once and stops them), one with a
 * memo (MPI_Irecv) counts its call from the site the word names. MW_TARGETS:
 * how many targets the mpif.h binding hands libmpiwatch
 * (generated/fortran_calls.c). Run with both libraries preloaded: the
 * functions are looked up there. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <mpi.h>
#include <stdio.h>

static void no_binding(void)
{
}

int main(int argc, char **argv)
{
    static void *targets[MW_TARGETS];
    int rank, buf[10], out[10];
    MPI_Request requests[20];
    MPI_Status statuses[20];

    MPI_Init(&argc, &argv);
    void (*set_targets)(void *const *, int) =
        (void (*)(void *const *, int))dlsym(RTLD_DEFAULT, "mpiwatch_fortran_fast_targets_mpif");
    void (*stub)(void) = (void (*)(void))dlsym(RTLD_DEFAULT, "mpiwatch_fortran_handoff_mw_f_mpi_send");
    void (*send_f)(void *, MPI_Fint *, MPI_Fint *, MPI_Fint *, MPI_Fint *, MPI_Fint *, MPI_Fint *) =
        (void (*)(void *, MPI_Fint *, MPI_Fint *, MPI_Fint *, MPI_Fint *, MPI_Fint *, MPI_Fint *))dlsym(
            RTLD_DEFAULT, "mpi_send_");
    if (set_targets == NULL || stub == NULL || send_f == NULL) {
        fprintf(stderr, "stale_word: no MPI_SEND hand-over stub, or no mpi_send_ (preload both libraries)\n");
        return 2;
    }

    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Fint one = 1, type = MPI_Type_c2f(MPI_INT), dest = rank, tag = 99,
             comm = MPI_Comm_c2f(MPI_COMM_WORLD), ierror;
    for (int i = 0; i < 2; i++) {
        out[i] = i;
        MPI_Irecv(&buf[i], 1, MPI_INT, rank, 99, MPI_COMM_WORLD, &requests[i]);
        send_f(&out[i], &one, &type, &dest, &tag, &comm, &ierror);
        if (ierror != MPI_SUCCESS)
            return 3;
    }
    MPI_Waitall(2, requests, statuses);
    for (int i = 0; i < MW_TARGETS; i++)
        targets[i] = (void *)no_binding;
    set_targets(targets, MW_TARGETS);

    stub();
    for (int i = 0; i < 10; i++)
        MPI_Barrier(MPI_COMM_WORLD);
    stub();
    for (int i = 0; i < 10; i++)
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    stub();
    for (int i = 0; i < 10; i++) {
        out[i] = i;
        MPI_Irecv(&buf[i], 1, MPI_INT, rank, i, MPI_COMM_WORLD, &requests[i]);
        MPI_Isend(&out[i], 1, MPI_INT, rank, i, MPI_COMM_WORLD, &requests[10 + i]);
    }
    MPI_Waitall(20, requests, statuses);
    for (int i = 0; i < 10; i++)
        if (buf[i] != i)
            return 1;
    printf("stale_word: done\n");
    MPI_Finalize();
    return 0;
}
