/* Checksums and error counts of the data a test program received, kept per
 * phase and printed by rank 0, so that a run with mpiwatch can be compared
 * byte for byte with a run without it. */
#ifndef TALLY_H
#define TALLY_H

#include <mpi.h>
#include <stdio.h>

#define TALLY_MAX_PHASES 32

struct tally {
    unsigned long long sum[TALLY_MAX_PHASES];
    long long errors;
};

/* Record one received element: add it to the phase checksum, and count it
 * as an error if it differs from the expected value. */
static inline void see(struct tally *t, int phase, int pos, int got, int expected)
{
    t->sum[phase] += (unsigned long long)(pos + 1) * (unsigned int)got;
    if (got != expected)
        t->errors++;
}

/* Sum every rank's tally onto rank 0 with one MPI_Reduce (the only MPI call
 * here: the programs' expected call counts include it); rank 0 prints a
 * checksum per phase and the error count. Returns nonzero on rank 0 if any
 * rank saw an error. */
static inline int tally_report(const struct tally *t, int nphase, const char *const *names,
                               int rank, MPI_Comm comm)
{
    unsigned long long local[TALLY_MAX_PHASES + 1], total[TALLY_MAX_PHASES + 1];
    for (int p = 0; p < nphase; p++)
        local[p] = t->sum[p];
    local[nphase] = (unsigned long long)t->errors;
    MPI_Reduce(local, total, nphase + 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, 0, comm);
    if (rank != 0)
        return 0;
    for (int p = 0; p < nphase; p++)
        printf("%-22s checksum %llu\n", names[p], total[p]);
    printf("errors %llu\n", total[nphase]);
    fflush(stdout);
    return total[nphase] != 0;
}

#endif
