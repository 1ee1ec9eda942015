/* The runtime's thread-local state, in one block so that the hot path finds
 * it with a single TLS address computation (initial-exec: a GOT load and a
 * %fs-relative access; fine for a library linked or preloaded at start-up). */
#ifndef MW_TLS_H
#define MW_TLS_H

#include "mw_compiler.h"

struct mw_thread;

typedef struct mw_tls_block {
    struct mw_thread *self;  /* this thread's statistics, NULL before its first call */
    int depth;               /* re-entry guard: nonzero inside a profiled MPI call, so
                              * MPI calls made by the MPI itself count once */
} mw_tls_block;

extern MW_HIDDEN _Thread_local mw_tls_block mw_tls MW_TLS_MODEL;

#define mw_self (mw_tls.self)
#define mw_depth (mw_tls.depth)

#endif
