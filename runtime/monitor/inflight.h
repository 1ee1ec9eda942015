/* The calls a rank's threads are inside, for the live monitor's INFLIGHT
 * frames (docs/protocol.md). The call path publishes into its TLS block
 * (core/tls.h, mw_publish in mw_wrap.h); the sender thread collects here. */
#ifndef MW_INFLIGHT_H
#define MW_INFLIGHT_H

#include <stddef.h>
#include <stdint.h>

#include "core/compiler.h"

/* Nonzero while the monitor runs: the slow body publishes its calls too
 * (the watched body always does). */
extern MW_HIDDEN int mw_inflight_on;

/* One call in progress, as the sender found it. */
typedef struct mw_inflight {
    uint32_t function, thread;
    uint64_t t_in;           /* ticks */
    int32_t peer, tag, root; /* world ranks and tag, or MWP_NONE / MWP_ANY */
    int32_t comm, comm_size;
    uint32_t flags;          /* MWP_IF_* */
} mw_inflight;

/* The monitor starts or stops: route profiled calls through the bodies that
 * publish (the watched one with the TSC), or back. */
MW_HIDDEN void mw_inflight_begin(void);
MW_HIDDEN void mw_inflight_end(void);

/* Up to max calls in progress, one per thread inside a profiled call, into
 * out; returns how many. Never blocks a calling thread: reads without its
 * lock, and leaves out a call that ended or changed while it read. */
MW_HIDDEN size_t mw_inflight_collect(mw_inflight *out, size_t max);

/* Did the set of calls in progress change (another call, or a thread
 * entering or leaving one) between a and b? */
MW_HIDDEN int mw_inflight_changed(const mw_inflight *a, size_t na, const mw_inflight *b,
                                  size_t nb);

#endif
