/* The trace file's numbers (docs/trace.md, "Format"): varints (LEB128) and
 * zigzag varints for signed values. The one encoder, for the transcoder of
 * the chunks, the writer's header and the communicators' blocks. Internal
 * to trace/. */
#ifndef MW_TRACE_VARINT_H
#define MW_TRACE_VARINT_H

#include <stdint.h>

#include "core/compiler.h"

static MW_ALWAYS_INLINE unsigned char *mw_trace_put_varint(unsigned char *p, uint64_t v)
{
    while (v >= 0x80) {
        *p++ = (unsigned char)(v | 0x80);
        v >>= 7;
    }
    *p++ = (unsigned char)v;
    return p;
}

/* A signed value as an unsigned one that stays small for small magnitudes. */
static MW_ALWAYS_INLINE uint64_t mw_trace_zigzag(int64_t v)
{
    return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

static MW_ALWAYS_INLINE unsigned char *mw_trace_put_signed(unsigned char *p, int64_t v)
{
    return mw_trace_put_varint(p, mw_trace_zigzag(v));
}

#endif
