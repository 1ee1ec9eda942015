#include "conn_tcp.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <unistd.h>

#include "mpiwatch_protocol.h"
#include "util.h"

#define RETRY_S 0.2        /* between attempts on a rank that refused */
#define ATTEMPT_S 5.0      /* one connect() may take this long */
#define RBUF 65536

enum { T_NONE, T_IDLE, T_CONNECTING, T_SENDING, T_READING, T_DONE };

struct mwc_tcp_peer {
    const mwc_endpoint *ep;
    int state, fd;
    struct addrinfo *ai, *cur;
    double next_try, attempt_end;
    char line[64];
    size_t len, sent;
    char why[160];         /* the last failure to reach it */
    int reached;           /* a connection was made at least once */
    double since;          /* connected, or the last whole frame */
    double partial_since;  /* a frame began and is unfinished; 0 when none */
    int refused;           /* the last attempt was refused */
};

/* A rank watched through its node leader: the leader's connection brings
 * its stream. A leader that published no node endpoint never will. */
static void watch_via(mwc_tcp *t, const mwc_endpoints *l, size_t i)
{
    for (size_t j = 0; j < l->n; j++)
        if (l->v[j].rank == l->v[i].via && l->v[j].transport == MWC_TCP && l->v[j].node) {
            mwc_session_set_via(t->s, i, j);
            return;
        }
    char why[160];
    snprintf(why, sizeof why, "its node leader, rank %d, published no %s endpoint", l->v[i].via,
             MWP_ENDPOINT_NODE);
    mwc_session_closed(t->s, i, why);
}

void mwc_tcp_init(mwc_tcp *t, mwc_session *s, const mwc_endpoints *l, double wait_s,
                  double stall_s)
{
    memset(t, 0, sizeof *t);
    t->n = l->n;
    t->s = s;
    t->p = mwc_calloc(l->n, sizeof *t->p);
    t->wait_s = wait_s;
    t->stall_s = stall_s;
    t->deadline = mwc_now() + wait_s;
    t->rbuf = mwc_malloc(RBUF);
    for (size_t i = 0; i < l->n; i++) {
        mwc_tcp_peer *p = &t->p[i];
        p->fd = -1;
        if (l->v[i].transport == MWC_VIA)
            watch_via(t, l, i);
        if (l->v[i].transport != MWC_TCP)
            continue;
        if (l->v[i].node)
            mwc_session_set_node(s, i);
        p->ep = &l->v[i];
        p->state = T_IDLE;
        p->len = (size_t)snprintf(p->line, sizeof p->line, MWP_HANDSHAKE_FORMAT, MWP_VERSION,
                                  l->v[i].token);
        snprintf(p->why, sizeof p->why, "no attempt made");
    }
}

static void drop(mwc_tcp_peer *p)
{
    if (p->fd >= 0)
        close(p->fd);
    p->fd = -1;
}

void mwc_tcp_free(mwc_tcp *t)
{
    for (size_t i = 0; i < t->n; i++) {
        drop(&t->p[i]);
        if (t->p[i].ai)
            freeaddrinfo(t->p[i].ai);
    }
    free(t->p);
    free(t->rbuf);
}

int mwc_tcp_busy(const mwc_tcp *t)
{
    for (size_t i = 0; i < t->n; i++)
        if (t->p[i].state != T_NONE && t->p[i].state != T_DONE)
            return 1;
    return 0;
}

static void finish(mwc_tcp *t, size_t i, const char *reason)
{
    drop(&t->p[i]);
    t->p[i].state = T_DONE;
    if (reason)
        mwc_session_closed(t->s, i, reason);
    else if (mwc_session_conn_active(t->s, i))   /* a node leader's: the ranks behind it end */
        mwc_session_closed(t->s, i, "the connection was closed");
}

