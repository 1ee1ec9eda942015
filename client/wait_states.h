/* Wait states: who made whom wait (docs/wait-states.md). A pure analysis
 * over each rank's MPI calls, with times on one clock: sends are matched to
 * receives and collective calls to their instances, each waiting time is
 * measured by its pattern (Late Sender, Late Receiver, Wait at N x N, Wait
 * at Barrier, Late Broadcast, Early Reduce) and charged to its cause: the
 * rank that arrived late, the call site it arrived at and the site of its
 * previous MPI call (the work between the two made it late). */
#ifndef MWC_WAIT_STATES_H
#define MWC_WAIT_STATES_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
    const char *function;      /* the MPI function's name ("MPI_Recv") */
    double enter, leave;       /* seconds, on the clock shared by all ranks */
    int peer, tag, comm;       /* world rank, tag, communicator; -1 none */
    int root;                  /* a rooted collective's root (world rank); -1 none */
    uint64_t bytes;            /* bytes sent (a send's size decides rendezvous) */
    uint64_t site;             /* the call site (0 unknown) */
    uint32_t thread;           /* the previous call is the same thread's */
    size_t completed_by;       /* a non-blocking receive's or send's: the call (index
                                * + 1) that completed it, which waited; a receive's
                                * peer and tag are then the message's (the
                                * completion's status); 0 not known */
    size_t polls;              /* a completion that does not block (MPI_Test*), after
                                * polls of the same function and site that found
                                * nothing: the first of them (index + 1), from whose
                                * entry it waited; 0 none (it waited in no poll) */
    int recv_peer, recv_tag;   /* a send-receive's receive half (peer and tag are its
                                * send's): source (world rank) and tag; -1 not known,
                                * and for other calls */
} mww_call;

/* A call's previous MPI call on its thread, named (the cause's "after"). */
typedef struct {
    const char *function;      /* NULL: none */
    uint64_t site;
    double leave;              /* when it ended: the work since began */
} mww_prev;

typedef struct {
    const mww_call *calls;     /* in the order each thread made them */
    size_t ncalls;
    /* NULL: each call's previous call is found among calls. Else calls are
     * an excerpt of the rank's (what a peer shipped at MPI_Finalize) and
     * prev[i] names calls[i]'s previous call. */
    const mww_prev *prev;
} mww_rank;

/* One collective instance matched already: its ranks' calls (a member
 * that cannot be late or waited for may be left out). */
typedef struct {
    int rank;
    size_t call;
} mww_member;

typedef struct {
    const mww_member *members;
    size_t n;
} mww_instance;

enum {
    MWW_LATE_SENDER,
    MWW_LATE_RECEIVER,
    MWW_WAIT_NXN,
    MWW_WAIT_BARRIER,
    MWW_LATE_BROADCAST,        /* and Late Scatter: a rooted one-to-all */
    MWW_EARLY_REDUCE,          /* and Early Gather: a rooted all-to-one */
    MWW_PATTERNS
};

/* The pattern's name as the report prints it ("Late Sender"), and its key
 * in the JSON ("late_sender"). */
const char *mww_pattern_name(int pattern);
const char *mww_pattern_key(int pattern);

/* One cause: a rank arriving late at a site, after the work since its
 * previous call, and what it made the others wait, summed over instances. */
typedef struct {
    int rank;                  /* the rank that arrived late */
    int pattern;
    const char *function;      /* the call it arrived late at */
    uint64_t site;             /* that call's site */
    const char *prev_function; /* its previous MPI call on the same thread; NULL none */
    uint64_t prev_site;
    double waiting;            /* seconds the others waited, all ranks summed */
    double direct;             /* of which direct (mww_wait.direct) */
    long instances;            /* the wait states it caused */
    long waiting_ranks;        /* distinct ranks that waited for it */
} mww_cause;

