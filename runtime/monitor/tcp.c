/* The TCP transport: a listening socket on an ephemeral port, one client at
 * a time, authenticated by the rank's token (MWP_HANDSHAKE_FORMAT within
 * MWP_HANDSHAKE_SECONDS, include/mpiwatch_protocol.h). Up to MW_PENDING connections authenticate side by side, so
 * silent or garbage connections cannot keep the real client out; refusals
 * are logged with rate limiting. Every socket is non-blocking and every write uses MSG_NOSIGNAL,
 * so a client that goes away never raises SIGPIPE, and the application's
 * signal dispositions are left alone. Used by the sender thread only. */
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <unistd.h>

#include "core/clock.h"
#include "monitor/monitor.h"
#include "core/warn.h"

#define MW_HANDSHAKE_NS (MWP_HANDSHAKE_SECONDS * 1000000000ull)

#define MW_PENDING 32              /* connections authenticating at once */
#define MW_BACKLOG 128

/* A connection that has not sent its token yet. */
typedef struct mw_pending {
    int fd;                     /* -1: free */
    uint64_t deadline;
    size_t len;
    char line[128];
    char addr[96];              /* "[address]:port" */
} mw_pending;

static int listen_fd = -1, client_fd = -1;
static mw_pending pending[MW_PENDING] = {[0 ... MW_PENDING - 1] = {.fd = -1}};
static char expected[64], expected_dump[72];
static const char *(*dump_now)(void);
static void (*dump_taker)(int fd);
static char endpoint[512];

void mw_monitor_on_dump(const char *(*dump)(void))
{
    dump_now = dump;
}

void mw_tcp_hand_dumps_to(void (*take)(int fd))
{
    dump_taker = take;
}

size_t mw_monitor_dump_answer(char *line, size_t size)
{
    const char *path = dump_now != NULL ? dump_now() : NULL;
    int n = path != NULL ? snprintf(line, size, MWP_DUMPED_PREFIX "%s\n", path)
                         : snprintf(line, size, MWP_NOT_DUMPED);
    if (n < 0 || (size_t)n >= size)   /* a path too long for the line: as no file */
        n = snprintf(line, size, MWP_NOT_DUMPED);
    return (size_t)n;
}

int mw_monitor_token(char *out)
{
    unsigned char r[16];
    size_t got = 0;
    while (got < sizeof r) {
        ssize_t n = getrandom(r + got, sizeof r - got, 0);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        got += (size_t)n;
    }
    for (int i = 0; i < 16; i++)
        snprintf(out + 2 * i, 3, "%02x", r[i]);
    return 0;
}

static void describe(const struct sockaddr *sa, socklen_t len, char *out, size_t size)
{
    char host[64], port[16];   /* numeric: an IPv6 address is at most 46 characters */
    if (getnameinfo(sa, len, host, sizeof host, port, sizeof port,
                    NI_NUMERICHOST | NI_NUMERICSERV) != 0)
        snprintf(out, size, "an unknown address");
    else if (sa->sa_family == AF_INET6)
        snprintf(out, size, "[%s]:%s", host, port);
    else
        snprintf(out, size, "%s:%s", host, port);
}

static int nonblocking(int fd)
{
    int fl = fcntl(fd, F_GETFL);
    return fl < 0 ? -1 : fcntl(fd, F_SETFL, fl | O_NONBLOCK);
}

static int try_listen(const struct addrinfo *ai)
{
    int fd = socket(ai->ai_family, ai->ai_socktype, ai->ai_protocol);
    if (fd < 0)
        return -1;
    int zero = 0;
    if (ai->ai_family == AF_INET6)   /* "::" also takes IPv4 where the system allows it */
        setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof zero);
    if (fcntl(fd, F_SETFD, FD_CLOEXEC) < 0 || nonblocking(fd) < 0 ||
        bind(fd, ai->ai_addr, ai->ai_addrlen) < 0 || listen(fd, MW_BACKLOG) < 0) {
        close(fd);
        return -1;
    }
    return fd;
}

static int wildcard(const char *bind)
{
    return bind[0] == '\0' || strcmp(bind, "0.0.0.0") == 0 || strcmp(bind, "::") == 0;
}

