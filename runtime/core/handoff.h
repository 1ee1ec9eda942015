/* A Fortran call handed over to the C wrapper.
 *
 * Where the MPI's Fortran binding calls the C MPI_X (MPICH's mpif.h and use
 * mpi), a profiled Fortran call would enter two bodies: the Fortran entry
 * point's and, nested in it, the C wrapper's, which passes the call on
 * uncounted. Once measured that the binding of an entry point reaches its
 * C wrapper (the probe: runtime/fortran/handoff_stubs.h), the entry point's slot
 * points at a hand-over stub instead: it leaves its call site in the guard
 * word, as a handed word, and jumps to the MPI's binding; the C wrapper's
 * fast body takes the word, frees the guard and counts the call as its own,
 * from the Fortran call site, with the C handles the binding converted.
 *
 * A handed word is the Fortran call's return address with the top bit set:
 * no TSC reading (the guard's other values) ever has it. A word that its C
 * wrapper did not take (the slots changed in between) is stale: a C fast body
 * with a memo takes it as its own call's site; any other body frees the
 * guard and calls mw_handoff_stale (core/thread_stats.c, mw_guard_contended). */
#ifndef MW_HANDOFF_H
#define MW_HANDOFF_H

#include <stdint.h>

#include "core/compiler.h"
#include "core/tls.h"

#define MW_HANDED_BIT (UINT64_C(1) << 63)

/* The guard word, read again where a rare way tests what it holds: a
 * relaxed atomic load, which the compiler does not merge with the hot
 * path's test (which would keep the word in a register there). */
static MW_ALWAYS_INLINE uint64_t mw_guard_word(void)
{
    return __atomic_load_n(&mw_tls.guard.word, __ATOMIC_RELAXED);
}

/* The guard word a hand-over stub leaves for a call from ra
 * (runtime/fortran/handoff_stubs.h writes the same in assembly). */
static MW_ALWAYS_INLINE uint64_t mw_handed_word(const void *ra)
{
    return (uint64_t)(uintptr_t)ra | MW_HANDED_BIT;
}

/* Is the guard word a handed word? */
static MW_ALWAYS_INLINE int mw_guard_handed(uint64_t word)
{
    return (int64_t)word < 0;
}

/* The key of the handed call's site, in the C fast body of function id: the
 * address the word holds, and id (core/thread_stats.h, mw_site_key). One
 * addition: a stale word (another function's) does not need telling apart,
 * it is counted as a call of id from the Fortran call site it holds. */
static MW_ALWAYS_INLINE uint64_t mw_handed_key(int id, uint64_t word)
{
    return word + (((uint64_t)id << 48) - MW_HANDED_BIT);
}

/* A stale word found by a body that does not take handed words: reported
 * (once, if hand-overs were in use: they stop) before the guard is taken. */
MW_HIDDEN MW_NOINLINE void mw_handoff_stale(void);

#endif
