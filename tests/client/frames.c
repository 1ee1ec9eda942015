#include "frames.h"

#include <stdlib.h>
#include <string.h>

/* The frame types, as docs/protocol.md numbers them: written from the
 * document, not from include/mpiwatch_protocol.h, so that a change of the
 * header that the document does not describe fails the client's tests. */
enum { T_HELLO = 1, T_EVENTS = 2, T_SNAPSHOT = 3, T_GOODBYE = 4, T_LEVEL = 5, T_INFLIGHT = 6,
       T_PAIRS = 7 };

void mwt_bytes(mwt_buf *b, const void *p, size_t n)
{
    if (b->len + n > b->cap) {
        b->cap = (b->len + n) * 2 + 64;
        b->p = realloc(b->p, b->cap);
        if (!b->p)
            abort();
    }
    if (n)
        memcpy(b->p + b->len, p, n);
    b->len += n;
}

static void le(mwt_buf *b, uint64_t v, int n)
{
    unsigned char x[8];
    for (int i = 0; i < n; i++)
        x[i] = (unsigned char)(v >> (8 * i));
    mwt_bytes(b, x, (size_t)n);
}

void mwt_u8(mwt_buf *b, uint8_t v) { le(b, v, 1); }
void mwt_u16(mwt_buf *b, uint16_t v) { le(b, v, 2); }
void mwt_u32(mwt_buf *b, uint32_t v) { le(b, v, 4); }
void mwt_u64(mwt_buf *b, uint64_t v) { le(b, v, 8); }

void mwt_str(mwt_buf *b, const char *s)
{
    size_t n = strlen(s);
    mwt_u16(b, (uint16_t)n);
    mwt_bytes(b, s, n);
}

size_t mwt_begin(mwt_buf *b, uint8_t type)
{
    size_t at = b->len;
    mwt_u32(b, 0);
    mwt_u8(b, type);
    return at;
}

void mwt_end(mwt_buf *b, size_t at)
{
    uint32_t n = (uint32_t)(b->len - at - 4);
    for (int i = 0; i < 4; i++)
        b->p[at + (size_t)i] = (unsigned char)(n >> (8 * i));
}

void mwt_hello(mwt_buf *b, uint32_t rank, uint32_t size, uint32_t pid, uint64_t epoch,
               const char *host, const char *program, uint32_t n, const char *const *names)
{
    size_t at = mwt_begin(b, T_HELLO);
    mwt_u16(b, 1);
    mwt_u32(b, rank);
    mwt_u32(b, size);
    mwt_u32(b, pid);
    mwt_u64(b, epoch);
    mwt_str(b, host);
    mwt_str(b, program);
    mwt_str(b, "clock_gettime(CLOCK_MONOTONIC)");
    mwt_str(b, "Fake MPI 1.0, MPI 4.1");
    mwt_u32(b, n);
    for (uint32_t i = 0; i < n; i++)
        mwt_str(b, names[i]);
    mwt_end(b, at);
}

void mwt_events(mwt_buf *b, uint32_t n, const mwc_event *ev)
{
    size_t at = mwt_begin(b, T_EVENTS);
    mwt_u32(b, n);
    for (uint32_t i = 0; i < n; i++) {
        mwt_u32(b, ev[i].function);
        mwt_u32(b, ev[i].thread);
        mwt_u64(b, ev[i].t_in);
        mwt_u64(b, ev[i].t_out);
        mwt_u32(b, (uint32_t)ev[i].peer);
        mwt_u32(b, (uint32_t)ev[i].tag);
        mwt_u32(b, (uint32_t)ev[i].comm);
        mwt_u32(b, ev[i].flags);
        mwt_u64(b, ev[i].sent);
        mwt_u64(b, ev[i].recv);
    }
    mwt_end(b, at);
}

void mwt_snapshot(mwt_buf *b, uint64_t t, uint64_t sent, uint64_t dropped, uint64_t unwatched,
                  uint32_t n, const mwc_entry *e)
{
    size_t at = mwt_begin(b, T_SNAPSHOT);
    mwt_u64(b, t);
    mwt_u64(b, sent);
    mwt_u64(b, dropped);
    mwt_u64(b, unwatched);
    mwt_u32(b, n);
    for (uint32_t i = 0; i < n; i++) {
        mwt_u32(b, e[i].function);
        mwt_u64(b, e[i].calls);
        mwt_u64(b, e[i].time);
        mwt_u64(b, e[i].sent);
        mwt_u64(b, e[i].recv);
    }
    mwt_end(b, at);
}

