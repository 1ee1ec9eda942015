/* The configuration read from MPIWATCH_* variables (core/config.c). */
#ifndef MW_CORE_CONFIG_H
#define MW_CORE_CONFIG_H

#include <stdint.h>

#include "core/compiler.h"

enum { MW_FORMAT_TEXT = 1, MW_FORMAT_JSON = 2, MW_FORMAT_HTML = 4 };

typedef struct mw_config {
    char outdir[4096];       /* MPIWATCH_OUTDIR: where reports go */
    int initial_level;       /* MPIWATCH_LEVEL: 0 off, 1 on */
    const char *timer;       /* MPIWATCH_TIMER: auto, tsc, clock_gettime */
    int formats;             /* MPIWATCH_FORMATS: MW_FORMAT_* bits */
    int callsite_depth;      /* MPIWATCH_CALLSITE_DEPTH: return addresses per call site */
    uint64_t dump_signals;   /* MPIWATCH_DUMP_SIGNALS: bit s for signal s (core/dump_options.h) */
    double dump_at;          /* MPIWATCH_DUMP_AT: seconds after MPI_Init, 0 for never */
    double dump_every;       /* MPIWATCH_DUMP_EVERY: seconds between dumps, 0 for never */
    double dump_peers_wait;  /* MPIWATCH_DUMP_PEERS_WAIT: seconds an ending rank waits for its
                                peers' profiles (lifecycle/peer_dumps.c), 0 for no request */
    int trace;               /* MPIWATCH_TRACE: 0 off, 1 on (docs/trace.md) */
    char trace_dir[4096];    /* MPIWATCH_TRACE_DIR: where trace files go (outdir by default) */
    unsigned long long trace_buffer;   /* MPIWATCH_TRACE_BUFFER: bytes of trace chunks held */
    char label[128];         /* MPIWATCH_LABEL: the run's name in the reports, "" for none */
    int trace_rank;          /* MPIWATCH_TRACE_RANKS lists this rank (or is unset) */
    int trace_otf2;          /* MPIWATCH_TRACE_OTF2: the OTF2 archive at MPI_Finalize, 0 or 1 */
} mw_config;

/* Read MPIWATCH_* variables into config; warn about bad values if asked. */
MW_HIDDEN void mw_config_load(mw_config *config, int report_problems);

#endif
