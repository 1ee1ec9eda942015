/* --record / --replay: the bytes each rank sent, as they arrived.
 *
 * File layout (all integers little-endian):
 *   header   "MPIWATCH-RECORD\n" (16 bytes), u32 version (1), u32 slots,
 *            then per slot: i32 endpoint rank (-1 unknown), u16 length +
 *            bytes of the endpoint's description
 *   records  u8 kind, u32 slot, u64 t (ns since the recording started),
 *            u32 length, then length bytes:
 *              kind 1 DATA    bytes received from the slot's rank
 *              kind 2 CLOSED  the connection ended (or was never made);
 *                             the bytes are the reason, as reported
 * A recording cut short (the client was killed) ends in the middle of a
 * record; the reader reports that with its offset. */
#ifndef MWC_RECORD_H
#define MWC_RECORD_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define MWC_RECORD_MAGIC "MPIWATCH-RECORD\n"
#define MWC_REC_DATA 1
#define MWC_REC_CLOSED 2
#define MWC_REC_MAX (16u << 20) /* longest record a reader accepts */
#define MWC_REC_SLOTS_MAX (1u << 24)

typedef struct {
    FILE *f;
    double t0;
    int failed;
} mwc_recorder;

/* Writers. Errors are reported once on stderr; the watch goes on. */
int mwc_record_open(mwc_recorder *w, const char *path, uint32_t slots, const int *ranks,
                    char *const *descs);
void mwc_record(mwc_recorder *w, int kind, uint32_t slot, const void *data, size_t n);
void mwc_record_flush(mwc_recorder *w);
int mwc_record_close(mwc_recorder *w);

typedef struct {
    FILE *f;
    const char *name;
    uint64_t offset;
    uint32_t slots;
    int *ranks;
    char **descs;
    unsigned char *buf;
    size_t cap;
    char error[256];
} mwc_replay;

typedef struct {
    int kind;
    uint32_t slot;
    uint64_t t;
    const unsigned char *data; /* valid until the next call */
    uint32_t len;
} mwc_rec;

/* Reads the header from an open stream (name is for messages). 0 or -1. */
int mwc_replay_open(mwc_replay *r, FILE *f, const char *name);
/* 1: *rec holds the next record; 0: clean end of file; -1: corrupt (r->error). */
int mwc_replay_next(mwc_replay *r, mwc_rec *rec);
void mwc_replay_close(mwc_replay *r);

#endif
