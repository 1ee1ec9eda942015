/* What the generated generated/fortran_calls.c uses of the bridge: a
 * Fortran call's clock lives in the bridge (its entry point started it
 * through mpiwatch_fortran_enter), and the generated functions that finish
 * the call with the C wrapper's statements read it here. Internal to
 * libmpiwatch. */
#ifndef MW_FORTRAN_CALLS_H
#define MW_FORTRAN_CALLS_H

#include <mpi.h>

#include "core/compiler.h"
#include "core/handles.h"
#include "traffic/traffic.h"
#include "mw_mpi_interop.h"

/* Stop the clock of this thread's Fortran call: call gets its times in and out. */
MW_HIDDEN void mw_fortran_stop_clock(mw_call *call);

/* Start it again (after the before-hooks, which are not timed). */
MW_HIDDEN void mw_fortran_restart_clock(void);

/* A binding's targets did not match its fast bodies: warn, and keep every
 * Fortran call on the slow way. */
MW_HIDDEN void mw_fortran_targets_mismatch(const char *binding, int count, int expected);

/* The fast bodies' conversions of Fortran communicators and datatypes
 * (fortran/bridge.h). Where the MPI's _f2c is a macro (MPICH: a cast) it is
 * used as is. Where it is a function (Open MPI: a look-up under a lock), its
 * answers for the handles 0 to MW_F_CACHE - 1 (Open MPI's are small indices)
 * are kept per thread, and forgotten as libmpiwatch's handle caches are
 * (core/handles.h: any handle freed bumps mw_handle_gen, so a reused value is
 * never taken for the old handle); mw_f_cache_check once per call, before
 * the look-ups. */
#define MW_F_CACHE 32
typedef struct {
    unsigned gen;
    MPI_Comm comm[MW_F_CACHE];
    MPI_Datatype type[MW_F_CACHE];
} mw_f_cache;

extern MW_HIDDEN _Thread_local mw_f_cache mw_fcache MW_TLS_MODEL;

MW_HIDDEN MW_NOINLINE void mw_f_cache_refresh(void);

static MW_ALWAYS_INLINE void mw_f_cache_check(void)
{
    if (MW_UNLIKELY(mw_fcache.gen != __atomic_load_n(&mw_handle_gen, __ATOMIC_RELAXED)))
        mw_f_cache_refresh();
}

#if MW_MPI_FORTRAN   /* MPI_Fint and the _f2c functions: not in the MPI 5.0 ABI's mpi.h */
#ifdef PMPI_Comm_f2c
#define mw_f_comm(f) PMPI_Comm_f2c(f)
#else
MW_HIDDEN MW_NOINLINE MPI_Comm mw_f_comm_miss(MPI_Fint f);
static MW_ALWAYS_INLINE MPI_Comm mw_f_comm(MPI_Fint f)
{
    unsigned u = (unsigned)f;   /* an index as it is: no sign extension */
    if (MW_LIKELY(u < MW_F_CACHE)) {
        MPI_Comm c = mw_fcache.comm[u];
        if (MW_LIKELY(c != (MPI_Comm)0))   /* 0: empty (MPI_COMM_NULL is never kept) */
            return c;
    }
    return mw_f_comm_miss(f);
}
#endif

#ifdef PMPI_Type_f2c
#define mw_f_type(f) PMPI_Type_f2c(f)
#else
MW_HIDDEN MW_NOINLINE MPI_Datatype mw_f_type_miss(MPI_Fint f);
static MW_ALWAYS_INLINE MPI_Datatype mw_f_type(MPI_Fint f)
{
    unsigned u = (unsigned)f;
    if (MW_LIKELY(u < MW_F_CACHE)) {
        MPI_Datatype t = mw_fcache.type[u];
        if (MW_LIKELY(t != (MPI_Datatype)0))   /* 0: empty */
            return t;
    }
    return mw_f_type_miss(f);
}
#endif

#endif

#endif
