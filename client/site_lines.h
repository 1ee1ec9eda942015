/* Call sites of a trace to function, file and line, after the job, from the
 * executable on disk (mpiwatch --exe PROGRAM), with elfutils' libdw loaded
 * at run time as the runtime's resolver does (runtime/report/resolve.c).
 * A trace records return addresses; they name a line of a program linked
 * without PIE as they are. A position-independent program or a shared
 * library is loaded at an address the trace does not record yet, so its
 * sites stay addresses (docs/wait-states.md, Status). */
#ifndef MWC_SITE_LINES_H
#define MWC_SITE_LINES_H

#include <stddef.h>
#include <stdint.h>

typedef struct mwc_site_lines mwc_site_lines;

/* NULL with why set when the program cannot be used (no libdw, not an
 * ELF file, position-independent). */
mwc_site_lines *mwc_site_lines_open(const char *program, char *why, size_t whysize);

/* "file:line" (or the enclosing function, or the address) of a return
 * address into out. lines may be NULL: the address. */
void mwc_site_lines_name(mwc_site_lines *lines, uint64_t address, char *out, size_t outsize);

/* The file (its base name) and line of a return address: 1, or 0 when
 * not known (lines NULL, outside the program, no line information). */
int mwc_site_lines_where(mwc_site_lines *lines, uint64_t address, char *file, size_t filesize,
                         int *line);

void mwc_site_lines_close(mwc_site_lines *lines);

#endif
