/* The thread-local block, and the ring every thread starts with. */
#include "core/event_ring.h"
#include "core/tls.h"

_Thread_local mw_tls_block mw_tls = {.guard.word = MW_GUARD_NEW, .ring = &mw_ring_detached};

/* Always full (head = limit = 0, and tail + capacity wraps to 0): a
 * thread's first event goes out of line to attach a real ring. */
mw_event_ring mw_ring_detached = {.head = 0, .limit = 0, .tail = UINT64_MAX, .mask = 0};
