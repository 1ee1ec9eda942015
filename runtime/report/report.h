/* The profile report written at MPI_Finalize: job-wide statistics built by
 * reductions on the private communicator, then written by rank 0 as JSON
 * and as text. */
#ifndef MW_REPORT_H
#define MW_REPORT_H

#include <stdio.h>
#include <string.h>

#include "core/compiler.h"
#include "mw_functions.h"
#include "core/thread_stats.h"
#include "report/callsites.h"

/* Destinations each rank reports for the job's most talkative pairs. */
#define MW_PAIRS_PER_RANK 16

/* Job-wide statistics of one function. */
typedef struct mw_fn_summary {
    uint64_t calls;          /* sum over ranks */
    uint64_t sent;           /* bytes, sum over ranks */
    uint64_t recv;
    double time;             /* seconds, sum over ranks */
    double min;              /* shortest single call, any rank */
    double max;              /* longest single call, any rank */
    double rank_min;         /* least time one rank spent in the function */
    double rank_max;         /* most time one rank spent in it */
    int rank_min_at;         /* the world rank of each (the lowest of equals) */
    int rank_max_at;
    double cv;               /* coefficient of variation of the per-rank times */
    uint64_t *hist;          /* MW_HIST_BUCKETS message counts, or NULL */
} mw_fn_summary;

typedef struct mw_region_summary {
    char name[64];
    int ranks;               /* ranks that entered the region */
    uint64_t entries, calls;
    double wall_sum, wall_max;   /* seconds in the region: all ranks, slowest rank */
    double mpi_sum, mpi_max;     /* seconds in MPI within it */
} mw_region_summary;

/* regions[0..*n) gains r (the same region over more ranks, matched by name,
 * or a new entry: room for it is the caller's). */
static inline void mw_region_add(mw_region_summary *regions, int *n, const mw_region_summary *r)
{
    int i = 0;
    while (i < *n && strcmp(regions[i].name, r->name) != 0)
        i++;
    mw_region_summary *s = &regions[i];
    if (i == *n) {
        memset(s, 0, sizeof *s);
        memcpy(s->name, r->name, sizeof s->name);
        (*n)++;
    }
    s->ranks += r->ranks;
    s->entries += r->entries;
    s->calls += r->calls;
    s->wall_sum += r->wall_sum;
    s->mpi_sum += r->mpi_sum;
    s->wall_max = r->wall_max > s->wall_max ? r->wall_max : s->wall_max;
    s->mpi_max = r->mpi_max > s->mpi_max ? r->mpi_max : s->mpi_max;
}

/* A named counter (mpiwatch_counter_add) over the ranks that have it. */
typedef struct mw_counter_summary {
    char name[48];
    int64_t sum, min, max;
    int min_rank, max_rank, ranks;
} mw_counter_summary;

typedef struct mw_pair {
    uint64_t from, to, bytes, messages;
} mw_pair;

/* The report's order of pairs (qsort): most bytes first, then by sender and
 * receiver. */
static inline int mw_pair_order(const void *a, const void *b)
{
    const mw_pair *x = a, *y = b;
    if (x->bytes != y->bytes)
        return x->bytes < y->bytes ? 1 : -1;
    if (x->from != y->from)
        return x->from < y->from ? -1 : 1;
    return x->to < y->to ? -1 : (x->to > y->to);
}

/* One rank's partial profile in a merged report (mpiwatch --merge). */
typedef struct mw_merged_rank {
    int rank;
    const char *reason, *host, *file;
    long long taken, started;   /* seconds since the epoch */
    long pid;
} mw_merged_rank;

/* What a report merged from partial profiles says of them: the job's size,
 * each present rank's profile (in the order of the report's ranks) and the
 * ranks missing. */
typedef struct mw_merge_facts {
    int world_size;
    const char *job;             /* the partial profiles' shared "job" */
    const mw_merged_rank *ranks;
    const int *missing;
    int nmissing;
} mw_merge_facts;

