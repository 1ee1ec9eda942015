/* A rank that is about to end its job (MPI_Abort, a fatal signal) asks its
 * peers for their partial profiles before the launcher kills them
 * (lifecycle/peer_dumps.c). */
#ifndef MW_LIFECYCLE_PEER_DUMPS_H
#define MW_LIFECYCLE_PEER_DUMPS_H

#include <stddef.h>

#include "core/compiler.h"

/* The signals of a fault, on which a rank asks its peers (not itself: its
 * state cannot be trusted) for their profiles; 0 or the signal's name. */
MW_HIDDEN const char *mw_fatal_signal_name(int sig);

/* At the helper thread's start (normal context): the request file's path. */
MW_HIDDEN void mw_peer_dumps_prepare(void);

/* Ask the peers (why: "MPI_Abort (error code 3)", "SIGSEGV") and wait, at
 * most MPIWATCH_DUMP_PEERS_WAIT seconds, for their fresh partial files;
 * then remove the request. Nothing when the wait is 0 or the job has one
 * rank. Normal context (a helper thread or MPI_Abort's wrapper). */
MW_HIDDEN void mw_peer_dumps_request(const char *why);

/* Called by the helper thread a few times a second: 1 with the reason for
 * this rank's dump when a peer's request not yet answered is there. */
MW_HIDDEN int mw_peer_dumps_asked(char *reason, size_t size);

#endif
