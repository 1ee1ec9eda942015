/* The runtime's process-wide state (core/state.c). */
#ifndef MW_STATE_H
#define MW_STATE_H

#include <mpi.h>
#include <stdint.h>

#include "core/compiler.h"
#include "core/config.h"

typedef struct mw_process_state {
    int world_rank;          /* -1 until MPI_Init has returned */
    int world_size;
    int started;             /* mw_on_init has run */
    int finished;            /* the report has been written (or given up) */
    MPI_Comm comm;           /* private duplicate of MPI_COMM_WORLD: see mw_private_comm */
    MPI_Group world_group;   /* the group of MPI_COMM_WORLD, for rank translation */
    uint64_t start_ticks;    /* when the library was loaded */
    long long start_wall;    /* the same, in seconds since the epoch */
    uint64_t app_start_ticks;  /* the end of MPI_Init (after any MPIWATCH_WAIT): application
                                * time runs from here to the start of MPI_Finalize */
    char program[256];       /* the executable's name, safe in a file name */
    mw_config config;
} mw_process_state;

extern MW_HIDDEN mw_process_state mw_state;

/* Where application time starts: the end of MPI_Init, or the library's load
 * when MPI_Init was never seen. */
static inline uint64_t mw_app_start(void)
{
    return mw_state.app_start_ticks ? mw_state.app_start_ticks : mw_state.start_ticks;
}

/* The runtime's own communicator, a duplicate of MPI_COMM_WORLD that returns
 * errors, so that our collectives never match the application's messages nor
 * abort the job; MPI_COMM_NULL if it cannot be made. Made on first use, which
 * is collective: at MPI_Finalize for the report, or in MPI_Init when the
 * monitor publishes its endpoints, at the same point on every rank. Never
 * made earlier: a communicator created in MPI_Init shifts the context ids of
 * the program's own, and Open MPI 4.1's treematch then hangs some
 * MPI_Dist_graph_create calls with reorder on (tests/runtime/distgraph.c). */
MW_HIDDEN MPI_Comm mw_private_comm(void);

/* Profiling level from MPI_Pcontrol: 0 off, nonzero on. Read on every call. */
extern MW_HIDDEN int mw_level;


/* Set by the Fortran library when it attaches (fortran/bridge.c): which
 * layer the MPI's Fortran binding calls, for the report; NULL without it. */
extern MW_HIDDEN const char *mw_fortran_layers;

#endif
