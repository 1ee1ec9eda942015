/* The gate of a Fortran entry point: one jump through its slot.
 *
 *     MW_F_GATE(impl, (parameters), slot, impl_on, pmpi_x_, (arguments))
 *
 * defines impl, which jumps to where slot points (a void *, set by
 * libmpiwatch: core/mode.h, mw_fortran_slot): pmpi_x_ while profiling is off,
 * the entry point's fast body in libmpiwatch in the usual profiled case, its
 * profiled body impl_on otherwise. A jump, so the arguments (and the
 * caller's return address, the call site) reach them as the program passed
 * them.
 *
 * In C, GCC and clang copy the stack arguments of a call with more than six
 * around such a tail call (MPI_SEND has seven: +17 instructions per call); on
 * x86-64 the gate is therefore one instruction of assembly, as cheap as the C
 * wrappers' MPI_X. Elsewhere it is plain C, which reads mpiwatch_fortran_mode
 * (the word the slots follow) and never takes the fast body: that needs the
 * caller's return address, which only a jump keeps. impl_on must not be
 * static (the assembly names it): declare it MW_F_ON; the slot is named by
 * the assembly too: define it with MW_F_SLOT. */
#ifndef MW_FORTRAN_GATE_H
#define MW_FORTRAN_GATE_H

#include "core/compiler.h"
#include "core/mode.h"
#include "fortran/bridge.h"

#define MW_F_ON __attribute__((visibility("hidden"), noinline, used))

/* A slot, starting at the profiled body: right in every mode. */
#define MW_F_SLOT(slot, on) static void *slot __attribute__((used)) = (void *)(on)

#if defined(__x86_64__) && defined(__ELF__) && defined(__GNUC__)
/* A hand-over stub, for the slot table (core/handoff.h): x86-64 only. */
#define MW_F_HANDOFF_WAY(stub) ((void *)(stub))
#define MW_F_GATE(impl, params, slot, on, target, args)                                     \
    _Pragma("GCC diagnostic push")                                                          \
    _Pragma("GCC diagnostic ignored \"-Wunused-parameter\"")                                \
    __attribute__((naked)) static void impl params                                          \
    {                                                                                       \
        __asm__("jmp *" #slot "(%rip)");                                                    \
    }                                                                                       \
    _Pragma("GCC diagnostic pop")
#else
#define MW_F_HANDOFF_WAY(stub) NULL
#define MW_F_GATE(impl, params, slot, on, target, args)                                     \
    static void impl params                                                                 \
    {                                                                                       \
        if (MW_UNLIKELY(!__atomic_load_n(&mpiwatch_fortran_mode, __ATOMIC_RELAXED))) {      \
            target args;                                                                    \
            return;                                                                         \
        }                                                                                   \
        on args;                                                                            \
    }
#endif

#endif
