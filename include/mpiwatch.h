/* mpiwatch public API: for programs and for hook code.
 *
 * Link with -lmpiwatch (or preload libmpiwatch.so). Every function here is
 * safe to call before MPI_Init and after MPI_Finalize. */
#ifndef MPIWATCH_H
#define MPIWATCH_H

#include <mpi.h>

#ifdef __cplusplus
extern "C" {
#endif

#define MPIWATCH_VERSION "0.1.0"

/* Size in bytes of one element of a datatype (0 for MPI_DATATYPE_NULL or
 * when MPI cannot tell). Meant for hooks: ctx.bytes uses it. */
long long mpiwatch_type_size(MPI_Datatype datatype);

/* Named regions: the report splits MPI time and calls by region.
 *
 *     mpiwatch_region_begin("solver");
 *     ...                                   MPI calls here count for "solver"
 *     mpiwatch_region_end("solver");
 *
 * Regions nest (an inner region's time also counts in the outer one), are
 * per thread, and cost nothing per MPI call. Up to 64 names of up to 63
 * characters. From Fortran: call mpiwatch_region_begin('solver') and
 * call mpiwatch_region_end('solver') (no interface needed; link or preload
 * libmpiwatch). */
void mpiwatch_region_begin(const char *name);
void mpiwatch_region_end(const char *name);

/* Add value to the counter called name (created at its first use; up to 64
 * names of up to 47 characters). Counters are summed over the ranks and
 * listed, with the ranks of the least and the most, in both reports. Meant
 * for hooks (docs/hooks.md), callable from any thread and from the program. */
void mpiwatch_counter_add(const char *name, long long value);

#ifdef __cplusplus
}
#endif

#endif
