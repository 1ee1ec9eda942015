/* Reading the per-rank trace files that MPIWATCH_TRACE=1 writes
 * (docs/trace.md, "Format"). Files are untrusted: every length and id is
 * checked, and a file cut short (a job killed while writing) yields every
 * whole chunk before the cut. */
#ifndef MWC_TRACE_READ_H
#define MWC_TRACE_READ_H

#include <stddef.h>
#include <stdint.h>

#include "mpiwatch_clock.h"

typedef struct {
    uint64_t t_in, t_out;      /* ticks of the rank's clock */
    uint64_t site;             /* the call site's return address (0 unknown) */
    uint64_t sent, recv;       /* bytes; with traffic only */
    uint32_t thread;
    int fn;                    /* function id: names[fn] is never NULL */
    int traffic;               /* peer, tag, comm, sent and recv are set */
    int peer, tag, comm;       /* world rank, tag, communicator; -1 none. The
                                * communicator is the rank's Fortran handle as read,
                                * the job's communicator once mwc_trace_job_read
                                * has unified them (trace_comms.h) */
    int root;                  /* a rooted collective's root, world rank; -1 none */
    uint64_t request;          /* the request a non-blocking call started (the rank's
                                * trace id, from 1); 0 none */
    uint64_t count;            /* the calls this record stands for: 1, or the polls
                                * that found nothing folded into it (t_in of the
                                * first, t_out of the last) */
    size_t first_done;         /* the requests it completed: the rank's done[] */
    uint32_t ndone;            /* from first_done on */
} mwc_trace_call;

/* A request a call completed, with its status for a receive (source as a
 * world rank, tag, bytes; -1, -1, 0 when not known). */
typedef struct {
    uint64_t request;
    int source, tag;
    uint64_t bytes;
} mwc_trace_done;

/* A mark of a thread (MWT_MARK): a named region begun or ended, an
 * MPI_Pcontrol level, at tick t, in order with the thread's calls. */
typedef struct {
    uint64_t t;
    uint32_t thread;
    int what;                  /* MWT_MARK_BEGIN, _END, _PCONTROL */
    int value;                 /* the region's id (regions[value] is never NULL), the level */
} mwc_trace_mark;

/* A communicator the rank created (MWT_COMM): from tick t on, its records'
 * comm equal to handle name it. Its identity across ranks: its members and
 * how many communicators of the same members the rank created before. */
typedef struct {
    int handle;
    uint64_t t;
    uint64_t before;
    int *members;              /* world ranks, in the communicator's order */
    int size;
} mwc_trace_comm;

typedef struct {
    char *path;
    int rank, ranks;
    double per_second;         /* ticks per second */
    uint64_t origin;           /* ticks at the clock origin */
    uint64_t wall_ns;          /* the wall clock at the origin, ns since the epoch */
    char **names;              /* by function id, the functions the file named (MWT_FUNCTIONS);
                                * NULL for the ids it did not */
    int nnames;
    mwc_trace_call *calls;     /* in file order: each thread's in its order */
    size_t ncalls, cap;
    mwc_trace_done *done;      /* completions, in the order of their calls */
    size_t ndone, done_cap;
    uint64_t dropped;          /* calls the rank dropped (said in the file) */
    mwt_sync_point sync[2];    /* its clock against rank 0's: at MPI_Init, at MPI_Finalize */
    int nsync;                 /* 0 (no sync point: an old run), 1 (a job that died), 2 */
    int truncated;             /* the file ends inside a chunk */
    char *limits;              /* the user's limits in force ("VAR=value" lines), or NULL */
    mwc_trace_comm *comms;     /* in file order */
    size_t ncomms;
    char **regions;            /* by id, the named regions the file named (MWT_REGIONS) */
    int nregions;
    mwc_trace_mark *marks;     /* in file order: each thread's in its order */
    size_t nmarks, marks_cap;
} mwc_trace_rank;

/* Read one file into *r (zeroed first). 0: read (perhaps truncated, or
 * with a bad chunk after which the rest was skipped: then err says why);
 * -1: not a readable trace file (err says why). Free with
 * mwc_trace_rank_free in both cases. */
int mwc_trace_read_file(const char *path, mwc_trace_rank *r, char *err, size_t errsize);

void mwc_trace_rank_free(mwc_trace_rank *r);

/* Which call completed each request r's calls started: for each call i
 * that started one, (*completer)[i] is the index of the call that completed
 * it and (*done_of)[i] the index of that completion in r->done; SIZE_MAX
 * for a request not found completed (and for calls that started none).
 * Both arrays malloc'd, of r->ncalls entries. 0, or -1 out of memory. */
int mwc_trace_completions(const mwc_trace_rank *r, size_t **completer, size_t **done_of);

/* A call's own receive (MPI_Sendrecv's receive half: the MWT_DONE of
 * request 0 after its record), or NULL. */
const mwc_trace_done *mwc_trace_own_receive(const mwc_trace_rank *r, const mwc_trace_call *c);

/* The files of one run: spec is a folder holding one run's files, or the
 * path up to ".trace." of one run. On success, *paths (malloc'd, each
 * malloc'd) lists them; returns the count, or -1 with err set. */
int mwc_trace_find(const char *spec, char ***paths, char *err, size_t errsize);

#endif
