/* mpiwatch's own threads (the monitor's sender, the node leader's relay, the
 * MPI port's acceptor, the trace's writer) are started with every signal
 * blocked: the application's signals are not ours to take. Each is named
 * (top -H, /proc/PID/task/TID/comm), so that a user sees which is whose. */
#ifndef MW_CORE_BACKGROUND_H
#define MW_CORE_BACKGROUND_H

#include <pthread.h>

#include "core/compiler.h"

/* pthread_create(thread, NULL, main, NULL) with every signal blocked in the
 * new thread, named name (at most 15 bytes: "mpiwatch-mon"); its result (0,
 * or an error number). */
MW_HIDDEN int mw_background_start(pthread_t *thread, void *(*main)(void *), const char *name);

#endif
