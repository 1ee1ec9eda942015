/* The partial profile's helper thread and its triggers
 * (lifecycle/partial_dumper.c). */
#ifndef MW_LIFECYCLE_PARTIAL_DUMPER_H
#define MW_LIFECYCLE_PARTIAL_DUMPER_H

#include "core/compiler.h"

/* At the end of MPI_Init: the thread, its timers (MPIWATCH_DUMP_AT,
 * MPIWATCH_DUMP_EVERY) and the handlers of MPIWATCH_DUMP_SIGNALS. Nothing
 * when reports are off (MPIWATCH_FORMATS=none). */
MW_HIDDEN void mw_dumper_start(void);
/* At MPI_Finalize, before the report: the thread ends (a dump under way is
 * finished first) and the handlers only pass signals on from now on. */
MW_HIDDEN void mw_dumper_stop(void);
/* After this rank's dump at exit: wait, at most a second, for the node's
 * other ranks' partial profiles written since `since_seconds` ago (the
 * launcher may kill them once this rank is gone). */
MW_HIDDEN void mw_dumper_wait_for_node(int since_seconds);

#endif
