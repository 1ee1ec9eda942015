/* The MPI ports transport: MPI_Open_port, and MPI_Comm_accept on
 * MPI_COMM_SELF in a thread of its own (the MPI provides
 * MPI_THREAD_MULTIPLE: MPI_Init asks for it when this transport is chosen).
 * The client sends its token as MPI_CHAR with tag 1; frames go out as
 * MPI_BYTE messages with tag 2 holding whole frames, one PMPI_Isend in
 * flight at a time, tested, never waited for. Every call is a PMPI_ one and
 * runs in a thread with the re-entry guard held, so none is profiled.
 *
 * At MPI_Finalize the accepting thread is left blocked (see mpi_shutdown). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/background.h"
#include "core/clock.h"
#include "monitor/monitor.h"
#include "core/state.h"
#include "core/warn.h"

#define MW_HANDSHAKE_NS 5000000000ull

static char port[MPI_MAX_PORT_NAME];
static char token_text[40];
static char endpoint[MPI_MAX_PORT_NAME + 64];
static pthread_t acceptor;
static int acceptor_running;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static MPI_Comm ready = MPI_COMM_NULL;    /* lock: authenticated, not yet taken */
static int serving;                       /* lock: the sender has a client */
static int closing;                       /* lock: MPI_Finalize has begun */

/* The sender's side. */
static MPI_Comm client = MPI_COMM_NULL;
static MPI_Request request = MPI_REQUEST_NULL;
static unsigned char *sendbuf;

static void error_text(int rc, char *out, size_t size)
{
    char text[MPI_MAX_ERROR_STRING];
    int len = 0;
    if (PMPI_Error_string(rc, text, &len) != MPI_SUCCESS)
        snprintf(text, sizeof text, "MPI error %d", rc);
    /* MPICH's strings are an error stack, one line per level: the last
     * line says what is wrong. */
    char *line = text, *nl;
    while ((nl = strchr(line, '\n')) != NULL && nl[1] != '\0')
        line = nl + 1;
    if ((nl = strchr(line, '\n')) != NULL)
        *nl = '\0';
    snprintf(out, size, "%s", line);
}