/* Start connecting to the current address; on immediate failure move on. */
static void attempt(mwc_tcp *t, size_t i, double now)
{
    mwc_tcp_peer *p = &t->p[i];
    if (!p->ai) {
        struct addrinfo hints;
        memset(&hints, 0, sizeof hints);
        hints.ai_family = AF_UNSPEC;
        hints.ai_socktype = SOCK_STREAM;
        int rc = getaddrinfo(p->ep->host, p->ep->port, &hints, &p->ai);
        if (rc != 0) {
            char why[400];
            snprintf(why, sizeof why, "cannot resolve %s: %s", p->ep->host, gai_strerror(rc));
            p->ai = NULL;
            finish(t, i, why);
            return;
        }
        p->cur = p->ai;
    }
    while (p->cur) {
        struct addrinfo *a = p->cur;
        p->fd = socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, a->ai_protocol);
        if (p->fd >= 0) {
            if (connect(p->fd, a->ai_addr, a->ai_addrlen) == 0) {
                p->state = T_SENDING;
                p->reached = 1;
                return;
            }
            if (errno == EINPROGRESS) {
                p->state = T_CONNECTING;
                p->attempt_end = now + ATTEMPT_S;
                return;
            }
        }
        snprintf(p->why, sizeof p->why, "%s", strerror(errno));
        p->refused = errno == ECONNREFUSED;
        drop(p);
        p->cur = a->ai_next;
    }
    p->cur = p->ai; /* every address failed: again from the first, later */
    p->state = T_IDLE;
    p->next_try = now + RETRY_S;
}

/* A failed attempt: next address, or a later retry, or lost after --wait. */
static void attempt_failed(mwc_tcp *t, size_t i, double now)
{
    mwc_tcp_peer *p = &t->p[i];
    drop(p);
    if (p->cur && p->cur->ai_next) {
        p->cur = p->cur->ai_next;
        attempt(t, i, now);
        return;
    }
    p->cur = p->ai;
    p->state = T_IDLE;
    p->next_try = now + RETRY_S;
}

static void on_readable(mwc_tcp *t, size_t i, double now)
{
    mwc_tcp_peer *p = &t->p[i];
    for (int rounds = 0; rounds < 16; rounds++) { /* bounded: others get their turn */
        ssize_t k = recv(p->fd, t->rbuf, RBUF, 0);
        if (k == RBUF)
            t->full_reads++;
        if (k > 0) {
            const mwc_decoder *d = mwc_session_conn_decoder(t->s, i);
            uint64_t frames = d->frames;
            if ((p->ep->node ? mwc_session_relay_data(t->s, i, t->rbuf, (size_t)k)
                             : mwc_session_data(t->s, i, t->rbuf, (size_t)k)) != 0) {
                finish(t, i, NULL); /* GOODBYE, or lost for a protocol error */
                return;
            }
            /* The stall deadlines count from the last whole frame, and from
             * the start of an unfinished one. */
            if (d->frames != frames)
                p->since = now;
            if (mwc_decoder_idle(d))
                p->partial_since = 0;
            else if (p->partial_since == 0 || d->frames != frames)
                p->partial_since = now;
            continue;
        }
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return;
        char why[200];
        if (k == 0 && !t->s->model.r[i].have_hello)
            snprintf(why, sizeof why, "the rank closed the connection before HELLO "
                     "(a wrong token, or another client is attached)");
        else if (k == 0)
            snprintf(why, sizeof why, "the rank closed the connection");
        else
            snprintf(why, sizeof why, "connection error: %s", strerror(errno));
        finish(t, i, why);
        return;
    }
}

