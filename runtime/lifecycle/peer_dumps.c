/* Peers asked for their partial profiles (lifecycle/peer_dumps.h). MPICH's
 * Hydra SIGKILLs a job's other ranks as soon as one has died of a signal or
 * called MPI_Abort, so they get no signal they could dump on. The ending
 * rank therefore leaves a request file beside the partial profiles,
 * `.mpiwatch-<program>-<N>r-<job>.dump-request` (the job: the launcher's
 * or batch system's id, else the launcher's process on the node), that each
 * peer's helper thread looks for with one stat() every
 * MW_PEER_CHECK_MS; the ending rank waits a bounded time for their files,
 * then goes on as it would have. No MPI call, no collective: the peers may
 * be stuck inside MPI. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/state.h"
#include "lifecycle/peer_dumps.h"
#include "report/report.h"

static char path[8400];
static struct stat answered;   /* the last request this rank answered */

const char *mw_fatal_signal_name(int sig)
{
    switch (sig) {
    case SIGSEGV: return "SIGSEGV";
    case SIGBUS: return "SIGBUS";
    case SIGFPE: return "SIGFPE";
    case SIGILL: return "SIGILL";
    case SIGABRT: return "SIGABRT";
    default: return NULL;
    }
}

void mw_peer_dumps_prepare(void)
{
    char job[128];
    const char *key = mw_partial_job_key();
    if (*key != '\0')
        snprintf(job, sizeof job, "%s", key);
    else   /* Hydra outside a batch system: the node's ranks share their proxy */
        snprintf(job, sizeof job, "ppid%ld", (long)getppid());
    for (char *c = job; *c != '\0'; c++)
        if (!(*c >= 'a' && *c <= 'z') && !(*c >= 'A' && *c <= 'Z') && !(*c >= '0' && *c <= '9'))
            *c = '_';
    snprintf(path, sizeof path, "%s/.mpiwatch-%s-%dr-%s.dump-request", mw_state.config.outdir,
             mw_state.program, mw_state.world_size, job);
}

void mw_peer_dumps_request(const char *why)
{
    double wait = mw_state.config.dump_peers_wait;
    char tmp[8500], text[160];
    if (wait <= 0 || mw_state.world_size < 2 || path[0] == '\0')
        return;
    struct timespec since;
    clock_gettime(CLOCK_REALTIME, &since);
    int n = snprintf(text, sizeof text, "rank %d: %s\n", mw_state.world_rank, why);
    snprintf(tmp, sizeof tmp, "%s.%ld.tmp", path, (long)getpid());
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0)
        return;
    int ok = write(fd, text, (size_t)n) == n;
    close(fd);
    if (!ok || rename(tmp, path) != 0) {
        unlink(tmp);
        return;
    }
    stat(path, &answered);   /* this rank's own request is not a question to it */
    mw_partial_wait_for(mw_state.world_size - 1, &since, (int)(wait * 1000));
    unlink(path);
}

int mw_peer_dumps_asked(char *reason, size_t size)
{
    struct stat st;
    char text[160];
    if (path[0] == '\0' || stat(path, &st) != 0 || st.st_mtime < mw_state.start_wall ||
        (st.st_ino == answered.st_ino && st.st_mtim.tv_sec == answered.st_mtim.tv_sec &&
         st.st_mtim.tv_nsec == answered.st_mtim.tv_nsec))
        return 0;
    answered = st;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    ssize_t n = fd >= 0 ? read(fd, text, sizeof text - 1) : -1;
    if (fd >= 0)
        close(fd);
    text[n > 0 ? n : 0] = '\0';
    text[strcspn(text, "\n")] = '\0';
    snprintf(reason, size, "asked by %s", n > 0 ? text : "a peer");
    return 1;
}
