/* The calls a rank's threads are inside, for the live monitor's INFLIGHT
 * frames (docs/protocol.md). The call path publishes into its TLS block
 * (core/tls.h, mw_publish in mw_wrap.h) while this flag says so; the sender
 * thread collects them (monitor/inflight.c, declared in monitor/monitor.h). */
#ifndef MW_INFLIGHT_H
#define MW_INFLIGHT_H

#include "core/compiler.h"

/* Nonzero while the monitor runs: the slow body publishes its calls too
 * (the watched body always does). */
extern MW_HIDDEN int mw_inflight_on;

#endif
