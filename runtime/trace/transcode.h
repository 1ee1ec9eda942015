/* The writer's side of the chunks: a chunk's raw records (trace/raw.h)
 * encoded as the trace file has them (docs/trace.md, "Format"). Internal to
 * trace/. */
#ifndef MW_TRACE_TRANSCODE_H
#define MW_TRACE_TRANSCODE_H

#include <stddef.h>
#include <stdint.h>

#include "core/compiler.h"
#include "trace/chunks.h"
#include "trace/raw.h"

/* The bytes an encoded chunk may take (the size of transcode's out). */
#define MW_TRACE_CODED_BYTES MW_RAW_CODED_MAX(MW_TRACE_CHUNK_BYTES)

/* Encode c's records into out (MW_TRACE_CODED_BYTES): times and sites as
 * deltas from the previous record of the chunk, an entry earlier than the
 * previous one (a clock that stepped back) taken as the previous, varints;
 * a function as file_id[its id] (the number the file gave its name), or as
 * its id when file_id is NULL. Returns the bytes written; *first_t is the
 * first call's entry (0 for a chunk that only counts dropped calls). */
MW_HIDDEN size_t mw_trace_transcode(const mw_trace_chunk *c, unsigned char *out,
                                    uint64_t *first_t, const uint16_t *file_id);

#endif
