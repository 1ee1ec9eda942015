/* A node leader's relay (MPIWATCH_NODE_SIZE, docs/protocol.md): its own
 * thread serves the node's one client, over tcp.c's listener and
 * authentication, and the node's ranks (the leader's own too) over an
 * abstract unix socket. Each rank proves itself with the node's secret
 * (which only the job's ranks got, over MPI) and must run as the same
 * user. While a client is attached, every authenticated rank is told to
 * start (MW_LOCAL_ATTACH) and its byte stream is forwarded unchanged,
 * wrapped in MWP_FORWARD frames with its rank; the relay parses none of it
 * (the client decodes and checks each rank's stream as if it came direct).
 * When the client goes, the ranks' connections are closed: they reconnect
 * and start afresh for the next one. The relay never blocks: past
 * MW_RELAY_OUT_CAP of unsent output it stops reading the ranks, whose own
 * senders then drop and count events as for a slow client. While no client
 * watches, `mpiwatch --dump` of the node is relayed: tcp.c hands over the
 * request's connection, each idle rank is asked (MW_LOCAL_DUMP) and its
 * answer line goes to the client as it comes (MWP_NODE_DUMP_FORMAT). */
#define _GNU_SOURCE   /* struct ucred */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "core/background.h"
#include "core/clock.h"
#include "core/tls.h"
#include "monitor/monitor.h"
#include "core/state.h"
#include "core/warn.h"

#define MW_RELAY_MEMBERS 1024              /* the node's ranks connected at once */
#define MW_RELAY_OUT_CAP (16u << 20)       /* unsent output beyond which ranks are not read */
#define MW_RELAY_READ 65536                /* one read from a rank, one FORWARD frame */
#define MW_RELAY_TICK_MS 5
#define MW_LOCAL_AUTH_NS (MWP_HANDSHAKE_SECONDS * 1000000000ull)
#define MW_RELAY_DUMP_NS (MWP_NODE_DUMP_SECONDS * 1000000000ull)

_Static_assert(MW_RELAY_READ <= MWP_FORWARD_MAX, "a read fits one FORWARD frame");

enum { M_FREE, M_AUTH, M_READY, M_ACTIVE };

typedef struct {
    int fd, state;
    uint32_t rank;
    uint64_t deadline;          /* M_AUTH: its first line is due */
    size_t len;
    char line[128];
    char *answer;               /* asked for its partial profile: its answer line so far */
    size_t alen;
} member;

static struct {
    int listen_fd;
    char secret[MWP_TOKEN_HEX + 1];
    char endpoint[600];
    member m[MW_RELAY_MEMBERS];
    struct pollfd pfd[MW_RELAY_MEMBERS + 1];
    mw_buf out;                 /* FORWARD frames for the client */
    int attached;
    pthread_t thread;
    int running;
    int stop;                   /* atomic */
    uint64_t stop_at;           /* set before stop */
    int at_exit;                /* set before stop: no lingering */
    uint64_t progress_at;       /* the relay's: a byte last read from a rank or taken by the client */
    int warned_full, warned_refused;
    int dump_fd;                /* a --dump request being answered, or -1 */
    int dump_waiting;           /* the ranks asked that have not answered */
    uint64_t dump_deadline;
    unsigned char rbuf[MW_RELAY_READ];
} relay = {.listen_fd = -1, .dump_fd = -1};

static void forget_answer(member *x)
{
    if (x->answer == NULL)
        return;
    free(x->answer);
    x->answer = NULL;
    x->alen = 0;
    relay.dump_waiting--;
}

static void close_member(member *x)
{
    forget_answer(x);
    if (x->fd >= 0)
        close(x->fd);
    x->fd = -1;
    x->state = M_FREE;
}

static void start_member(member *x)
{
    if (x->answer != NULL)
        return;   /* once it has answered the --dump request it was asked */
    char go = MW_LOCAL_ATTACH;
    if (send(x->fd, &go, 1, MSG_NOSIGNAL | MSG_DONTWAIT) == 1)
        x->state = M_ACTIVE;
    else
        close_member(x);
}

static void refuse_member(member *x, const char *why)
{
    if (!relay.warned_refused)
        mw_warn("monitor: the node leader refused a local connection: %s", why);
    relay.warned_refused = 1;
    close_member(x);
}

