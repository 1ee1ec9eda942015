/* The TCP transport: one non-blocking connection per rank, all served by one
 * poll() loop. Ranks that are not listening yet (connection refused) are
 * retried every 200 ms until --wait runs out. */
#ifndef MWC_CONN_TCP_H
#define MWC_CONN_TCP_H

#include <stddef.h>

#include "endpoints.h"
#include "session.h"

typedef struct mwc_tcp_peer mwc_tcp_peer;

typedef struct {
    size_t n;
    mwc_tcp_peer *p;
    mwc_session *s;
    double deadline;      /* ranks not reached by then are lost */
    double wait_s;
    double stall_s;       /* --stall: HELLO, silence and unfinished-frame deadline */
    unsigned char *rbuf;
    unsigned long full_reads;  /* reads that filled rbuf: more was waiting (a backlog) */
} mwc_tcp;

/* Takes the tcp endpoints of l; endpoint i is session slot i. */
void mwc_tcp_init(mwc_tcp *t, mwc_session *s, const mwc_endpoints *l, double wait_s,
                  double stall_s);
void mwc_tcp_free(mwc_tcp *t);
/* Nonzero while some connection is open or still to be made. */
int mwc_tcp_busy(const mwc_tcp *t);
/* One round: connect, send tokens, read, for at most timeout_ms. extra_fd
 * (or -1) is polled for input too; *extra_ready says whether it has some. */
void mwc_tcp_step(mwc_tcp *t, int timeout_ms, int extra_fd, int *extra_ready);
/* 1 when every TCP endpoint refused every connection (nothing listens:
 * endpoints from a job that has ended). */
int mwc_tcp_all_refused(const mwc_tcp *t);
/* Close everything (interrupted). */
void mwc_tcp_close_all(mwc_tcp *t);

#endif