void mwt_goodbye(mwt_buf *b, uint64_t t, uint64_t sent, uint64_t dropped)
{
    size_t at = mwt_begin(b, T_GOODBYE);
    mwt_u64(b, t);
    mwt_u64(b, sent);
    mwt_u64(b, dropped);
    mwt_end(b, at);
}

void mwt_level(mwt_buf *b, uint64_t t, int32_t level)
{
    size_t at = mwt_begin(b, T_LEVEL);
    mwt_u64(b, t);
    mwt_u32(b, (uint32_t)level);
    mwt_end(b, at);
}

/* INFLIGHT: u64 t, u32 n, then 40-byte records: function, thread (u32),
 * t_in (u64), peer, tag, root, comm, comm_size (i32), flags (u32). */
void mwt_inflight(mwt_buf *b, uint64_t t, uint32_t n, const mwc_inflight *c)
{
    size_t at = mwt_begin(b, T_INFLIGHT);
    mwt_u64(b, t);
    mwt_u32(b, n);
    for (uint32_t i = 0; i < n; i++) {
        mwt_u32(b, c[i].function);
        mwt_u32(b, c[i].thread);
        mwt_u64(b, c[i].t_in);
        mwt_u32(b, (uint32_t)c[i].peer);
        mwt_u32(b, (uint32_t)c[i].tag);
        mwt_u32(b, (uint32_t)c[i].root);
        mwt_u32(b, (uint32_t)c[i].comm);
        mwt_u32(b, (uint32_t)c[i].comm_size);
        mwt_u32(b, c[i].flags);
    }
    mwt_end(b, at);
}

/* PAIRS: u64 t, u32 n, then 20-byte records: to (u32), bytes, messages (u64). */
void mwt_pairs(mwt_buf *b, uint64_t t, uint32_t n, const mwc_pair *p)
{
    size_t at = mwt_begin(b, T_PAIRS);
    mwt_u64(b, t);
    mwt_u32(b, n);
    for (uint32_t i = 0; i < n; i++) {
        mwt_u32(b, p[i].to);
        mwt_u64(b, p[i].bytes);
        mwt_u64(b, p[i].messages);
    }
    mwt_end(b, at);
}

enum { F_INIT, F_SEND, F_RECV, F_BARRIER, F_FINALIZE, NF };
static const char *const fnames[NF] = { "MPI_Init", "MPI_Send", "MPI_Recv", "MPI_Barrier",
                                        "MPI_Finalize" };

void mwt_script(mwt_buf *b, uint32_t rank, uint32_t size, int lost)
{
    /* Rank r numbers function f as (f + r) % NF. */
    const char *names[NF];
    uint32_t id[NF];
    for (uint32_t f = 0; f < NF; f++) {
        id[f] = (f + rank) % NF;
        names[id[f]] = fnames[f];
    }
    uint64_t k = rank + 1;
    mwt_hello(b, rank, size, 4000 + rank, 1700000000123456789ull, "fakehost", "fake \"app\"",
              NF, names);
    mwc_event ev[3] = {
        { id[F_SEND], 0, 1000, 1000 + 200 * k, (int32_t)((rank + 1) % size), 7, 0, 1, 8 * k, 0 },
        { id[F_RECV], 1, 2000, 2300, (int32_t)((rank + size - 1) % size), 7, 0, 1, 0, 8 * k },
        { id[F_BARRIER], 0, 3000, 3250, -1, -1, 0, 0, 0, 0 },
    };
    mwt_events(b, 3, ev);
    mwc_entry first[2] = { { id[F_INIT], 1, 1000000 * k, 0, 0 }, { id[F_SEND], 1, 200 * k, 8 * k, 0 } };
    mwt_snapshot(b, 1000000000, 3, 0, 5, 2, first);
    if (lost)
        return;
    mwt_level(b, 1100000000, 0);
    mwt_level(b, 1200000000, 1);
    mwt_events(b, 3, ev);
    mwc_entry last[NF] = {
        { id[F_SEND], 10 * k, 2000 * k, 80 * k, 0 },
        { id[F_INIT], 1, 1000000 * k, 0, 0 },
        { id[F_RECV], 10 * k, 3000 * k, 0, 80 * k },
        { id[F_BARRIER], 2, 500, 0, 0 },
        { id[F_FINALIZE], 1, 0, 0, 0 },
    };
    mwt_snapshot(b, 2000000000, 6, rank, 5, NF, last);
    mwt_goodbye(b, 2000000001, 6, rank);
}
