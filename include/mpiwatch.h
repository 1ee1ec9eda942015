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

#ifdef __cplusplus
}
#endif

#endif
