/* Small helpers shared by the client's files: clocks, allocation that
 * cannot fail silently, little-endian reads, and exact ns -> seconds text. */
#ifndef MWC_UTIL_H
#define MWC_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Seconds on CLOCK_MONOTONIC: the client's own timeouts and elapsed time. */
double mwc_now(void);
void mwc_sleep(double seconds);

/* Out of memory ends the client with a message: every size passed here is
 * bounded by the protocol's limits, so running out is not recoverable. */
void *mwc_malloc(size_t n);
void *mwc_calloc(size_t n, size_t size);
void *mwc_realloc(void *p, size_t n);
char *mwc_strndup(const char *s, size_t n);

static inline uint16_t mwc_le16(const unsigned char *p)
{
    return (uint16_t)(p[0] | (p[1] << 8));
}
static inline uint32_t mwc_le32(const unsigned char *p)
{
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}
static inline uint64_t mwc_le64(const unsigned char *p)
{
    return (uint64_t)mwc_le32(p) | ((uint64_t)mwc_le32(p + 4) << 32);
}

/* Make s safe for a terminal, in place: every byte outside printable ASCII
 * (controls, escape sequences, C1 controls in any encoding) becomes '?'.
 * Strings from the wire and the port file pass here before a terminal. */
char *mwc_printable(char *s);

/* Nanoseconds printed as seconds with all nine decimals ("12.000000345"):
 * exact, unlike a double, so JSON output is reproducible. */
void mwc_print_ns(FILE *out, uint64_t ns);

#endif
