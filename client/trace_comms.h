/* A job's communicators, named alike on every rank (docs/trace.md,
 * "Communicators"): each rank's records name a communicator by the rank's
 * own handle, which MPICH gives differently on different ranks; the files
 * say, for each communicator a rank created, its members and how many of
 * the same members the rank created before it (MWT_COMM), which is the
 * same on every member. */
#ifndef MWC_TRACE_COMMS_H
#define MWC_TRACE_COMMS_H

#include "trace_read.h"

typedef struct {
    /* Its identity as one of its members' files says it; NULL for a
     * communicator no file defines (MPI_COMM_WORLD, MPI_COMM_SELF, an
     * intercommunicator), known by its handle alone. */
    const mwc_trace_comm *def;
    int handle;                /* def NULL: the handle */
} mwc_job_comm;

/* A job's communicators as they are found, one entry each. */
typedef struct {
    mwc_job_comm *v;
    int n;
} mwc_comm_table;

/* The index in t of the communicator def defines (its identity: members and
 * how many of them were created before), or with def NULL of the one known
 * by its handle alone; added when new. -1: out of memory. */
int mwc_comm_table_id(mwc_comm_table *t, const mwc_trace_comm *def, int handle);

/* Replace the comm of every call of the n ranks' files (-1 stays -1) by an
 * index into *comms, one per communicator of the job, whichever rank names
 * it: a handle a file defined at the call's time by the definition's
 * identity, any other by its handle. *comms is malloc'd (its defs point
 * into the ranks' comms, which must outlive it). 0, or -1 out of memory. */
int mwc_trace_unify_comms(mwc_trace_rank *ranks, int n, mwc_job_comm **comms, int *ncomms);

/* The same from one rank's file alone (the wait-state analysis at
 * MPI_Finalize, where each rank reads only its own): replace the comm of
 * r's calls (-1 stays -1) by a key every member computes alike: for a
 * communicator the file defined at the call's time, its identity (members
 * and ordinal) hashed into [INT_MIN + 1, -2]; any other keeps its handle.
 * Two identities, or an identity and another communicator's handle, share a
 * key with odds of about 2^-31 a pair. 0, or -1 out of memory (nothing
 * changed). */
int mwc_trace_key_comms(mwc_trace_rank *r);

#endif
