/* Reading the per-rank trace files that MPIWATCH_TRACE=1 writes
 * (docs/trace.md, "Format"). Files are untrusted: every length and id is
 * checked, and a file cut short (a job killed while writing) yields every
 * whole chunk before the cut. */
#ifndef MWC_TRACE_READ_H
#define MWC_TRACE_READ_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
    uint64_t t_in, t_out;      /* ticks of the rank's clock */
    uint64_t site;             /* the call site's return address (0 unknown) */
    uint64_t sent, recv;       /* bytes; with traffic only */
    uint32_t thread;
    int fn;                    /* index into the file's function table */
    int traffic;               /* peer, tag, comm, sent and recv are set */
    int peer, tag, comm;       /* world rank, tag, Fortran handle; -1 none */
} mwc_trace_call;

typedef struct {
    char *path;
    int rank, ranks;
    double per_second;         /* ticks per second */
    uint64_t origin;           /* ticks at the clock origin */
    uint64_t wall_ns;          /* the wall clock at the origin, ns since the epoch */
    char **names;              /* the function table */
    int nnames;
    mwc_trace_call *calls;     /* in file order: each thread's in its order */
    size_t ncalls, cap;
    uint64_t dropped;          /* calls the rank dropped (said in the file) */
    int truncated;             /* the file ends inside a chunk */
} mwc_trace_rank;

/* Read one file into *r (zeroed first). 0: read (perhaps truncated, or
 * with a bad chunk after which the rest was skipped: then err says why);
 * -1: not a readable trace file (err says why). Free with
 * mwc_trace_rank_free in both cases. */
int mwc_trace_read_file(const char *path, mwc_trace_rank *r, char *err, size_t errsize);

void mwc_trace_rank_free(mwc_trace_rank *r);

/* The files of one run: spec is a folder holding one run's files, or the
 * path up to ".trace." of one run. On success, *paths (malloc'd, each
 * malloc'd) lists them; returns the count, or -1 with err set. */
int mwc_trace_find(const char *spec, char ***paths, char *err, size_t errsize);

#endif
