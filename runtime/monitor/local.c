/* A rank's end of its node's local channel (node leaders, docs/protocol.md):
 * an abstract unix socket of the leader's, authenticated by the node's
 * secret (MW_LOCAL_HELLO_FORMAT). To the sender it is a transport like TCP
 * whose client is the leader: "attached" when the leader sends
 * MW_LOCAL_ATTACH (its own client has attached), "gone" when the leader
 * closes the connection (its client went away, or the leader died). While
 * not attached, MW_LOCAL_DUMP asks for the partial profile (mpiwatch --dump
 * of the node), answered with one line as over TCP. Every
 * call is non-blocking: a leader that is slow, stuck or dead costs the rank
 * dropped events (counted by the sender) and one warning, never a wait.
 * Used by the sender thread only. */
#include <errno.h>
#include <poll.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "core/clock.h"
#include "monitor/monitor.h"
#include "core/state.h"
#include "core/warn.h"

#define MW_RECONNECT_NS 1000000000ull   /* between attempts on a leader that refused */

static struct {
    int fd;                     /* -1: not connected */
    int attached;
    int leader;                 /* the leader's world rank */
    struct sockaddr_un addr;
    socklen_t addrlen;
    char hello[128];
    char endpoint[32];
    uint64_t next_try;          /* monotonic ns */
    int warned;
} local = {.fd = -1};

void mw_local_open(int leader, const char *name, const char *secret)
{
    size_t n = strnlen(name, MW_LOCAL_NAME_MAX);
    local.leader = leader;
    memset(&local.addr, 0, sizeof local.addr);
    local.addr.sun_family = AF_UNIX;
    memcpy(local.addr.sun_path + 1, name, n);   /* sun_path[0] = 0: the abstract namespace */
    local.addrlen = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + n);
    snprintf(local.hello, sizeof local.hello, MW_LOCAL_HELLO_FORMAT, MWP_VERSION, secret,
             mw_state.world_rank);
    snprintf(local.endpoint, sizeof local.endpoint, MWP_ENDPOINT_VIA " %d", leader);
}

static void unreachable(const char *why)
{
    if (!local.warned)
        mw_warn("monitor: cannot reach the node leader (rank %d): %s; this rank is not watched "
                "while it cannot", local.leader, why);
    local.warned = 1;
    local.next_try = mw_clock_monotonic_ns() + MW_RECONNECT_NS;
}

static void connect_leader(void)
{
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        unreachable(strerror(errno));
        return;
    }
    size_t len = strlen(local.hello);
    if (connect(fd, (struct sockaddr *)&local.addr, local.addrlen) != 0) {
        unreachable(strerror(errno));
        close(fd);
        return;
    }
    if (send(fd, local.hello, len, MSG_NOSIGNAL | MSG_DONTWAIT) != (ssize_t)len) {
        unreachable("it did not take this rank's first line");
        close(fd);
        return;
    }
    local.fd = fd;
}

static void disconnect(void)
{
    if (local.fd >= 0)
        close(local.fd);
    local.fd = -1;
    local.attached = 0;
}

static int local_poll_attach(void)
{
    if (local.attached)
        return 0;
    if (local.fd < 0 && mw_clock_monotonic_ns() >= local.next_try)
        connect_leader();
    if (local.fd < 0)
        return 0;
    char c;
    ssize_t n = recv(local.fd, &c, 1, MSG_DONTWAIT);
    if (n == 1 && c == MW_LOCAL_ATTACH) {
        local.attached = 1;
        return 1;
    }
    if (n == 1 && c == MW_LOCAL_DUMP) {   /* mpiwatch --dump, through the leader */
        char answer[MW_DUMP_ANSWER_MAX];
        size_t len = mw_monitor_dump_answer(answer, sizeof answer);
        static int warned;
        if (mw_socket_write(local.fd, (const unsigned char *)answer, len) != (long)len && !warned) {
            mw_warn("monitor: the node leader did not take this rank's answer to --dump");
            warned = 1;
        }
        return 0;
    }
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
        return 0;
    disconnect();   /* closed by the leader (refused, or it is ending): later, again */
    local.next_try = mw_clock_monotonic_ns() + MW_RECONNECT_NS;
    return 0;
}

static long local_write(const unsigned char *buf, size_t len)
{
    return local.fd < 0 ? -1 : mw_socket_write(local.fd, buf, len);
}

static int local_busy(void)
{
    return 0;
}

/* The leader sends nothing after its attach byte: readable means closed. */
static int local_gone(void)
{
    char junk[64];
    if (local.fd < 0)
        return 1;
    for (;;) {
        ssize_t n = recv(local.fd, junk, sizeof junk, MSG_DONTWAIT);
        if (n > 0)
            continue;
        if (n < 0 && errno == EINTR)
            continue;
        return !(n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK));
    }
}

/* A new connection for the next client: the leader starts each client
 * with fresh streams. */
static void local_detach(int final)
{
    (void)final;
    disconnect();
    local.next_try = 0;
}

static void local_wait(int ms, int want_write)
{
    if (local.fd < 0) {
        struct timespec ts = {0, (long)ms * 1000000L};
        nanosleep(&ts, NULL);
        return;
    }
    struct pollfd p = {.fd = local.fd, .events = (short)(POLLIN | (want_write ? POLLOUT : 0))};
    poll(&p, 1, ms);
}

/* The leader's relay outlives its own stream: mw_node_finish stops it once
 * the whole node has ended, or the process's exit now. */
static void local_shutdown(int at_exit)
{
    disconnect();
    if (at_exit && mw_state.world_rank == local.leader)
        mw_relay_stop(1);
}

static const char *local_endpoint(void)
{
    return mw_state.world_rank == local.leader ? mw_relay_endpoint() : local.endpoint;
}

const mw_transport mw_local_transport = {
    .name = "node", .poll_attach = local_poll_attach, .write = local_write, .busy = local_busy,
    .gone = local_gone, .detach = local_detach, .wait = local_wait, .shutdown = local_shutdown,
    .endpoint = local_endpoint};
