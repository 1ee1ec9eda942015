/* The gate of a Fortran entry point: while profiling is off, straight to the
 * MPI's own entry point.
 *
 *     MW_F_GATE(impl, (parameters), impl_on, pmpi_x_, (arguments))
 *
 * defines impl, which reads mpiwatch_fortran_mode (core/mode.h) and jumps to
 * pmpi_x_ when it is MW_FMODE_OFF, else to impl_on, the profiled body: both
 * are tail calls, so the arguments (and the caller's return address, the call
 * site) reach them as the program passed them.
 *
 *     MW_F_GATE_FAST(impl, (parameters), impl_on, fast, pmpi_x_, (arguments))
 *
 * also jumps to fast, the entry point's fast body in libmpiwatch
 * (fortran/bridge.h), when the word says MW_FMODE_FAST.
 *
 * In C, GCC and clang copy the stack arguments of a call with more than six
 * around such a tail call (MPI_SEND has seven: +17 instructions per call); on
 * x86-64 the gate is therefore assembly (four instructions while profiling is
 * off, five to the fast body), elsewhere plain C. impl_on must not be static
 * (the assembly names it): declare it MW_F_ON. */
#ifndef MW_FORTRAN_GATE_H
#define MW_FORTRAN_GATE_H

#include "core/compiler.h"
#include "core/mode.h"
#include "fortran/bridge.h"

/* The assembly compares with these values. */
_Static_assert(MW_FMODE_OFF == 0 && MW_FMODE_SLOW == 1 && MW_FMODE_FAST == 2,
               "the gates' assembly knows the modes' values");

#define MW_F_ON __attribute__((visibility("hidden"), noinline, used))

#if defined(__x86_64__) && defined(__ELF__) && defined(__GNUC__)
#define MW_F_GATE(impl, params, on, target, args)                                           \
    _Pragma("GCC diagnostic push")                                                          \
    _Pragma("GCC diagnostic ignored \"-Wunused-parameter\"")                                \
    __attribute__((naked)) static void impl params                                          \
    {                                                                                       \
        __asm__("movq mpiwatch_fortran_mode@GOTPCREL(%rip), %rax\n\t"                       \
                "cmpl $0, (%rax)\n\t"                                                       \
                "jne " #on "\n\t"                                                           \
                "jmp *" #target "@GOTPCREL(%rip)");                                         \
    }                                                                                       \
    _Pragma("GCC diagnostic pop")
#define MW_F_GATE_FAST(impl, params, on, fast, target, args)                                \
    _Pragma("GCC diagnostic push")                                                          \
    _Pragma("GCC diagnostic ignored \"-Wunused-parameter\"")                                \
    __attribute__((naked)) static void impl params                                          \
    {                                                                                       \
        __asm__("movq mpiwatch_fortran_mode@GOTPCREL(%rip), %rax\n\t"                       \
                "cmpl $1, (%rax)\n\t" /* MW_FMODE_SLOW */                                   \
                "jb 1f\n\t"                                                                 \
                "ja 2f\n\t"                                                                 \
                "jmp " #on "\n"                                                              \
                "1:\n\t"                                                                    \
                "jmp *" #target "@GOTPCREL(%rip)\n"                                          \
                "2:\n\t"                                                                    \
                "jmp *" #fast "@GOTPCREL(%rip)");                                           \
    }                                                                                       \
    _Pragma("GCC diagnostic pop")
#else
#define MW_F_GATE(impl, params, on, target, args)                                           \
    static void impl params                                                                 \
    {                                                                                       \
        if (MW_UNLIKELY(!__atomic_load_n(&mpiwatch_fortran_mode, __ATOMIC_RELAXED))) {      \
            target args;                                                                    \
            return;                                                                         \
        }                                                                                   \
        on args;                                                                            \
    }
/* The fast body's call site is its return address, which only a tail call
 * keeps: without the assembly, Fortran calls take the profiled body always. */
#define MW_F_GATE_FAST(impl, params, on, fast, target, args) \
    MW_F_GATE(impl, params, on, target, args)
#endif

#endif
