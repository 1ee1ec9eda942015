#include "conn_mpi.h"

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpiwatch_protocol.h"
#include "util.h"

#define MSG_MAX (64u << 20) /* a message longer than this is a protocol error */

enum { M_NONE, M_NEW, M_STREAM, M_DONE };

struct mwc_mpi_peer {
    const mwc_endpoint *ep;
    int state;
    MPI_Comm inter;
    double since;          /* when connected: a rank that sends no HELLO */
};

static void mpi_why(int code, const char *what, char *out, size_t n)
{
    char msg[MPI_MAX_ERROR_STRING];
    int len = 0;
    if (MPI_Error_string(code, msg, &len) != MPI_SUCCESS)
        snprintf(msg, sizeof msg, "error %d", code);
    snprintf(out, n, "%s: %s", what, msg);
}

int mwc_mpi_init(mwc_mpi *m, mwc_session *s, const mwc_endpoints *l, double wait_s, int *argc,
                 char ***argv)
{
    memset(m, 0, sizeof *m);
    m->wait_s = wait_s;
    m->n = l->n;
    m->s = s;
    m->p = mwc_calloc(l->n, sizeof *m->p);
    int any = 0;
    for (size_t i = 0; i < l->n; i++)
        if (l->v[i].transport == MWC_MPI) {
            m->p[i].ep = &l->v[i];
            m->p[i].state = M_NEW;
            any = 1;
        }
    if (!any)
        return 0;
    int provided;
    if (MPI_Init_thread(argc, argv, MPI_THREAD_SINGLE, &provided) != MPI_SUCCESS) {
        fputs("mpiwatch: MPI_Init failed; the mpi transport is unavailable\n", stderr);
        return -1;
    }
    m->started = 1;
    /* Failures (a port that no longer exists) must come back as codes. */
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    return 0;
}

void mwc_mpi_connect(mwc_mpi *m)
{
    for (size_t i = 0; i < m->n; i++) {
        mwc_mpi_peer *p = &m->p[i];
        if (p->state != M_NEW)
            continue;
        char why[MPI_MAX_ERROR_STRING + 100];
        int rc = MPI_Comm_connect(p->ep->port_name, MPI_INFO_NULL, 0, MPI_COMM_SELF, &p->inter);
        if (rc != MPI_SUCCESS) {
            mpi_why(rc, "MPI_Comm_connect failed", why, sizeof why);
            p->state = M_DONE;
            mwc_session_closed(m->s, i, why);
            continue;
        }
        MPI_Comm_set_errhandler(p->inter, MPI_ERRORS_RETURN);
        rc = MPI_Send(p->ep->token, MWP_TOKEN_HEX, MPI_CHAR, 0, MWP_MPI_TAG_TOKEN, p->inter);
        if (rc != MPI_SUCCESS) {
            mpi_why(rc, "sending the token failed", why, sizeof why);
            MPI_Comm_free(&p->inter);
            p->state = M_DONE;
            mwc_session_closed(m->s, i, why);
            continue;
        }
        p->state = M_STREAM;
        p->since = mwc_now();
    }
}

/* After GOODBYE both sides disconnect; after an error we only free our
 * handle, since a disconnect would wait for a rank that may still send. */
static void close_peer(mwc_mpi_peer *p, int clean)
{
    if (clean)
        MPI_Comm_disconnect(&p->inter);
    else
        MPI_Comm_free(&p->inter);
    p->state = M_DONE;
}

void mwc_mpi_step(mwc_mpi *m)
{
    for (size_t i = 0; i < m->n; i++) {
        mwc_mpi_peer *p = &m->p[i];
        for (int rounds = 0; p->state == M_STREAM && rounds < 16; rounds++) {
            int flag = 0, count = 0;
            MPI_Status st;
            char why[MPI_MAX_ERROR_STRING + 100];
            int rc = MPI_Iprobe(0, MWP_MPI_TAG_FRAMES, p->inter, &flag, &st);
            if (rc == MPI_SUCCESS && !flag && !m->s->model.r[i].have_hello &&
                mwc_now() - p->since > m->wait_s) {
                /* A rank that refuses frees its side without a word; MPI
                 * gives no EOF, so silence past --wait is the refusal. */
                snprintf(why, sizeof why, "no HELLO within %g s (a wrong token, or another "
                         "client is attached)", m->wait_s);
                close_peer(p, 0);
                mwc_session_closed(m->s, i, why);
                break;
            }
            if (rc == MPI_SUCCESS && !flag)
                break;
            if (rc == MPI_SUCCESS)
                rc = MPI_Get_count(&st, MPI_BYTE, &count);
            if (rc != MPI_SUCCESS) {
                mpi_why(rc, "receiving failed", why, sizeof why);
                close_peer(p, 0);
                mwc_session_closed(m->s, i, why);
                break;
            }
            if (count < 0 || (unsigned)count > MSG_MAX) {
                snprintf(why, sizeof why, "protocol error: a message of %d bytes", count);
                close_peer(p, 0);
                mwc_session_lose(m->s, i, why);
                break;
            }
            if ((size_t)count > m->cap) {
                m->cap = (size_t)count;
                m->buf = mwc_realloc(m->buf, m->cap);
            }
            rc = MPI_Recv(m->buf, count, MPI_BYTE, 0, MWP_MPI_TAG_FRAMES, p->inter, MPI_STATUS_IGNORE);
            if (rc != MPI_SUCCESS) {
                mpi_why(rc, "receiving failed", why, sizeof why);
                close_peer(p, 0);
                mwc_session_closed(m->s, i, why);
                break;
            }
            if (mwc_session_data(m->s, i, m->buf, (size_t)count) != 0)
                close_peer(p, m->s->model.r[i].status == MWC_FINISHED);
        }
    }
}

int mwc_mpi_busy(const mwc_mpi *m)
{
    for (size_t i = 0; i < m->n; i++)
        if (m->p[i].state == M_NEW || m->p[i].state == M_STREAM)
            return 1;
    return 0;
}

void mwc_mpi_finalize(mwc_mpi *m)
{
    for (size_t i = 0; i < m->n; i++)
        if (m->p[i].state == M_STREAM)
            close_peer(&m->p[i], 0);
    if (m->started)
        MPI_Finalize();
    free(m->p);
    free(m->buf);
    memset(m, 0, sizeof *m);
}