typedef struct mw_job_summary {
    int ranks;               /* ranks whose data this is: the job, or 1 in a snapshot */
    int first_rank;          /* world rank of app_time[0] and mpi_time[0] */
    const int *rank_ids;     /* else the world rank of each entry (a merge with ranks missing) */
    const mw_merge_facts *merged;   /* a report merged from partial profiles, else NULL */
    int snapshot;            /* 0 for the report at MPI_Finalize, else MPI_Pcontrol(2)'s count */
    const char *partial;     /* a partial profile's reason (report/partial.c), else NULL */
    long long taken;         /* a partial profile's time, seconds since the epoch */
    const char *partial_job; /* what the ranks of its job share (report/partial.c) */
    const char *partial_host;
    const char *program;
    const char *timer;
    double *app_time;        /* per rank: end of MPI_Init to start of MPI_Finalize, seconds */
    double *mpi_time;        /* per rank: time inside MPI calls, but those of mw_fn_is_startup */
    double *init_time;       /* per rank: time in MPI_Init / MPI_Init_thread */
    mw_pair *pairs;          /* sorted by bytes, most first */
    int npairs;
    mw_region_summary *regions;
    int nregions;
    uint64_t *hist_block;    /* owns the memory every fn[].hist points into */
    char command[1024];      /* rank 0's command line */
    char hosts[1024];        /* "host (N ranks), ..." */
    char library[MPI_MAX_LIBRARY_VERSION_STRING];   /* the first line of MPI_Get_library_version */
    long long start, end;    /* wall-clock seconds since the epoch: load of rank 0, report */
    char build_id[2 * MW_BUILD_ID_MAX + 1];   /* the program's GNU build-id in hex, "" without one */
    int nodes;               /* distinct host names */
    mw_counter_summary *counters;   /* named counters, in the order first seen */
    int ncounters;
    double *matrix;          /* rank x function: [rank][row][calls, seconds, sent, recv] */
    int *matrix_fns;         /* the function of each row */
    int matrix_rows;
    mw_site_summary *sites;  /* call sites, busiest first (report/callsites.h) */
    int nsites;
    uint64_t sites_other;    /* calls kept by no site (a full table, or past a rank's limit) */
    const char *sites_resolver;   /* how sites were resolved */
    const char *monitor;     /* the live monitor's transport(s), or NULL if it was off */
    uint64_t monitor_sent, monitor_dropped, monitor_unwatched;   /* events, all ranks */
    uint64_t monitor_skipped;    /* snapshots not sent while a client was behind */
    int trace_ranks;             /* ranks that wrote a trace (0: the trace was off) */
    uint64_t trace_events, trace_dropped, trace_bytes;   /* all ranks */
    struct mw_wait_report *waits;   /* the wait states at MPI_Finalize (report/wait_merge.h), or NULL */
    /* The HTML page's own member "timeline" (not in the JSON report): the
     * runtime's at MPI_Finalize (report/timeline_part.h), or NULL. */
    struct mw_timeline_page *timeline;
    void (*page_timeline)(FILE *out, const struct mw_job_summary *job);
    mw_fn_summary fn[MW_FN_COUNT];
    char name[512];          /* the reports' file name without extension, once chosen, or "" */
    int matrix_file;         /* rank 0: NAME.matrix, every pair, was written beside them */
} mw_job_summary;

/* The world rank of the job's r-th per-rank entry. */
static inline int mw_report_rank(const mw_job_summary *job, int r)
{
    return job->rank_ids != NULL ? job->rank_ids[r] : job->first_rank + r;
}

/* MPI_Init, MPI_Init_thread and MPI_Finalize: reported on their own line,
 * not counted as MPI time (application time starts after them). */
static inline int mw_fn_is_startup(int id)
{
    return id == MW_ID_MPI_Init || id == MW_ID_MPI_Init_thread || id == MW_ID_MPI_Finalize;
}

/* Reduce this rank's statistics (local: MW_FN_COUNT entries, from
 * mw_stats_merge) onto rank 0 of the private communicator. On rank 0, *job
 * is filled (release it with mw_report_free). Returns MPI_SUCCESS or an MPI
 * error code. */
MW_HIDDEN int mw_report_reduce(double app_time, const mw_fn_stats *local, mw_job_summary *job);
MW_HIDDEN void mw_report_free(mw_job_summary *job);

/* The named counters, summed by name over the ranks. */
MW_HIDDEN int mw_report_counters(mw_job_summary *job, MPI_Comm comm);

/* The rank x function matrix of the functions called somewhere. */
MW_HIDDEN int mw_report_matrix(const mw_fn_stats *local, mw_job_summary *job, MPI_Comm comm);

/* The process's command line, arguments separated by blanks. */
MW_HIDDEN void mw_report_command_line(char *out, size_t size);

/* The header's facts: command line, hosts, MPI library, start and end. */
MW_HIDDEN int mw_report_header(mw_job_summary *job, MPI_Comm comm);

/* This rank's statistics so far, without communication (for snapshots). */
MW_HIDDEN void mw_report_local(double app_time, mw_job_summary *job);

/* Write this rank's snapshot (MPI_Pcontrol(2)). */
MW_HIDDEN void mw_snapshot(void);

/* Regions' totals gathered onto rank 0 (job is NULL on other ranks). */
MW_HIDDEN int mw_report_regions(mw_job_summary *job, MPI_Comm comm);
/* This rank's regions alone, without communication (a partial profile). */
MW_HIDDEN void mw_report_regions_local(mw_job_summary *job);

