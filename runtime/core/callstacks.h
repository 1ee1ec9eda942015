/* Deeper call sites (MPIWATCH_CALLSITE_DEPTH=N > 1): a call is attributed to
 * the N return addresses above the wrapper, found with the unwinder (glibc's
 * backtrace, which reads the modules' DWARF call frame information). Each
 * distinct stack is kept once, in a process-wide table, and stands for its
 * call site in the per-thread tables by its address there; depth 1, the
 * default, needs neither. Only the slow body takes this path: the run-time
 * mode sends every call there when N > 1 (core/mode.c). */
#ifndef MW_CALLSTACKS_H
#define MW_CALLSTACKS_H

#include "core/compiler.h"

#define MW_CALLSTACK_MAX 8        /* the most frames MPIWATCH_CALLSITE_DEPTH can ask for */
#define MW_CALLSTACKS 4096        /* distinct stacks per process; more are kept at depth 1 */

/* MPIWATCH_CALLSITE_DEPTH: 1 (the default) .. MW_CALLSTACK_MAX. */
extern MW_HIDDEN int mw_callsite_depth;

/* The site that stands for the stack above return address ra (the stack's
 * entry), or ra itself when the unwinder does not find ra or the table is
 * full (a warning, once). */
MW_HIDDEN const void *mw_callstack_site(const void *ra);

/* The frames a site stands for, innermost first: up to MW_CALLSTACK_MAX
 * return addresses into frames[]; 1 (the site itself) for a plain site. */
MW_HIDDEN int mw_callstack_frames(const void *site, const void **frames);

#endif
