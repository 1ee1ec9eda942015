/* The OTF2 converter's parts (client/trace_otf2.c) that the archive written
 * by every rank at MPI_Finalize (client/otf2_parallel.c) shares with it, so
 * that both write the same archive: one rank's events, the global
 * definitions, and the numbering of regions. */
#ifndef MWC_TRACE_OTF2_PARTS_H
#define MWC_TRACE_OTF2_PARTS_H

#include <otf2/otf2.h>
#include <stddef.h>
#include <stdint.h>

#include "otf2_comms.h"
#include "otf2_sites.h"
#include "trace_job.h"

/* The functions called in the run, one region each, in the order of their
 * first call (the others are not defined); looked up by name across files. */
typedef struct {
    char **names;
    int n;
    mwc_otf2_comms *comms;   /* the job's communicators events name */
    mwc_otf2_sites *sites;   /* the call sites' source code locations; NULL none */
} mwc_otf2_regions;

/* A location (a rank's thread) and how many events it has. */
typedef struct {
    uint32_t thread;
    uint64_t events;
} mwc_otf2_location;

/* Every flush allowed, no timestamp taken (the events are already timed). */
extern OTF2_FlushCallbacks mwc_otf2_flush_callbacks;

/* The region of a function's name (a named region's: "@" and its name),
 * numbered at its first use from 0 (g keeps a copy); -1 out of memory. */
int mwc_otf2_region_of(mwc_otf2_regions *g, const char *name);

/* Free g's names (copied by mwc_otf2_region_of) and its communicators. */
void mwc_otf2_regions_free(mwc_otf2_regions *g);

/* Rank k's events, one location per thread (*locs, *nlocs), numbering in g
 * the regions and communicators they use, *last_ns raised to the latest
 * time; 0, or -1 (said on stderr). */
int mwc_otf2_write_rank(OTF2_Archive *archive, const mwc_trace_job *j, int k,
                        mwc_otf2_regions *g, mwc_otf2_location **locs, size_t *nlocs,
                        uint64_t *last_ns);

/* The global definitions of j's nranks ranks' locations (locs[k], nlocs[k]),
 * g's regions and communicators; j's comms, base_ns and shift_ns are read. */
void mwc_otf2_write_definitions(OTF2_Archive *archive, const mwc_trace_job *j,
                                const mwc_otf2_regions *g, mwc_otf2_location **locs,
                                const size_t *nlocs, uint64_t last_ns);

#endif