/* The order of causes, largest first (qsort on mww_cause): by the direct
 * waiting they caused (what the late rank's own work made the others wait:
 * a late arrival that only passes on a lateness from its previous MPI call
 * is not where to look), then by all their waiting. */
int mww_cause_order(const void *a, const void *b);

/* One wait state: a call that waited from its entry for a late call. */
typedef struct {
    int pattern;
    int victim;                /* the rank that waited */
    size_t victim_call;        /* its call that waited */
    int rank;                  /* the rank that was late */
    size_t call;               /* its late call */
    double seconds;            /* from the waiting call's entry */
    /* Of seconds, the part the late rank's extra work explains: its time
     * since its previous MPI call ended, less the waiting rank's since its
     * own (at most seconds; all of it when either has no previous call).
     * The rest is propagated: the late rank left its previous MPI call
     * later (Scalasca's direct and indirect wait states). */
    double direct;
    size_t cause;              /* its cause, an index into mww_result.causes */
} mww_wait;

/* A send matched to its receive (calls as indices into their ranks'; a
 * non-blocking receive's is the call that completed it). */
typedef struct {
    int send_rank;
    size_t send_call;
    int recv_rank;
    size_t recv_call;
} mww_message;

typedef struct {
    double mpi_time;                   /* every call's duration, all ranks summed, but
                                          MPI_Init, MPI_Init_thread and MPI_Finalize's,
                                          and a polling loop's gaps between its polls
                                          (its wait state spans them) */
    double waiting;                    /* all wait states summed */
    double direct;                     /* of which direct (mww_wait.direct) */
    double pattern_time[MWW_PATTERNS];
    long pattern_count[MWW_PATTERNS];
    double *rank_waiting;              /* by rank: what it waited */
    double *rank_caused;               /* by rank: what it made others wait */
    mww_cause *causes;                 /* largest first (mww_cause_order) */
    size_t ncauses;
    long messages;                     /* sends matched to receives */
    long unmatched;                    /* sends or receives left without a partner */
    long unordered_receivers;          /* (rank, communicator) pairs not matched by
                                          order: persistent, matched or combined
                                          receives, non-blocking ones not seen completed */
    mww_wait *waits;                   /* with mww_options.details: every wait state */
    size_t nwaits;
    mww_message *matched;              /* with mww_options.details: every matched message */
    size_t nmatched;
    long collectives;                  /* collective instances matched */
    long incomplete_collectives;       /* instances some member rank did not reach */
} mww_result;

typedef struct {
    /* A standard send of at least this many bytes waits for its receive as
     * a synchronous one does (MPI libraries switch to rendezvous above an
     * eager limit); 0: only synchronous sends. */
    uint64_t rendezvous_bytes;
    /* Keep each wait state and matched message in the result (the
     * timeline draws them); the totals and causes are the same either way. */
    int details;
    /* NULL: every rank's wait states. Else only those of this rank as the
     * one that waited, and its MPI time (the analysis at MPI_Finalize: each
     * rank its own, with what it needs of its peers); messages, unmatched
     * ends and unordered receivers are then counted at this receiving rank
     * only. */
    const int *victim;
    /* NULL: collective calls matched to instances by communicator and
     * order. Else these instances (matched by reductions at MPI_Finalize),
     * counted by the caller. */
    const mww_instance *instances;
    size_t ninstances;
} mww_options;

#define MWW_RENDEZVOUS_BYTES_DEFAULT 65536

/* Analyse nranks ranks (index = world rank). 0, or -1 out of memory (r
 * then holds nothing). Free with mww_result_free. */
int mww_analyze(const mww_rank *ranks, int nranks, const mww_options *opt, mww_result *r);

void mww_result_free(mww_result *r);

/* Each call's previous call on the same thread, as index + 1 (0 none):
 * *prev malloc'd, r->ncalls of them (NULL for none). 0, or -1 out of memory. */
int mww_previous_calls(const mww_rank *r, size_t **prev);

#endif
