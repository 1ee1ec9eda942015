/* Which MPI function plays which part in matching messages (the wait-state
 * analysis, docs/wait-states.md "The patterns", and the Perfetto arrows):
 * one list of names each. A large-count variant (MPI_Send_c) plays its
 * function's part. */
#ifndef MWC_WAIT_FUNCTIONS_H
#define MWC_WAIT_FUNCTIONS_H

#include <stdint.h>

/* A send, blocking or not: matched to a receive in order. */
int mww_fn_send(const char *name);

/* A send that waits for its receive to be posted: a synchronous one, or a
 * standard one of at least rendezvous_bytes (0: none); a non-blocking one
 * (MPI_Issend, MPI_Isend) waits in the call that completes it. */
int mww_fn_waits_for_receive(const char *name, uint64_t bytes, uint64_t rendezvous_bytes);

/* MPI_Isend, MPI_Issend, MPI_Ibsend, MPI_Irsend: a send whose request a
 * later call completes. */
int mww_fn_nonblocking_send(const char *name);

/* MPI_Recv: the receive a Late Sender makes wait. */
int mww_fn_blocking_receive(const char *name);

/* MPI_Irecv: a receive whose message is known at its completion, where
 * it waits. */
int mww_fn_nonblocking_receive(const char *name);

/* MPI_Wait, MPI_Waitall, MPI_Waitany, MPI_Waitsome: a completion that
 * blocks, so that a non-blocking receive it completed waited in it (an
 * MPI_Test returns at once; its folded polls span the work between them). */
int mww_fn_blocking_completion(const char *name);

/* A send-receive: one record for two messages. */
int mww_fn_send_receive(const char *name);

/* Another call that may receive (non-blocking, persistent, matched): a
 * rank's messages on its communicator are then not matched by order. */
int mww_fn_other_receive(const char *name);

/* The collective pattern (MWW_WAIT_NXN, ...) of a function's late
 * arrivals; -1 for a function that is no such collective. */
int mww_fn_collective_pattern(const char *name);

/* Counted as MPI time: not MPI_Init, MPI_Init_thread or MPI_Finalize (as
 * the report's rank_times). */
int mww_fn_mpi_time(const char *name);

/* A rooted collective's root: the one rank that sends (a broadcast, a
 * scatter), or the one that receives (a reduce, a gather); 0 for any
 * other function. */
enum { MWW_ROOT_SENDER = 1, MWW_ROOT_RECEIVER = 2 };
int mww_root_role(const char *function);

#endif