/* Its first line: MW_LOCAL_HELLO_FORMAT with the node's secret and a rank
 * of the job, from a process of this user. */
static void authenticate(member *x)
{
    ssize_t n = recv(x->fd, x->line + x->len, sizeof x->line - 1 - x->len, MSG_DONTWAIT);
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) {
        if (mw_clock_monotonic_ns() > x->deadline)
            refuse_member(x, "no first line within 5 seconds");
        return;
    }
    if (n <= 0) {
        close_member(x);
        return;
    }
    x->len += (size_t)n;
    x->line[x->len] = '\0';
    char *nl = memchr(x->line, '\n', x->len);
    if (nl == NULL) {
        if (x->len == sizeof x->line - 1)
            refuse_member(x, "an overlong first line");
        return;
    }
    char *space = NULL;
    for (char *p = x->line; p < nl; p++)
        if (*p == ' ')
            space = p;
    char *end = NULL;
    long rank = space ? strtol(space + 1, &end, 10) : -1;
    char want[sizeof x->line];
    int wlen = snprintf(want, sizeof want, MW_LOCAL_HELLO_FORMAT, MWP_VERSION, relay.secret,
                        (int)rank);
    struct ucred cred;
    socklen_t clen = sizeof cred;
    if (space == NULL || end != nl || rank < 0 || rank >= mw_state.world_size ||
        (size_t)(nl - x->line) + 1 != (size_t)wlen || !mw_same_secret(x->line, want, (size_t)wlen)) {
        refuse_member(x, "a wrong first line (not a rank of this job)");
        return;
    }
    if (getsockopt(x->fd, SOL_SOCKET, SO_PEERCRED, &cred, &clen) != 0 || cred.uid != geteuid()) {
        refuse_member(x, "a process of another user");
        return;
    }
    x->rank = (uint32_t)rank;
    x->state = M_READY;
    if (relay.attached)
        start_member(x);
}

static void accept_members(void)
{
    for (;;) {
        int fd = accept4(relay.listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0)
            return;
        member *x = NULL;
        for (int k = 0; k < MW_RELAY_MEMBERS && x == NULL; k++)
            if (relay.m[k].state == M_FREE)
                x = &relay.m[k];
        if (x == NULL) {
            if (!relay.warned_full)
                mw_warn("monitor: the node leader serves at most %d ranks; the others are not "
                        "watched", MW_RELAY_MEMBERS);
            relay.warned_full = 1;
            close(fd);
            continue;
        }
        *x = (member){.fd = fd, .state = M_AUTH,
                      .deadline = mw_clock_monotonic_ns() + MW_LOCAL_AUTH_NS};
    }
}

/* A rank's bytes, as they come, each read into one FORWARD frame; a few
 * reads a tick, so that a rank's flood of events is not held to one read
 * per tick, nor can it starve the others. */
#define MW_RELAY_READS 4

static void forward(member *x)
{
    for (int k = 0; k < MW_RELAY_READS && mw_buf_pending(&relay.out) < MW_RELAY_OUT_CAP; k++) {
        ssize_t n = recv(x->fd, relay.rbuf, sizeof relay.rbuf, MSG_DONTWAIT);
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
            return;
        if (n <= 0 || mw_frame_forward(&relay.out, x->rank, relay.rbuf, (size_t)n) != 0) {
            close_member(x);   /* its stream ended (or memory ran out: it would be cut) */
            return;
        }
        relay.progress_at = mw_clock_monotonic_ns();
        if ((size_t)n < sizeof relay.rbuf)
            return;
    }
}

/* The --dump request's end: every asked rank answered, or its time is up
 * (a rank that did not answer starts afresh on a new connection, so that a
 * late answer cannot enter a client's stream). */
static void end_dump(void)
{
    for (int k = 0; k < MW_RELAY_MEMBERS; k++)
        if (relay.m[k].answer != NULL)
            close_member(&relay.m[k]);
    close(relay.dump_fd);
    relay.dump_fd = -1;
}