static void advance(mwc_tcp *t, size_t i, short revents, double now)
{
    mwc_tcp_peer *p = &t->p[i];
    if (p->state == T_CONNECTING) {
        int err = 0;
        socklen_t len = sizeof err;
        if (!(revents & (POLLOUT | POLLERR | POLLHUP))) {
            if (now >= p->attempt_end) {
                snprintf(p->why, sizeof p->why, "connect timed out");
                p->refused = 0;
                attempt_failed(t, i, now);
            }
            return;
        }
        if (getsockopt(p->fd, SOL_SOCKET, SO_ERROR, &err, &len) != 0)
            err = errno;
        if (err != 0) {
            snprintf(p->why, sizeof p->why, "%s", strerror(err));
            p->refused = err == ECONNREFUSED;
            attempt_failed(t, i, now);
            return;
        }
        p->state = T_SENDING;
        p->reached = 1;
        p->sent = 0;
    }
    if (p->state == T_SENDING) {
        ssize_t k = send(p->fd, p->line + p->sent, p->len - p->sent, MSG_NOSIGNAL);
        if (k < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
            return;
        if (k < 0) {
            char why[200];
            snprintf(why, sizeof why, "sending the token failed: %s", strerror(errno));
            finish(t, i, why);
            return;
        }
        p->sent += (size_t)k;
        if (p->sent == p->len) {
            p->state = T_READING;
            p->since = now;
            p->partial_since = 0;
        }
        return;
    }
    if (p->state == T_READING && (revents & (POLLIN | POLLERR | POLLHUP)))
        on_readable(t, i, now);
}

/* A rank that connected but sends no HELLO, falls silent, or leaves a frame
 * unfinished (a byte now and then) for --stall is lost: the watch goes on. */
static int stalled(mwc_tcp *t, size_t i, double now)
{
    mwc_tcp_peer *p = &t->p[i];
    char why[200];
    if (p->partial_since > 0 && now - p->partial_since > t->stall_s)
        snprintf(why, sizeof why, "a frame stayed unfinished for %g s (--stall)", t->stall_s);
    else if (now - p->since <= t->stall_s)
        return 0;
    else if (!t->s->model.r[i].have_hello)
        snprintf(why, sizeof why, "no HELLO within %g s of connecting (--stall)", t->stall_s);
    else
        snprintf(why, sizeof why, "no frame for %g s (--stall)", t->stall_s);
    mwc_session_lose(t->s, i, why);
    finish(t, i, NULL);
    return 1;
}

void mwc_tcp_step(mwc_tcp *t, int timeout_ms, int extra_fd, int *extra_ready)
{
    double now = mwc_now();
    /* Ranks lost for a protocol error by the session are closed here too. */
    for (size_t i = 0; i < t->n; i++) {
        mwc_tcp_peer *p = &t->p[i];
        if (p->state == T_NONE || p->state == T_DONE)
            continue;
        if (!mwc_session_conn_active(t->s, i)) {
            finish(t, i, NULL);
            continue;
        }
        if (p->state == T_READING && stalled(t, i, now))
            continue;
        if (p->state == T_IDLE && now >= t->deadline) {
            char why[300];
            snprintf(why, sizeof why, "not reached within %g s (--wait): %s", t->wait_s, p->why);
            finish(t, i, why);
        } else if (p->state == T_IDLE && now >= p->next_try) {
            attempt(t, i, now);
        }
        if (p->state == T_IDLE) {
            int ms = (int)((p->next_try - now) * 1000) + 1;
            if (ms < timeout_ms)
                timeout_ms = ms < 0 ? 0 : ms;
        }
    }
    struct pollfd *fds = mwc_calloc(t->n + 1, sizeof *fds);
    size_t *who = mwc_calloc(t->n + 1, sizeof *who);
    nfds_t nf = 0;
    for (size_t i = 0; i < t->n; i++) {
        mwc_tcp_peer *p = &t->p[i];
        if (p->fd < 0 || p->state == T_DONE)
            continue;
        fds[nf].fd = p->fd;
        fds[nf].events = p->state == T_READING ? POLLIN : POLLOUT;
        who[nf++] = i;
    }
    if (extra_fd >= 0) {
        fds[nf].fd = extra_fd;
        fds[nf].events = POLLIN;
        who[nf++] = (size_t)-1;
    }
    if (extra_ready)
        *extra_ready = 0;
    int rc = poll(fds, nf, timeout_ms);
    now = mwc_now();
    for (nfds_t k = 0; k < nf; k++) {
        if (who[k] == (size_t)-1) {
            if (extra_ready && rc > 0)
                *extra_ready = fds[k].revents != 0;
            continue;
        }
        size_t i = who[k];
        if (t->p[i].state != T_DONE)
            advance(t, i, rc > 0 ? fds[k].revents : 0, now);
    }
    free(fds);
    free(who);
}

int mwc_tcp_all_refused(const mwc_tcp *t)
{
    size_t tcp = 0;
    for (size_t i = 0; i < t->n; i++) {
        if (t->p[i].state == T_NONE)
            continue;   /* not a TCP endpoint */
        if (t->p[i].reached || !t->p[i].refused)
            return 0;
        tcp++;
    }
    return tcp > 0;
}

void mwc_tcp_close_all(mwc_tcp *t)
{
    for (size_t i = 0; i < t->n; i++)
        if (t->p[i].state != T_NONE && t->p[i].state != T_DONE) {
            drop(&t->p[i]);
            t->p[i].state = T_DONE;
        }
}