int mw_tcp_open(const char *bind, const char *token)
{
    struct addrinfo hints, *res = NULL;
    memset(&hints, 0, sizeof hints);
    hints.ai_family = bind[0] ? AF_UNSPEC : AF_INET6;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_PASSIVE;
    int rc = getaddrinfo(bind[0] ? bind : NULL, "0", &hints, &res);
    if (rc != 0 && !bind[0]) {       /* no IPv6: every IPv4 address */
        hints.ai_family = AF_INET;
        rc = getaddrinfo(NULL, "0", &hints, &res);
    }
    if (rc != 0) {
        mw_warn("the monitor cannot listen on '%s': %s", bind[0] ? bind : "*", gai_strerror(rc));
        return -1;
    }
    int err = 0;
    for (const struct addrinfo *ai = res; ai != NULL && listen_fd < 0; ai = ai->ai_next)
        if ((listen_fd = try_listen(ai)) < 0)
            err = errno;
    freeaddrinfo(res);
    if (listen_fd < 0 && !bind[0]) {
        memset(&hints, 0, sizeof hints);
        hints.ai_family = AF_INET;
        hints.ai_socktype = SOCK_STREAM;
        hints.ai_flags = AI_PASSIVE;
        if (getaddrinfo(NULL, "0", &hints, &res) == 0) {
            for (const struct addrinfo *ai = res; ai != NULL && listen_fd < 0; ai = ai->ai_next)
                if ((listen_fd = try_listen(ai)) < 0)
                    err = errno;
            freeaddrinfo(res);
        }
    }
    if (listen_fd < 0) {
        mw_warn("the monitor cannot listen on '%s': %s", bind[0] ? bind : "*", strerror(err));
        return -1;
    }
    struct sockaddr_storage ss;
    socklen_t len = sizeof ss;
    char port[32] = "0", host[256] = "localhost";
    if (getsockname(listen_fd, (struct sockaddr *)&ss, &len) == 0)
        getnameinfo((struct sockaddr *)&ss, len, NULL, 0, port, sizeof port, NI_NUMERICSERV);
    if (wildcard(bind)) {
        if (gethostname(host, sizeof host - 1) != 0)
            snprintf(host, sizeof host, "localhost");
        host[sizeof host - 1] = '\0';
    } else {
        snprintf(host, sizeof host, "%s", bind);
    }
    snprintf(endpoint, sizeof endpoint, "tcp %s %s %s", host, port, token);
    snprintf(expected, sizeof expected, MWP_HANDSHAKE_FORMAT, MWP_VERSION, token);
    snprintf(expected_dump, sizeof expected_dump, MWP_DUMP_FORMAT, MWP_VERSION, token);
    return 0;
}

/* Refusals are logged with rate limiting: anyone who can reach the port can
 * cause them, and the job's stderr must not fill up. The first few are
 * named; after that one line per interval gives the count. */
#define MW_REFUSALS_NAMED 3
#define MW_REFUSAL_SUMMARY_NS 10000000000ull
static unsigned long refusals, refusals_unsaid;
static uint64_t refusals_said_at;

static void say_refusals(int final)
{
    uint64_t now = mw_clock_monotonic_ns();
    if (refusals_unsaid > 0 && (final || now - refusals_said_at >= MW_REFUSAL_SUMMARY_NS)) {
        mw_warn("monitor: refused %lu more connection%s (%lu in all)", refusals_unsaid,
                refusals_unsaid == 1 ? "" : "s", refusals);
        refusals_unsaid = 0;
        refusals_said_at = now;
    }
}

static void refuse(int *fd, const char *addr, const char *why)
{
    if (++refusals <= MW_REFUSALS_NAMED) {
        mw_warn("monitor: refused the client at %s: %s%s", addr, why,
                refusals == MW_REFUSALS_NAMED ? " (further refusals are counted, not named)" : "");
        refusals_said_at = mw_clock_monotonic_ns();
    } else {
        refusals_unsaid++;
        say_refusals(0);
    }
    close(*fd);
    *fd = -1;
}

/* An authenticated request for the partial profile (mpiwatch --dump): it is
 * written here, on the sender's thread, which a rank stuck inside MPI still
 * runs; the answer is one short line, then the connection closes. */
static void serve_dump(mw_pending *c)
{
    if (dump_taker != NULL) {   /* a node leader: its node's ranks answer, itself among them */
        dump_taker(c->fd);
        c->fd = -1;
        return;
    }
    char answer[MW_DUMP_ANSWER_MAX];
    size_t n = mw_monitor_dump_answer(answer, sizeof answer);
    int flags = fcntl(c->fd, F_GETFL);
    fcntl(c->fd, F_SETFL, flags & ~O_NONBLOCK);   /* a line: the socket's buffer takes it */
    (void)!send(c->fd, answer, n, MSG_NOSIGNAL);
    close(c->fd);
    c->fd = -1;
}

/* Read what pending connection k sent: 1 attached, 0 not yet, -1 refused
 * (or a dump request served). */
static int handshake(int k)
{
    mw_pending *c = &pending[k];
    for (;;) {
        ssize_t n = recv(c->fd, c->line + c->len, sizeof c->line - 1 - c->len, MSG_DONTWAIT);
        if (n > 0) {
            c->len += (size_t)n;
            char *nl = memchr(c->line, '\n', c->len);
            if (nl == NULL && c->len < sizeof c->line - 1)
                continue;
            size_t want = strlen(expected);
            if (nl != NULL && (size_t)(nl - c->line) + 1 == want &&
                mw_same_secret(c->line, expected, want)) {
                client_fd = c->fd;
                c->fd = -1;
                return 1;
            }
            want = strlen(expected_dump);
            if (nl != NULL && (size_t)(nl - c->line) + 1 == want &&
                mw_same_secret(c->line, expected_dump, want)) {
                serve_dump(c);
                return -1;
            }
            refuse(&c->fd, c->addr, "wrong token");
            return -1;
        }
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            if (mw_clock_monotonic_ns() > c->deadline) {
                refuse(&c->fd, c->addr, "no token within 5 seconds");
                return -1;
            }
            return 0;
        }
        if (n < 0 && errno == EINTR)
            continue;
        refuse(&c->fd, c->addr, "it closed the connection without sending the token");
        return -1;
    }
}

