/* Converting a Fortran call's arguments into the C values that libmpiwatch
 * accounts with (in both libraries: libmpiwatch_f's slow bodies and
 * libmpiwatch's fast ones, see fortran/bridge.h).
 *
 * The MPI's own Fortran binding still receives the arguments untouched: the
 * conversion happens only for the report, only while profiling is on (and
 * for the *_init calls, whose requests are remembered either way), and after
 * the forwarded call, when output handles and statuses are set.
 *
 * Handles go through the MPI's _f2c functions; INTEGER scalars and arrays are
 * MPI_Fint (or MPI_Count, MPI_Aint, MPI_Offset for the arguments of those
 * kinds) and are read in place. A choice buffer matters to the accounting
 * only as a sentinel: the Fortran MPI_IN_PLACE becomes the C one. Its address,
 * and those of MPI_STATUS(ES)_IGNORE, are handed over at load time by a small
 * Fortran routine compiled against the MPI's own mpif.h and modules
 * (generated/fortran_sentinels.f90), so nothing here knows an MPI's internal
 * symbol names. */
#ifndef MW_FORTRAN_CONVERT_H
#define MW_FORTRAN_CONVERT_H

#include <stddef.h>
#include <stdint.h>

#include <mpi.h>

#include "core/compiler.h"
#include "mw_mpi_interop.h"

/* What each sentinel is, as mw_f_note_sentinel is told. */
enum { MW_F_IN_PLACE, MW_F_STATUS_IGNORE, MW_F_STATUSES_IGNORE, MW_F_SENTINEL_KINDS };

/* At most one address per binding (mpif.h, use mpi, use mpi_f08). */
#define MW_F_MAX_BINDINGS 4

/* The sentinels' addresses, as learned (NULL: none more). Both libraries
 * have a copy: libmpiwatch_f learns them (generated/fortran_sentinels.f90
 * calls mw_f_note_sentinel) and hands each to libmpiwatch, whose Fortran
 * entry points' fast bodies convert arguments too (fortran/bridge.h). */
extern MW_HIDDEN const void *mw_f_sentinel_addresses[MW_F_SENTINEL_KINDS][MW_F_MAX_BINDINGS];

/* Called by the generated Fortran routine, once per binding and sentinel. */
MW_HIDDEN void mw_f_note_sentinel(int kind, intptr_t address);

static inline int mw_f_is_sentinel(int kind, const void *address)
{
    const void *const *slots = mw_f_sentinel_addresses[kind];
    if (MW_LIKELY(slots[0] == address))   /* mpif.h's (use mpi's, mostly, the same) */
        return 1;
    for (int i = 1; i < MW_F_MAX_BINDINGS && slots[i]; i++)
        if (slots[i] == address)
            return 1;
    return 0;
}

/* A choice buffer as the C accounting sees it. descriptor is nonzero when the
 * binding passes an array descriptor (use mpi_f08's TYPE(*), DIMENSION(..)),
 * whose first member is the base address. */
static inline void *mw_f_buffer(void *arg, int descriptor)
{
    void *address = descriptor && arg ? *(void *const *)arg : arg;
    return mw_f_is_sentinel(MW_F_IN_PLACE, address) ? MPI_IN_PLACE : address;
}

#if MW_MPI_FORTRAN   /* MPI_Fint and the _f2c functions: not in the MPI 5.0 ABI's mpi.h */
/* The C status of a Fortran one, converted into *local; MPI_STATUS_IGNORE
 * for the Fortran sentinel. */
static inline MPI_Status *mw_f_status(void *arg, MPI_Status *local)
{
    if (arg == NULL || mw_f_is_sentinel(MW_F_STATUS_IGNORE, arg))
        return MPI_STATUS_IGNORE;
    if (PMPI_Status_f2c((const MPI_Fint *)arg, local) != MPI_SUCCESS)
        return MPI_STATUS_IGNORE;
    return local;
}

/* The error code a subroutine returned: use mpi_f08 may omit ierror, and
 * then an error would have been raised rather than returned. */
static inline int mw_f_error(const void *ierror)
{
    return ierror ? (int)*(const MPI_Fint *)ierror : MPI_SUCCESS;
}

/* The same where ierror is not optional (mpif.h and use mpi: the standard
 * requires it there, and the MPI's binding stores through it). */
static inline int mw_f_ierror(const void *ierror)
{
    return (int)*(const MPI_Fint *)ierror;
}

/* Arrays of handles, converted into per-thread scratch space (slot 0 or 1:
 * MPI_ALLTOALLW converts two at once). NULL if memory ran out. */
MW_HIDDEN MPI_Datatype *mw_f_datatype_array(int slot, MPI_Count n, const MPI_Fint *array);
MW_HIDDEN MPI_Request *mw_f_request_array(MPI_Count n, const MPI_Fint *array);
#endif

#endif