static void take_dump(int fd)
{
    if (relay.dump_fd >= 0) {   /* one at a time: the second client hears nothing */
        close(fd);
        return;
    }
    relay.dump_fd = fd;
    relay.dump_waiting = 0;
    relay.dump_deadline = mw_clock_monotonic_ns() + MW_RELAY_DUMP_NS;
    char ask = MW_LOCAL_DUMP;
    for (int k = 0; k < MW_RELAY_MEMBERS; k++) {
        member *x = &relay.m[k];
        if (x->state != M_READY || (x->answer = malloc(MW_DUMP_ANSWER_MAX)) == NULL)
            continue;
        x->alen = 0;
        relay.dump_waiting++;
        if (send(x->fd, &ask, 1, MSG_NOSIGNAL | MSG_DONTWAIT) != 1)
            close_member(x);
    }
}

/* An asked rank's answer, up to its newline, passed on with its rank. */
static void dump_input(member *x)
{
    ssize_t n = recv(x->fd, x->answer + x->alen, MW_DUMP_ANSWER_MAX - 1 - x->alen, MSG_DONTWAIT);
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
        return;
    if (n <= 0) {
        close_member(x);
        return;
    }
    x->alen += (size_t)n;
    char *nl = memchr(x->answer, '\n', x->alen);
    if (nl == NULL) {
        if (x->alen == MW_DUMP_ANSWER_MAX - 1)
            close_member(x);   /* not an answer line */
        return;
    }
    char out[MW_DUMP_ANSWER_MAX + 32];
    int len = snprintf(out, sizeof out, MWP_NODE_DUMP_FORMAT "%.*s\n", x->rank,
                       (int)(nl - x->answer), x->answer);
    if (len > 0 && (size_t)len < sizeof out &&
        mw_socket_write(relay.dump_fd, (const unsigned char *)out, (size_t)len) != len)
        relay.dump_deadline = 0;   /* the client does not take it: give up */
    forget_answer(x);
    if (relay.attached)
        start_member(x);
}

/* A member not started sends nothing; bytes are discarded, end of file closes. */
static void idle_input(member *x)
{
    char junk[256];
    ssize_t n = recv(x->fd, junk, sizeof junk, MSG_DONTWAIT);
    if (n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR))
        close_member(x);
}

static void client_attached(void)
{
    relay.attached = 1;
    relay.out.head = relay.out.len = 0;
    for (int k = 0; k < MW_RELAY_MEMBERS; k++)
        if (relay.m[k].state == M_READY)
            start_member(&relay.m[k]);
}

/* The ranks' streams were for this client: they reconnect for the next. */
static void client_gone(void)
{
    mw_tcp_transport.detach(0);
    relay.attached = 0;
    relay.out.head = relay.out.len = 0;
    for (int k = 0; k < MW_RELAY_MEMBERS; k++)
        if (relay.m[k].state == M_ACTIVE)
            close_member(&relay.m[k]);
}

static void flush_out(void)
{
    while (relay.attached && mw_buf_pending(&relay.out) > 0) {
        long w = mw_tcp_transport.write(relay.out.data + relay.out.head, mw_buf_pending(&relay.out));
        if (w < 0)
            client_gone();
        if (w <= 0)
            return;
        mw_buf_consume(&relay.out, (size_t)w);
        relay.progress_at = mw_clock_monotonic_ns();
    }
}

static void poll_members(int ms)
{
    nfds_t n = 0;
    int who[MW_RELAY_MEMBERS + 1];
    int room = mw_buf_pending(&relay.out) < MW_RELAY_OUT_CAP;
    relay.pfd[n] = (struct pollfd){.fd = relay.listen_fd, .events = POLLIN};
    who[n++] = -1;
    for (int k = 0; k < MW_RELAY_MEMBERS; k++) {
        member *x = &relay.m[k];
        if (x->state == M_FREE || (x->state == M_ACTIVE && !room))
            continue;
        relay.pfd[n] = (struct pollfd){.fd = x->fd, .events = POLLIN};
        who[n++] = k;
    }
    poll(relay.pfd, n, ms);
    for (nfds_t i = 1; i < n; i++) {
        member *x = &relay.m[who[i]];
        if (x->state == M_AUTH)
            authenticate(x);   /* also when quiet: its deadline */
        else if (relay.pfd[i].revents == 0)
            continue;
        else if (x->state == M_ACTIVE)
            forward(x);
        else if (x->answer != NULL)
            dump_input(x);
        else
            idle_input(x);
    }
}

static int streams_open(void)
{
    for (int k = 0; k < MW_RELAY_MEMBERS; k++)
        if (relay.m[k].state == M_ACTIVE)
            return 1;
    return 0;
}