/* A slot for a new connection: a free one, or the oldest pending one,
 * dropped, so that a flood of silent connections cannot lock out the client. */
static int pending_slot(void)
{
    int oldest = 0;
    for (int k = 0; k < MW_PENDING; k++) {
        if (pending[k].fd < 0)
            return k;
        if (pending[k].deadline < pending[oldest].deadline)
            oldest = k;
    }
    refuse(&pending[oldest].fd, pending[oldest].addr, "too many connections waiting to "
           "authenticate; the oldest is dropped");
    return oldest;
}

static int tcp_poll_attach(void)
{
    say_refusals(0);
    for (int k = 0; k < MW_PENDING && client_fd < 0; k++)
        if (pending[k].fd >= 0 && handshake(k) == 1)
            return 1;
    /* Every connection waiting in the backlog is taken now: handshakes run
     * side by side, each with its own deadline. */
    while (listen_fd >= 0) {
        struct sockaddr_storage ss;
        socklen_t len = sizeof ss;
        int fd = accept(listen_fd, (struct sockaddr *)&ss, &len);
        if (fd < 0)
            return 0;
        char addr[sizeof pending[0].addr];
        describe((struct sockaddr *)&ss, len, addr, sizeof addr);
        if (client_fd >= 0) {
            refuse(&fd, addr, "another client is attached");
            continue;
        }
        fcntl(fd, F_SETFD, FD_CLOEXEC);
        nonblocking(fd);
        int k = pending_slot();
        pending[k].fd = fd;
        pending[k].len = 0;
        pending[k].deadline = mw_clock_monotonic_ns() + MW_HANDSHAKE_NS;
        snprintf(pending[k].addr, sizeof pending[k].addr, "%s", addr);
        if (handshake(k) == 1)
            return 1;
    }
    return 0;
}

long mw_socket_write(int fd, const unsigned char *buf, size_t len)
{
    for (;;) {
        ssize_t n = send(fd, buf, len, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (n >= 0)
            return (long)n;
        if (errno == EINTR)
            continue;
        return errno == EAGAIN || errno == EWOULDBLOCK ? 0 : -1;
    }
}

static long tcp_write(const unsigned char *buf, size_t len)
{
    return client_fd < 0 ? -1 : mw_socket_write(client_fd, buf, len);
}

static int tcp_busy(void)
{
    return 0;
}

/* The client sends nothing after its token: readable means it has gone
 * (end of file, reset), or sent something it should not (ignored). */
static int tcp_gone(void)
{
    char junk[256];
    if (client_fd < 0)
        return 1;
    for (;;) {
        ssize_t n = recv(client_fd, junk, sizeof junk, MSG_DONTWAIT);
        if (n > 0)
            continue;
        if (n < 0 && errno == EINTR)
            continue;
        return !(n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK));
    }
}

static void tcp_detach(int final)
{
    (void)final;
    if (client_fd >= 0) {
        shutdown(client_fd, SHUT_WR);
        close(client_fd);
        client_fd = -1;
    }
}

static void tcp_wait(int ms, int want_write)
{
    struct pollfd p[2 + MW_PENDING];
    int n = 0;
    if (listen_fd >= 0)
        p[n++] = (struct pollfd){.fd = listen_fd, .events = POLLIN};
    for (int k = 0; k < MW_PENDING; k++)
        if (pending[k].fd >= 0)
            p[n++] = (struct pollfd){.fd = pending[k].fd, .events = POLLIN};
    if (client_fd >= 0)
        p[n++] = (struct pollfd){.fd = client_fd, .events = (short)(POLLIN | (want_write ? POLLOUT : 0))};
    poll(p, (nfds_t)n, ms);
}

static void tcp_shutdown(int at_exit)
{
    (void)at_exit;
    tcp_detach(1);
    for (int k = 0; k < MW_PENDING; k++)
        if (pending[k].fd >= 0) {
            close(pending[k].fd);
            pending[k].fd = -1;
        }
    if (listen_fd >= 0)
        close(listen_fd);
    listen_fd = -1;
    say_refusals(1);
}

static const char *tcp_endpoint(void)
{
    return endpoint;
}

const mw_transport mw_tcp_transport = {
    .name = "tcp", .poll_attach = tcp_poll_attach, .write = tcp_write, .busy = tcp_busy,
    .gone = tcp_gone, .detach = tcp_detach, .wait = tcp_wait, .shutdown = tcp_shutdown,
    .endpoint = tcp_endpoint};
