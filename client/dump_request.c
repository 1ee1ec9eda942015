/* mpiwatch --dump (client/dump_request.h): one short connection per rank,
 * the request line of include/mpiwatch_protocol.h, one answer line; or one
 * per node leader, which answers for every rank of its node. */
#include "dump_request.h"

#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "mpiwatch_protocol.h"
#include "util.h"

/* A node leader's answers: a line per rank, each at most a path long. */
#define MW_NODE_ANSWER_MAX 8192

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

/* A rank's answer line (without its newline): 0 and the file in path, or
 * -1 with why. */
static int answered(char *line, char *path, size_t size, char *why, size_t wsize)
{
    size_t k = strlen(MWP_DUMPED_PREFIX);
    if (strncmp(line, MWP_DUMPED_PREFIX, k) == 0 && line[k] != '\0') {
        snprintf(path, size, "%s", mwc_printable(line + k));
        return 0;
    }
    snprintf(why, wsize, "the rank wrote no partial profile (reports off, or its folder "
             "cannot take the file: the job's stderr says why)");
    return -1;
}

/* Ask one rank: 0 and its file in path, or -1 with why. */
static int ask(const mwc_endpoint *ep, double timeout_s, char *path, size_t size, char *why,
               size_t wsize)
{
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
    else if (answer(fd, deadline, line, sizeof line, why, wsize) == 0)
        rc = answered(line, path, size, why, wsize);
    close(fd);
    return rc;
}

/* What a node leader said for one of its ranks. */
typedef struct {
    char *line;          /* the rank's answer line, or NULL: none came */
    double at;           /* when, since the request (seconds) */
} node_answer;

/* The endpoints by rank: index[r] is rank r's, or -1. */
typedef struct {
    long *index;
    long n;
} rank_index;

/* The index of the endpoint of rank r watched through leader (or leader
 * itself), or -1: a leader speaks for its own node only. */
static long member_of(const mwc_endpoints *l, const rank_index *ri, long r, int leader)
{
    long i = r >= 0 && r < ri->n ? ri->index[r] : -1;
    if (i < 0)
        return -1;
    const mwc_endpoint *ep = &l->v[i];
    return (ep->transport == MWC_VIA && ep->via == leader) || (ep->node && ep->rank == leader)
               ? i
               : -1;
}

/* Ask node leader ep for its node: each answer line "MPIWATCH rank R
 * ANSWER" stored in got[index of R] until the leader closes. 0, or -1 with
 * why (the leader could not be asked; answers already read are kept). */
static int ask_node(const mwc_endpoints *l, const rank_index *ri, const mwc_endpoint *ep,
                    double timeout_s, node_answer *got, char *why, size_t wsize)
{
    double t0 = mwc_now(), deadline = t0 + timeout_s + MWP_NODE_DUMP_SECONDS;
    int fd = reach(ep, deadline, why, wsize);
    if (fd < 0)
        return -1;
    char request[96];
    snprintf(request, sizeof request, MWP_DUMP_FORMAT, MWP_VERSION, ep->token);
    if (send(fd, request, strlen(request), MSG_NOSIGNAL) != (ssize_t)strlen(request)) {
        snprintf(why, wsize, "cannot send the request: %s", strerror(errno));
        close(fd);
        return -1;
    }
    static char buf[MW_NODE_ANSWER_MAX];
    size_t len = 0;
    int rc = 0;
    for (;;) {
        struct pollfd p = {.fd = fd, .events = POLLIN};
        int left = (int)((deadline - mwc_now()) * 1000);
        if (left <= 0 || poll(&p, 1, left) != 1) {
            snprintf(why, wsize, "its node leader (rank %d) did not finish answering in time",
                     ep->rank);
            rc = -1;
            break;
        }
        ssize_t n = recv(fd, buf + len, sizeof buf - 1 - len, 0);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;   /* the leader has said all it will */
        len += (size_t)n;
        buf[len] = '\0';
        char *line = buf, *nl;
        while ((nl = strchr(line, '\n')) != NULL) {
            *nl = '\0';
            size_t k = strlen(MWP_NODE_DUMP_PREFIX);
            char *end = NULL;
            long r = strncmp(line, MWP_NODE_DUMP_PREFIX, k) == 0 ? strtol(line + k, &end, 10) : -1;
            long i = end != NULL && *end == ' ' ? member_of(l, ri, r, ep->rank) : -1;
            if (i >= 0 && got[i].line == NULL) {   /* anything else is not an answer: skipped */
                got[i].line = mwc_strndup(end + 1, strlen(end + 1));
                got[i].at = mwc_now() - t0;
            }
            line = nl + 1;
        }
        len -= (size_t)(line - buf);
        memmove(buf, line, len);
        if (len == sizeof buf - 1) {
            snprintf(why, wsize, "its node leader (rank %d) sent an overlong line", ep->rank);
            rc = -1;
            break;
        }
    }
    close(fd);
    return rc;
}

int mwc_dump_request(const mwc_endpoints *l, double timeout_s, int quiet)
{
    int failed = 0;
    /* Node leaders first: each answers for its node's ranks. */
    node_answer *got = mwc_calloc(l->n ? l->n : 1, sizeof *got);
    char **leader_why = mwc_calloc(l->n ? l->n : 1, sizeof *leader_why);
    rank_index ri = {NULL, 0};
    for (size_t i = 0; i < l->n; i++)
        if (l->v[i].rank >= ri.n)
            ri.n = l->v[i].rank + 1L;
    ri.index = mwc_malloc((size_t)(ri.n ? ri.n : 1) * sizeof *ri.index);
    for (long r = 0; r < ri.n; r++)
        ri.index[r] = -1;
    for (size_t i = 0; i < l->n; i++)
        if (l->v[i].rank >= 0)
            ri.index[l->v[i].rank] = (long)i;
    for (size_t i = 0; i < l->n; i++) {
        char why[512];
        if (l->v[i].transport == MWC_TCP && l->v[i].node &&
            ask_node(l, &ri, &l->v[i], timeout_s, got, why, sizeof why) != 0)
            leader_why[i] = mwc_strndup(why, strlen(why));
    }
    for (size_t i = 0; i < l->n; i++) {
        const mwc_endpoint *ep = &l->v[i];
        char path[4400], why[512];
        double t0 = mwc_now();
        int rc;
        if (ep->node || ep->transport == MWC_VIA) {
            long leader = ep->node ? (long)i : member_of(l, &ri, ep->via, ep->via);
            if (got[i].line != NULL) {
                rc = answered(got[i].line, path, sizeof path, why, sizeof why);
                t0 -= got[i].at;
            } else {
                rc = -1;
                if (leader < 0)
                    snprintf(why, sizeof why, "its node leader (rank %d) is not in the list", ep->via);
                else if (leader_why[leader] != NULL)
                    snprintf(why, sizeof why, "%s", leader_why[leader]);
                else
                    snprintf(why, sizeof why, "no answer through its node leader (rank %d): not "
                             "connected to it, or busy past %d s", l->v[leader].rank,
                             MWP_NODE_DUMP_SECONDS);
            }
        } else {
            rc = ask(ep, timeout_s, path, sizeof path, why, sizeof why);
        }
        if (rc == 0) {
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
    for (size_t i = 0; i < l->n; i++) {
        free(got[i].line);
        free(leader_why[i]);
    }
    free(got);
    free(leader_why);
    free(ri.index);
    fflush(stdout);
    return failed;
}
