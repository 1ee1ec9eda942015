/* Call sites as OTF2 SourceCodeLocation definitions (mpiwatch --trace DIR
 * --otf2 OUT --exe PROGRAM): each return address of the trace resolved
 * once to file and line by client/site_lines.c, one definition per
 * distinct file and line. */
#ifndef MWC_OTF2_SITES_H
#define MWC_OTF2_SITES_H

#include <otf2/otf2.h>
#include <stddef.h>
#include <stdint.h>

typedef struct mwc_otf2_sites mwc_otf2_sites;

/* NULL with why set when the program cannot name sites (site_lines.h). */
mwc_otf2_sites *mwc_otf2_sites_open(const char *program, char *why, size_t whysize);

/* The definition of a return address's file and line, or
 * OTF2_UNDEFINED_SOURCE_CODE_LOCATION (not known, or out of memory). */
OTF2_SourceCodeLocationRef mwc_otf2_sites_of(mwc_otf2_sites *s, uint64_t address);

/* The definitions, with their file names as strings numbered from
 * first_string; returns the next free string id. */
uint32_t mwc_otf2_sites_define(const mwc_otf2_sites *s, OTF2_GlobalDefWriter *d,
                               uint32_t first_string);

/* How many call sites have a definition. */
size_t mwc_otf2_sites_count(const mwc_otf2_sites *s);

void mwc_otf2_sites_close(mwc_otf2_sites *s);

#endif
