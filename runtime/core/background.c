/* Starting mpiwatch's own threads (core/background.h). */
#define _GNU_SOURCE   /* pthread_setname_np */
#include <signal.h>

#include "core/background.h"

int mw_background_start(pthread_t *thread, void *(*main)(void *), const char *name)
{
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);   /* the new thread inherits the mask */
    int rc = pthread_create(thread, NULL, main, NULL);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc == 0)
        (void)pthread_setname_np(*thread, name);   /* a name is a courtesy: never fatal */
    return rc;
}
