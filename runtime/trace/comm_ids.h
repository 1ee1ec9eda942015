/* Communicators named alike on every rank (docs/trace.md, "Communicators"):
 * records name a communicator by the rank's own handle, which MPICH gives
 * differently on different ranks. When a call creates an intracommunicator,
 * the rank writes its identity in the file: its group of world ranks and
 * how many communicators of that same group the rank created before it,
 * which every member counts alike, since members create communicators of
 * one group in the same order. Part of the wrappers' API (mw_wrap.h). */
#ifndef MW_TRACE_COMM_IDS_H
#define MW_TRACE_COMM_IDS_H

#include <mpi.h>
#include <stddef.h>

#include "core/compiler.h"

/* A call of the slow body, while the trace records, created comm (not by
 * MPI_Comm_idup, whose communicator may not be used before it completes):
 * queue its identity for the file. Intercommunicators and MPI_COMM_NULL
 * are left out (their records keep the rank's handle). */
MW_HIDDEN MW_NOINLINE void mw_trace_comm_created(MPI_Comm comm);

/* The writer's side: every identity queued (MWT_COMM blocks, one after
 * another), malloc'd, its size in *size; NULL when none. */
MW_HIDDEN unsigned char *mw_trace_comms_take(size_t *size);

#endif
