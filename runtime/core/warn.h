/* Warnings to stderr: the runtime never aborts the user's job, it says what
 * went wrong and carries on. */
#ifndef MW_WARN_H
#define MW_WARN_H

#include "core/compiler.h"

/* Print "mpiwatch: warning: <message>" (with the rank once known) to stderr. */
MW_HIDDEN void mw_warn(const char *fmt, ...) MW_PRINTF(1, 2);

#endif
