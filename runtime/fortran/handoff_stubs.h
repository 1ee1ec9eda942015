/* The hand-over stubs of libmpiwatch's Fortran fast bodies, and the probe
 * that decides whether an entry point may use one (core/handoff.h;
 * fortran/handoff_stubs.c).
 *
 *     MW_F_HANDOFF(stub, (parameters), target_slot, fast)
 *
 * defines stub: with the guard free, it leaves the handed word of its
 * caller's return address (the Fortran call site) in the guard word
 * (core/handoff.h, mw_handed_word) and jumps through target_slot (the address
 * of a file-scope slot holding the MPI's binding, pmpi_x_);
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
                         "jmpq *%c1(%%rip)"                                                 \
                         :                                                                  \
                         : "i"(offsetof(mw_tls_block, guard)), "i"(target_slot));           \
    }
#else
#define MW_HAVE_HANDOFF 0
#endif

/* The probe of a Fortran entry point's first call (generated/fortran_calls.c),
 * which hands the call over and calls the MPI's binding: mw_handoff_probe returns the
 * number of calls of the site key (created if need be; UINT64_MAX: no site,
 * no probe) and hands the guard word over for ra; after the call, mw_handoff_probed says
 * whether the call was counted (0: the word is still there, untaken; the
 * guard is then free and the caller counts the call). If the C wrapper took
 * it and counted exactly this call, at key, the entry point's slot points at
 * stub from now on while the mode is fast. Either way *probed is set. */
MW_HIDDEN MW_NOINLINE uint64_t mw_handoff_probe(uint64_t key, const void *ra);
MW_HIDDEN MW_NOINLINE int mw_handoff_probed(uint64_t key, uint64_t calls, unsigned char *probed,
                                            const void *stub);

#endif
