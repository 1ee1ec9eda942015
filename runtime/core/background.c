/* Starting mpiwatch's own threads (core/background.h). */
#include <signal.h>

#include "core/background.h"

int mw_background_start(pthread_t *thread, void *(*main)(void *))
{
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);   /* the new thread inherits the mask */
    int rc = pthread_create(thread, NULL, main, NULL);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    return rc;
}