/* Once stopped: is the node's data forwarded, or given up on (progress: a
 * byte read from a rank or taken by the client; MW_FINAL_STALL_NS)? */
static int done_lingering(void)
{
    if (!relay.attached || relay.at_exit || (!streams_open() && mw_buf_pending(&relay.out) == 0))
        return 1;
    uint64_t now = mw_clock_monotonic_ns();
    uint64_t since = relay.progress_at > relay.stop_at ? relay.progress_at : relay.stop_at;
    return now - relay.stop_at >= MW_FINAL_MAX_NS || now - since >= MW_FINAL_STALL_NS;
}

static void *relay_main(void *arg)
{
    (void)arg;
    mw_guard_hold();   /* nothing this thread does is the application's MPI */
    mw_monitor_lower_priority();
    for (;;) {
        if (__atomic_load_n(&relay.stop, __ATOMIC_ACQUIRE) && done_lingering())
            break;
        if (mw_tcp_transport.poll_attach() && !relay.attached)
            client_attached();
        if (relay.attached && mw_tcp_transport.gone())
            client_gone();
        accept_members();
        poll_members(MW_RELAY_TICK_MS);
        flush_out();
        if (relay.dump_fd >= 0 &&
            (relay.dump_waiting == 0 || mw_clock_monotonic_ns() > relay.dump_deadline))
            end_dump();
    }
    return NULL;
}

static int open_local_socket(char *name)
{
    struct sockaddr_un a;
    memset(&a, 0, sizeof a);
    a.sun_family = AF_UNIX;
    int n = snprintf(name, MW_LOCAL_NAME_MAX, "mpiwatch-node-%ld-%d", (long)getpid(),
                     mw_state.world_rank);
    memcpy(a.sun_path + 1, name, (size_t)n);   /* sun_path[0] = 0: the abstract namespace */
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -1;
    if (bind(fd, (struct sockaddr *)&a, (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + n)) != 0 ||
        listen(fd, MW_RELAY_MEMBERS) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

int mw_relay_open(const char *bind, const char *token, const char *secret, char *name)
{
    if (mw_tcp_open(bind, token) != 0)
        return -1;
    const char *tcp = mw_tcp_transport.endpoint();   /* "tcp HOST PORT TOKEN" */
    snprintf(relay.endpoint, sizeof relay.endpoint, "%s%s", MWP_ENDPOINT_NODE,
             tcp + strcspn(tcp, " "));
    snprintf(relay.secret, sizeof relay.secret, "%s", secret);
    for (int k = 0; k < MW_RELAY_MEMBERS; k++)
        relay.m[k] = (member){.fd = -1, .state = M_FREE};
    relay.listen_fd = open_local_socket(name);
    if (relay.listen_fd < 0) {
        mw_warn("monitor: the node leader cannot open its local socket: %s", strerror(errno));
        mw_tcp_transport.shutdown(0);
        return -1;
    }
    mw_tcp_hand_dumps_to(take_dump);
    int rc = mw_background_start(&relay.thread, relay_main, "mpiwatch-relay");
    if (rc != 0) {
        mw_warn("monitor: cannot start the node leader's thread (error %d)", rc);
        close(relay.listen_fd);
        relay.listen_fd = -1;
        mw_tcp_transport.shutdown(0);
        return -1;
    }
    relay.running = 1;
    return 0;
}

void mw_relay_stop(int at_exit)
{
    if (!relay.running)
        return;
    relay.at_exit = at_exit;
    relay.stop_at = mw_clock_monotonic_ns();
    __atomic_store_n(&relay.stop, 1, __ATOMIC_RELEASE);
    pthread_join(relay.thread, NULL);
    relay.running = 0;
    if (relay.attached && mw_buf_pending(&relay.out) > 0)
        mw_warn("monitor: the node leader's client did not take the node's last %zu bytes",
                mw_buf_pending(&relay.out));
    mw_tcp_transport.shutdown(at_exit);
    for (int k = 0; k < MW_RELAY_MEMBERS; k++)
        close_member(&relay.m[k]);
    if (relay.dump_fd >= 0)
        close(relay.dump_fd);
    relay.dump_fd = -1;
    close(relay.listen_fd);
    relay.listen_fd = -1;
    mw_buf_free(&relay.out);
}

const char *mw_relay_endpoint(void)
{
    return relay.endpoint;
}