/* The live monitor's counters summed onto rank 0 (job is NULL elsewhere). */
MW_HIDDEN int mw_report_monitor(mw_job_summary *job, MPI_Comm comm);

/* The trace's totals summed onto rank 0 (job is NULL elsewhere). */
MW_HIDDEN int mw_report_trace(mw_job_summary *job, MPI_Comm comm);

/* Write the job's report in the formats asked for (MPIWATCH_FORMATS) into
 * dir, each file atomically; a failure is a warning. */
MW_HIDDEN void mw_report_write(const mw_job_summary *job, const char *dir);
/* The same, telling written() each file's path (mpiwatch --merge). */
MW_HIDDEN void mw_report_write_told(const mw_job_summary *job, const char *dir,
                                    void (*written)(const char *path));

/* Collective: the exact communication matrix written beside the report
 * (report/matrix_file.c); on rank 0, job->name is chosen for both. */
MW_HIDDEN void mw_report_matrix_file(mw_job_summary *job, MPI_Comm comm);

/* The writers behind mw_report_write. */
MW_HIDDEN void mw_report_json(FILE *out, const mw_job_summary *job);
/* The same for the HTML page (page 1): with the page's own members. */
MW_HIDDEN void mw_report_json_page(FILE *out, const mw_job_summary *job, int page);
MW_HIDDEN void mw_report_text(FILE *out, const mw_job_summary *job);
/* Ascending ranks as ranges (" 3-7, 9"), at most 16 of them, then how many
 * were left out: bounded at any job size (the text report's missing ranks,
 * and mpiwatch --merge's). No newline. */
MW_HIDDEN void mw_report_rank_ranges(FILE *out, const int *ranks, int n);
/* The viewer page with the JSON report in it (report/html.c); available
 * when the build found Chart.js, else mw_report_html_missing() says what to
 * install. */
MW_HIDDEN void mw_report_html(FILE *out, const mw_job_summary *job);
MW_HIDDEN int mw_report_html_available(void);
MW_HIDDEN const char *mw_report_html_missing(void);

/* Write a file atomically (a temporary file moved into place), never over an
 * existing file: 0, EEXIST when path is taken, or another errno. */
MW_HIDDEN int mw_write_file(const char *path, void (*writer)(FILE *, const void *),
                            const void *arg);
/* The same, replacing path if it exists (a rank's partial profile). */
MW_HIDDEN int mw_write_file_over(const char *path, void (*writer)(FILE *, const void *),
                                 const void *arg);
/* Write n bytes at offset into fd (pwrite until all went: the files every
 * rank writes its own part of, the matrix and the page's timeline); 1 when
 * all were written. */
MW_HIDDEN int mw_write_at(int fd, const void *buf, size_t n, long long offset);
/* mpiwatch-<program>-<N>r[-job<ID>]-<date>-<time>-<pid> for a report made
 * at when (seconds since the epoch), without extension: every run has a name
 * of its own, batch job or not. */
MW_HIDDEN void mw_report_name(char *name, size_t size, const char *program, long long when);
/* The batch job's id ("1234.0" with a SLURM step), or "". */
MW_HIDDEN const char *mw_report_job_id(void);
/* mw_report_json and mw_report_text for mw_write_file (arg: the job). */
MW_HIDDEN void mw_report_json_writer(FILE *out, const void *job);
MW_HIDDEN void mw_report_text_writer(FILE *out, const void *job);

/* A rank's partial profile (report/partial.c): this rank's statistics so far
 * written with no MPI call, marked partial with why (reason) and when, as
 * <report name>-rank<R>-partial.json (and .txt when text reports are asked
 * for), each replacing the rank's previous partial files atomically.
 * Thread-safe; returns 0 when the JSON file was written. */
MW_HIDDEN int mw_partial_write(const char *reason);
/* Remove this rank's partial files (the job reached MPI_Finalize). */
MW_HIDDEN void mw_partial_remove(void);
/* The JSON file's path once written, else "". */
MW_HIDDEN const char *mw_partial_path(void);
/* What the ranks of one job share without talking (the launcher's job, or
 * the batch job's id), or "" (MPICH's Hydra outside a batch system). */
MW_HIDDEN const char *mw_partial_job_key(void);
/* Wait, at most ms milliseconds, until want partial profiles of this
 * program and size written at or after since are in the report folder. */
struct timespec;
MW_HIDDEN void mw_partial_wait_for(int want, const struct timespec *since, int ms);

/* Write s as a JSON string. */
MW_HIDDEN void mw_json_string(FILE *out, const char *s);

#endif
