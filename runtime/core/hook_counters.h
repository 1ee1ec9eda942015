/* Named counters that hooks (or the program) add to (core/hook_counters.c),
 * summed over the ranks in the report (report/job_counters.c). */
#ifndef MW_CORE_COUNTERS_H
#define MW_CORE_COUNTERS_H

#include <stdint.h>

#include "core/compiler.h"

#define MW_MAX_COUNTERS 64
#define MW_COUNTER_NAME 48

/* This process's counters so far: names[i] and values[i] for i < the
 * returned count. */
MW_HIDDEN int mw_counters_read(char names[][MW_COUNTER_NAME], int64_t *values, int max);

#endif
