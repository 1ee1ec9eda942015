/* The runtime's process-wide state. */
#ifndef MW_STATE_H
#define MW_STATE_H

#include <mpi.h>
#include <stdint.h>

#include "mw_compiler.h"
#include "mw_tls.h"

enum { MW_FORMAT_TEXT = 1, MW_FORMAT_JSON = 2 };

typedef struct mw_config {
    char outdir[4096];       /* MPIWATCH_OUTDIR: where reports go */
    int initial_level;       /* MPIWATCH_LEVEL: 0 off, 1 on */
    const char *timer;       /* MPIWATCH_TIMER: auto, tsc, clock_gettime */
    int formats;             /* MPIWATCH_FORMATS: MW_FORMAT_* bits */
} mw_config;

typedef struct mw_process_state {
    int world_rank;          /* -1 until MPI_Init has returned */
    int world_size;
    int started;             /* mw_on_init has run */
    int finished;            /* the report has been written (or given up) */
    MPI_Comm comm;           /* private duplicate of MPI_COMM_WORLD for our reductions */
    MPI_Group world_group;   /* the group of MPI_COMM_WORLD, for rank translation */
    uint64_t start_ticks;    /* when the library was loaded: application time starts */
    char program[256];       /* the executable's name, safe in a file name */
    mw_config config;
} mw_process_state;

extern MW_HIDDEN mw_process_state mw_state;

/* Profiling level from MPI_Pcontrol: 0 off, nonzero on. Read on every call. */
extern MW_HIDDEN int mw_level;


/* Read MPIWATCH_* variables into config; warn about bad values if asked. */
MW_HIDDEN void mw_config_load(mw_config *config, int report_problems);

#endif
