/* The MPI-ports transport: MPI_Comm_connect to each rank's port (MPI is
 * started only when some endpoint uses it), the token as MPI_CHAR tag 1,
 * then the stream as MPI_BYTE messages with tag 2, each holding whole frames.
 * A rank that dies cannot be told from a quiet one here: MPI gives no EOF. */
#ifndef MWC_CONN_MPI_H
#define MWC_CONN_MPI_H

#include <stddef.h>

#include "endpoints.h"
#include "session.h"

typedef struct mwc_mpi_peer mwc_mpi_peer;

typedef struct {
    size_t n;
    mwc_mpi_peer *p;
    mwc_session *s;
    unsigned char *buf;
    size_t cap;
    int started;          /* MPI_Init was called by us */
    double wait_s;        /* --wait: how long a connected rank may stay silent */
} mwc_mpi;

/* Calls MPI_Init_thread only if l has an mpi endpoint. 0 ok, -1 printed. */
int mwc_mpi_init(mwc_mpi *m, mwc_session *s, const mwc_endpoints *l, double wait_s, int *argc,
                 char ***argv);
/* Connect to every mpi endpoint (blocking, one after the other). */
void mwc_mpi_connect(mwc_mpi *m);
/* Receive whatever has arrived, without blocking. */
void mwc_mpi_step(mwc_mpi *m);
int mwc_mpi_busy(const mwc_mpi *m);
/* Disconnect what is left and MPI_Finalize if we started MPI. */
void mwc_mpi_finalize(mwc_mpi *m);

#endif