static void sleep_ms(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

/* The token message of a new connection, within 5 seconds: its length, or -1. */
static int receive_token(MPI_Comm inter, char *buf, int size)
{
    MPI_Request req;
    MPI_Status st;
    int done = 0, count = -1;
    if (PMPI_Irecv(buf, size - 1, MPI_CHAR, 0, MWP_MPI_TAG_TOKEN, inter, &req) != MPI_SUCCESS)
        return -1;
    uint64_t deadline = mw_clock_monotonic_ns() + MW_HANDSHAKE_NS;
    while (PMPI_Test(&req, &done, &st) == MPI_SUCCESS && !done && mw_clock_monotonic_ns() < deadline)
        sleep_ms(2);
    if (!done) {
        PMPI_Cancel(&req);
        PMPI_Request_free(&req);
        return -1;
    }
    PMPI_Get_count(&st, MPI_CHAR, &count);
    if (count >= 0)
        buf[count] = '\0';
    return count;
}

static void *accept_main(void *arg)
{
    (void)arg;
    mw_guard_hold();
    for (;;) {
        MPI_Comm inter = MPI_COMM_NULL;
        char got[128];
        if (PMPI_Comm_accept(port, MPI_INFO_NULL, 0, MPI_COMM_SELF, &inter) != MPI_SUCCESS) {
            sleep_ms(50);
            continue;
        }
        PMPI_Comm_set_errhandler(inter, MPI_ERRORS_RETURN);
        pthread_mutex_lock(&lock);
        int stop = closing;
        pthread_mutex_unlock(&lock);
        if (stop) {   /* MPI_Finalize has begun: leave the client alone, stop */
            PMPI_Comm_free(&inter);
            return NULL;
        }
        int n = receive_token(inter, got, (int)sizeof got);
        pthread_mutex_lock(&lock);
        int busy = serving || ready != MPI_COMM_NULL || closing;
        int good = n >= 0 && strcmp(got, token_text) == 0;
        if (good && !busy)
            ready = inter;
        pthread_mutex_unlock(&lock);
        if (!good || busy) {
            mw_warn("monitor: refused the client that connected through the MPI port: %s",
                    busy ? "another client is attached"
                         : n < 0 ? "no token within 5 seconds" : "wrong token");
            PMPI_Comm_free(&inter);
        }
    }
}

int mw_mpiport_open(const char *token)
{
    MPI_Errhandler self_eh, world_eh;
    char why[MPI_MAX_ERROR_STRING];

    /* MPI-3.1 raises errors of MPI_Open_port on MPI_COMM_WORLD, MPI-4 on
     * MPI_COMM_SELF: both return errors for this one call. */
    PMPI_Comm_get_errhandler(MPI_COMM_SELF, &self_eh);
    PMPI_Comm_get_errhandler(MPI_COMM_WORLD, &world_eh);
    PMPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    PMPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int rc = PMPI_Open_port(MPI_INFO_NULL, port);
    PMPI_Comm_set_errhandler(MPI_COMM_SELF, self_eh);
    PMPI_Comm_set_errhandler(MPI_COMM_WORLD, world_eh);
    PMPI_Errhandler_free(&self_eh);
    PMPI_Errhandler_free(&world_eh);
    if (rc != MPI_SUCCESS) {
        error_text(rc, why, sizeof why);
        if (mw_state.world_rank == 0)
            mw_warn("MPI ports are not supported by this MPI: %s; using TCP", why);
        return -1;
    }
    snprintf(token_text, sizeof token_text, "%s", token);
    snprintf(endpoint, sizeof endpoint, "mpi %s %s", token, port);
    rc = mw_background_start(&acceptor, accept_main, "mpiwatch-port");
    if (rc != 0) {
        if (mw_state.world_rank == 0)
            mw_warn("cannot start the MPI port's accepting thread; using TCP");
        PMPI_Close_port(port);
        return -1;
    }
    acceptor_running = 1;
    return 0;
}

static int mpi_poll_attach(void)
{
    if (client != MPI_COMM_NULL)
        return 0;
    pthread_mutex_lock(&lock);
    client = ready;
    ready = MPI_COMM_NULL;
    serving = client != MPI_COMM_NULL;
    pthread_mutex_unlock(&lock);
    return client != MPI_COMM_NULL;
}

static int mpi_busy(void)
{
    int done = 1;
    if (request != MPI_REQUEST_NULL && PMPI_Test(&request, &done, MPI_STATUS_IGNORE) != MPI_SUCCESS)
        return 0;
    return !done;
}

static uint32_t frame_length(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* One message of whole frames, up to about a megabyte, when none is in flight. */
static long mpi_write(const unsigned char *buf, size_t len)
{
    if (client == MPI_COMM_NULL)
        return -1;
    if (mpi_busy())
        return 0;
    size_t take = 0;
    while (take + 4 <= len) {
        size_t f = 4 + (size_t)frame_length(buf + take);
        if (take + f > len || (take > 0 && take + f > MWP_FRAME_MAX + MWP_FRAME_HEADER))
            break;
        take += f;
    }
    if (take == 0)
        return 0;
    unsigned char *copy = realloc(sendbuf, take);
    if (copy == NULL)
        return 0;
    sendbuf = copy;
    memcpy(sendbuf, buf, take);
    if (PMPI_Isend(sendbuf, (int)take, MPI_BYTE, 0, MWP_MPI_TAG_FRAMES, client, &request) != MPI_SUCCESS)
        return -1;
    return (long)take;
}

static int mpi_gone(void)
{
    return 0;   /* an MPI client cannot be seen to go without a failed send */
}

static void mpi_detach(int final)
{
    if (client == MPI_COMM_NULL)
        return;
    if (final && !mpi_busy()) {
        PMPI_Comm_disconnect(&client);
    } else {
        if (request != MPI_REQUEST_NULL) {
            PMPI_Cancel(&request);
            PMPI_Request_free(&request);
        }
        PMPI_Comm_free(&client);
    }
    request = MPI_REQUEST_NULL;
    client = MPI_COMM_NULL;
    pthread_mutex_lock(&lock);
    serving = 0;
    pthread_mutex_unlock(&lock);
}

static void mpi_wait(int ms, int want_write)
{
    (void)want_write;
    sleep_ms(ms < 1 ? 1 : ms);
}

/* The accepting thread stays blocked in MPI_Comm_accept: connecting to
 * one's own port to wake it deadlocks Open MPI 4.1 (both sides wait in
 * PMIx), and nothing else interrupts an accept. It is detached, makes no
 * further MPI call unless a client connects, and ends with the process;
 * PMPI_Finalize does not wait for it (measured with Open MPI 4.1.4). The
 * port is left open for the same reason: closing it under a pending accept
 * is not defined. */
static void mpi_shutdown(int at_exit)
{
    if (at_exit || !acceptor_running)
        return;   /* without MPI_Finalize no MPI call is safe; the thread dies with the process */
    mpi_detach(1);
    pthread_mutex_lock(&lock);
    closing = 1;
    if (ready != MPI_COMM_NULL)
        PMPI_Comm_free(&ready);
    pthread_mutex_unlock(&lock);
    pthread_detach(acceptor);
    acceptor_running = 0;
    free(sendbuf);
    sendbuf = NULL;
}

static const char *mpi_endpoint(void)
{
    return endpoint;
}

const mw_transport mw_mpiport_transport = {
    .name = "mpi", .poll_attach = mpi_poll_attach, .write = mpi_write, .busy = mpi_busy,
    .gone = mpi_gone, .detach = mpi_detach, .wait = mpi_wait, .shutdown = mpi_shutdown,
    .endpoint = mpi_endpoint};
