/* When a rank writes its partial profile (core/dump_options.c): the signals
 * of MPIWATCH_DUMP_SIGNALS, and the times of MPIWATCH_DUMP_AT and
 * MPIWATCH_DUMP_EVERY. */
#ifndef MW_CORE_DUMP_OPTIONS_H
#define MW_CORE_DUMP_OPTIONS_H

#include <stdint.h>

#include "core/compiler.h"

/* The signals a batch system ends a job with, and its warning signals; and
 * CONT, which Open MPI's mpirun sends its ranks 1 s before it ends them with
 * TERM followed by KILL a few milliseconds later (too soon for a loaded
 * rank to write its file after the TERM alone). */
#define MW_DUMP_SIGNALS_DEFAULT "TERM,INT,XCPU,USR1,USR2,CONT"

/* A comma-separated list of signal names (TERM or SIGTERM) or numbers, or
 * "none", as a mask with bit s set for signal s; the default list when
 * unset. A bad entry is left out, with one warning naming it when loud. */
MW_HIDDEN uint64_t mw_dump_signals(const char *var, int loud);

/* A number of seconds > 0; 0 when unset, or (with a warning when loud)
 * when it is not such a number. */
MW_HIDDEN double mw_dump_seconds(const char *var, int loud);

/* MPIWATCH_DUMP_PEERS_WAIT's default: seconds a rank ending its job (MPI_Abort,
 * a fault) waits for its peers' partial profiles. */
#define MW_DUMP_PEERS_WAIT_DEFAULT 2.0

/* A number of seconds >= 0 (0: off), MW_DUMP_PEERS_WAIT_DEFAULT when unset
 * or (with a warning when loud) when it is not such a number. */
MW_HIDDEN double mw_dump_wait(const char *var, int loud);

/* "SIGTERM" for SIGTERM, "signal 40" for one without a name here. */
MW_HIDDEN const char *mw_signal_name(int sig, char *buf, int size);

#endif
