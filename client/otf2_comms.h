/* The job's communicators as OTF2 Comm definitions, each with its own group
 * (docs/trace.md, "OTF2"): one a file defined (trace_comms.h) has a group
 * of type COMM_GROUP listing its members, world ranks in its rank order
 * (OTF2 indexes them into the COMM_LOCATIONS group, a location per world
 * rank), and the ranks its events name (peers, roots) are ranks within it,
 * as OTF2 defines them. One known by its handle alone (MPI_COMM_WORLD, an
 * intercommunicator, ...), or whose members are not distinct ranks of the
 * job (a damaged file), has MPI_COMM_WORLD's group, ranks being world
 * ranks. Comm 0 is the one of calls that recorded none. Only the
 * communicators events use are defined, numbered in their first use. */
#ifndef MWC_OTF2_COMMS_H
#define MWC_OTF2_COMMS_H

#include <otf2/otf2.h>

#include "trace_job.h"

/* The location of a rank's thread (thread 0's is in the COMM_LOCATIONS group). */
#define MWC_OTF2_LOCATION(rank, thread) (((uint64_t)(rank) << 32) | (uint64_t)(thread))

typedef struct mwc_otf2_comms mwc_otf2_comms;

/* NULL: out of memory. j must outlive it. */
mwc_otf2_comms *mwc_otf2_comms_new(const mwc_trace_job *j);

/* The OTF2 comm of the job's communicator id, numbered at its first use
 * from 1; -1 out of memory. */
int mwc_otf2_comms_ref(mwc_otf2_comms *c, int id);

/* How many comms were numbered, and the job's communicator of ref (1 to
 * that count). */
int mwc_otf2_comms_count(const mwc_otf2_comms *c);
int mwc_otf2_comms_id(const mwc_otf2_comms *c, int ref);

/* Where a call of world rank self on the job's communicator id (-1: none)
 * names world rank peer (-1: none): *comm its OTF2 comm, *rank peer's
 * rank in it (-1 for -1). When self or peer is not a member (files that
 * disagree), the comm of calls that recorded none, with world ranks.
 * 0, or -1 out of memory. */
int mwc_otf2_comms_place(mwc_otf2_comms *c, int id, int self, int peer, OTF2_CommRef *comm,
                         int *rank);

/* The groups (the COMM_LOCATIONS group: world rank R's thread-0 location,
 * then the communicators' groups) and the comms, their names
 * strings numbered from first_string; returns the next free string id. */
uint32_t mwc_otf2_comms_define(const mwc_otf2_comms *c, OTF2_GlobalDefWriter *d,
                               uint32_t first_string);

void mwc_otf2_comms_free(mwc_otf2_comms *c);

#endif
