/* Builds protocol frames by hand (docs/protocol.md), for the unit tests, the
 * fake rank and the fuzz corpus. Written from the document, not from the
 * runtime, so the two sides are checked against the contract. */
#ifndef MWT_FRAMES_H
#define MWT_FRAMES_H

#include <stddef.h>
#include <stdint.h>

#include "decoder.h"

typedef struct { unsigned char *p; size_t len, cap; } mwt_buf;

void mwt_u8(mwt_buf *b, uint8_t v);
void mwt_u16(mwt_buf *b, uint16_t v);
void mwt_u32(mwt_buf *b, uint32_t v);
void mwt_u64(mwt_buf *b, uint64_t v);
void mwt_bytes(mwt_buf *b, const void *p, size_t n);
void mwt_str(mwt_buf *b, const char *s);
/* begin writes a length placeholder and the type; end patches the length. */
size_t mwt_begin(mwt_buf *b, uint8_t type);
void mwt_end(mwt_buf *b, size_t at);

void mwt_hello(mwt_buf *b, uint32_t rank, uint32_t size, uint32_t pid, uint64_t epoch,
               const char *host, const char *program, uint32_t n, const char *const *names);
void mwt_events(mwt_buf *b, uint32_t n, const mwc_event *ev);
void mwt_snapshot(mwt_buf *b, uint64_t t, uint64_t sent, uint64_t dropped, uint64_t unwatched,
                  uint32_t n, const mwc_entry *e);
void mwt_goodbye(mwt_buf *b, uint64_t t, uint64_t sent, uint64_t dropped);
void mwt_level(mwt_buf *b, uint64_t t, int32_t level);
void mwt_inflight(mwt_buf *b, uint64_t t, uint32_t n, const mwc_inflight *c);
void mwt_pairs(mwt_buf *b, uint64_t t, uint32_t n, const mwc_pair *p);

/* The scripted stream of a fake rank ("normal": hello, events, snapshot,
 * level 0 and 1, events, the final snapshot, goodbye; "lost": it stops after
 * the first events). Function ids are rotated by rank, so totals must be
 * merged by name. Totals over ranks 0..n-1: see check-client.sh. */
void mwt_script(mwt_buf *b, uint32_t rank, uint32_t size, int lost);

#endif
