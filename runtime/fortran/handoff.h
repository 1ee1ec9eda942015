/* The hand-over stubs of libmpiwatch's Fortran fast bodies, and the probe
 * that decides whether an entry point may use one (core/handoff.h).
 *
 *     MW_F_HANDOFF(stub, (parameters), target_slot, fast)
 *
 * defines stub: with the guard free, it leaves the handed word of its
 * caller's return address (the Fortran call site) in the guard word
 * (core/handoff.h, mw_handed_word) and jumps through target_slot (the MPI's binding, pmpi_x_);
 * with the guard taken, it jumps to the fast body fast, which knows what to
 * do. Jumps, so the arguments reach them as the program passed them: in C,
 * GCC would copy the stack arguments around the tail call. x86-64 only;
 * elsewhere no entry point hands its calls over. */
#ifndef MW_FORTRAN_HANDOFF_H
#define MW_FORTRAN_HANDOFF_H

#include <stddef.h>
#include <stdint.h>

#include "core/compiler.h"
#include "core/handoff.h"
#include "core/tls.h"

#if defined(__x86_64__) && defined(__ELF__) && defined(__GNUC__)
#define MW_HAVE_HANDOFF 1
#define MW_F_HANDOFF(stub, params, target_slot, fast)                                      \
    __attribute__((naked, used, visibility("default"))) void stub params                    \
    {                                                                                       \
        __asm__ volatile("movq mw_tls@gottpoff(%%rip), %%rax\n\t"                           \
                         "cmpq $0, %%fs:%c0(%%rax)\n\t"                                     \
                         "jne " #fast "\n\t"                                                \
                         "movq (%%rsp), %%r11\n\t"                                          \
                         "btsq $63, %%r11\n\t"                                              \
                         "movq %%r11, %%fs:%c0(%%rax)\n\t"                                  \
                         "jmpq *" #target_slot "(%%rip)"                                    \
                         :                                                                  \
                         : "i"(offsetof(mw_tls_block, guard)));                             \
    }
#else
#define MW_HAVE_HANDOFF 0
#endif

#endif
