/* mpiwatch --dump (client/dump_request.h): one short connection per rank,
 * the request line of include/mpiwatch_protocol.h, one answer line. */
#include "dump_request.h"

#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "mpiwatch_protocol.h"
#include "util.h"

/* A connected socket to ep before deadline (mwc_now), or -1 with why. */
static int reach(const mwc_endpoint *ep, double deadline, char *why, size_t size)
{
    struct addrinfo hints, *ai = NULL;
    memset(&hints, 0, sizeof hints);
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    int rc = getaddrinfo(ep->host, ep->port, &hints, &ai);
    if (rc != 0) {
        snprintf(why, size, "cannot resolve %s: %s", ep->host, gai_strerror(rc));
        return -1;
    }
    int fd = -1;
    for (struct addrinfo *a = ai; a != NULL && fd < 0; a = a->ai_next) {
        fd = socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, a->ai_protocol);
        if (fd < 0)
            continue;
        if (connect(fd, a->ai_addr, a->ai_addrlen) != 0 && errno != EINPROGRESS) {
            snprintf(why, size, "%s", strerror(errno));
            close(fd);
            fd = -1;
            continue;
        }
        struct pollfd p = {.fd = fd, .events = POLLOUT};
        int left = (int)((deadline - mwc_now()) * 1000);
        int err = 0;
        socklen_t len = sizeof err;
        if (poll(&p, 1, left > 0 ? left : 0) != 1 ||
            getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) != 0 || err != 0) {
            snprintf(why, size, "%s", err ? strerror(err) : "no connection in time");
            close(fd);
            fd = -1;
        }
    }
    freeaddrinfo(ai);
    return fd;
}

/* The rank's answer line before deadline, into line; 0, or -1 with why. */
static int answer(int fd, double deadline, char *line, size_t size, char *why, size_t wsize)
{
    size_t len = 0;
    while (len + 1 < size) {
        struct pollfd p = {.fd = fd, .events = POLLIN};
        int left = (int)((deadline - mwc_now()) * 1000);
        if (left <= 0 || poll(&p, 1, left) != 1) {
            snprintf(why, wsize, "no answer in time");
            return -1;
        }
        ssize_t n = recv(fd, line + len, size - 1 - len, 0);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            snprintf(why, wsize, "the rank closed the connection without an answer (a wrong "
                     "token, another client attached, or an mpiwatch without --dump)");
            return -1;
        }
        len += (size_t)n;
        line[len] = '\0';
        char *nl = strchr(line, '\n');
        if (nl != NULL) {
            *nl = '\0';
            return 0;
        }
    }
    snprintf(why, wsize, "an answer longer than %zu bytes", size - 1);
    return -1;
}

/* Ask one rank: 0 and its file in path, or -1 with why. */
static int ask(const mwc_endpoint *ep, double timeout_s, char *path, size_t size, char *why,
               size_t wsize)
{
    if (ep->transport == MWC_VIA) {
        snprintf(why, wsize, "it is watched through its node leader (rank %d); --dump reaches "
                 "ranks with endpoints of their own (a job without MPIWATCH_NODE_SIZE)", ep->via);
        return -1;
    }
    if (ep->transport != MWC_TCP) {
        snprintf(why, wsize, "its monitor has an MPI port; --dump asks over TCP only "
                 "(MPIWATCH_TRANSPORT=tcp)");
        return -1;
    }
    double deadline = mwc_now() + timeout_s;
    int fd = reach(ep, deadline, why, wsize);
    if (fd < 0)
        return -1;
    char request[96], line[4400];
    snprintf(request, sizeof request, MWP_DUMP_FORMAT, MWP_VERSION, ep->token);
    int rc = -1;
    if (send(fd, request, strlen(request), MSG_NOSIGNAL) != (ssize_t)strlen(request))
        snprintf(why, wsize, "cannot send the request: %s", strerror(errno));
    else if (answer(fd, deadline, line, sizeof line, why, wsize) == 0) {
        size_t k = strlen(MWP_DUMPED_PREFIX);
        if (strncmp(line, MWP_DUMPED_PREFIX, k) == 0 && line[k] != '\0') {
            snprintf(path, size, "%s", mwc_printable(line + k));
            rc = 0;
        } else {
            snprintf(why, wsize, "the rank wrote no partial profile (reports off, or its folder "
                     "cannot take the file: the job's stderr says why)");
        }
    }
    close(fd);
    return rc;
}

int mwc_dump_request(const mwc_endpoints *l, double timeout_s, int quiet)
{
    int failed = 0;
    for (size_t i = 0; i < l->n; i++) {
        const mwc_endpoint *ep = &l->v[i];
        char path[4400], why[512];
        double t0 = mwc_now();
        if (ask(ep, timeout_s, path, sizeof path, why, sizeof why) == 0) {
            printf("rank %d: %s\n", ep->rank, path);
            if (!quiet)
                fprintf(stderr, "mpiwatch: rank %d wrote its partial profile in %.3f s\n",
                        ep->rank, mwc_now() - t0);
        } else {
            fprintf(stderr, "mpiwatch: rank %d (%s): no partial profile: %s\n", ep->rank, ep->desc,
                    why);
            failed = 1;
        }
    }
    fflush(stdout);
    return failed;
}
