/* The gate of a Fortran entry point: while profiling is off, straight to the
 * MPI's own entry point.
 *
 *     MW_F_GATE(impl, (parameters), impl_on, pmpi_x_, (arguments))
 *
 * defines impl, which reads mpiwatch_fortran_level (fortran/bridge.h) and
 * jumps to pmpi_x_ when it is 0, else to impl_on, the profiled body: both
 * are tail calls, so the arguments (and the caller's return address, the call
 * site) reach them as the program passed them. In C, GCC and clang copy the
 * stack arguments of a call with more than six around such a tail call
 * (MPI_SEND has seven: +17 instructions per call); on x86-64 the gate is
 * therefore four instructions of assembly, elsewhere plain C. impl_on must
 * not be static (the assembly names it): declare it MW_F_ON. */
#ifndef MW_FORTRAN_GATE_H
#define MW_FORTRAN_GATE_H

#include "core/compiler.h"
#include "fortran/bridge.h"

#define MW_F_ON __attribute__((visibility("hidden"), noinline, used))

#if defined(__x86_64__) && defined(__ELF__) && defined(__GNUC__)
#define MW_F_GATE(impl, params, on, target, args)                                           \
    _Pragma("GCC diagnostic push")                                                          \
    _Pragma("GCC diagnostic ignored \"-Wunused-parameter\"")                                \
    __attribute__((naked)) static void impl params                                          \
    {                                                                                       \
        __asm__("movq mpiwatch_fortran_level@GOTPCREL(%rip), %rax\n\t"                      \
                "cmpl $0, (%rax)\n\t"                                                       \
                "jne " #on "\n\t"                                                           \
                "jmp *" #target "@GOTPCREL(%rip)");                                         \
    }                                                                                       \
    _Pragma("GCC diagnostic pop")
#else
#define MW_F_GATE(impl, params, on, target, args)                                           \
    static void impl params                                                                 \
    {                                                                                       \
        if (MW_UNLIKELY(!__atomic_load_n(&mpiwatch_fortran_level, __ATOMIC_RELAXED))) {     \
            target args;                                                                    \
            return;                                                                         \
        }                                                                                   \
        on args;                                                                            \
    }
#endif

#endif
