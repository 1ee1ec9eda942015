/* What the client knows about the job: one slot per watched endpoint, filled
 * from decoded frames. Job totals are the sum of each rank's LAST snapshot:
 * snapshots are cumulative and include calls whose events were dropped, so
 * they, not the events, are authoritative. */
#ifndef MWC_MODEL_H
#define MWC_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "decoder.h"
#include "rates.h"
#include "waitfor.h"

enum { MWC_WAITING, MWC_ATTACHED, MWC_FINISHED, MWC_LOST };

typedef struct {
    int endpoint_rank;         /* from the endpoint line; -1 if not given (a URL) */
    char *endpoint;            /* "tcp://host:port" or "mpi:PORT": for messages */
    int status;
    char reason[200];          /* why it is lost */
    int have_hello;
    uint32_t rank, size, pid;
    uint64_t epoch;
    char *host, *program, *timer, *mpi;
    uint32_t nfunctions;
    char **names;              /* HELLO's names, by function id */
    int have_snapshot;
    uint64_t snap_t, snap_sent, snap_dropped, snap_unwatched;
    mwc_counts *snap;          /* [nfunctions]: the last snapshot */
    mwc_counts *live;          /* [nfunctions]: summed from events received */
    uint64_t events;           /* event records received */
    int32_t level;             /* last LEVEL, 1 until told otherwise */
    int have_goodbye;
    uint64_t bye_t, bye_sent, bye_dropped;
    /* The last INFLIGHT: the calls the rank's threads were inside at
     * inflight_t (its clock), received at inflight_seen (the client's,
     * mwc_now()). Kept when the rank is lost: the last known state. */
    mwc_inflight *inflight;
    uint32_t ninflight;
    uint64_t inflight_t;
    double inflight_seen;
    double lost_at;            /* the client's clock when it was lost */
    /* Rates over the last interval (rates.h): the snapshot before the last
     * one is kept to subtract from it. have_rates once two snapshots with
     * increasing times came; kept as they are when the rank is lost. */
    mwc_counts *prev;          /* [nfunctions] */
    uint64_t prev_t;
    int have_rates;
    int rates_new;             /* the last SNAPSHOT gave these rates */
    mwc_rates rates;           /* rates.fn: [nfunctions] */
    /* The rates of the interval before, put back at GOODBYE: the final
     * SNAPSHOT's times use the report's conversion, not the running one of
     * the periodic snapshots, so the last interval's time share is off by
     * their difference (docs/protocol.md, SNAPSHOT). */
    int have_before;
    mwc_rates before;          /* before.fn: [nfunctions] */
    /* The last PAIRS: the rank's row of the communication matrix so far,
     * sorted by destination, destinations outside the job left out. */
    mwc_pair *pairs;
    uint32_t npairs;
    int have_pairs;
    uint64_t pairs_t;
} mwc_rank;

typedef struct {
    size_t n;
    mwc_rank *r;
    double now;   /* the client's clock (mwc_now()) for the frame being applied;
                   * set by the session, 0 in tests that do not care */
} mwc_model;

typedef struct {
    const char *name;
    mwc_counts c;
} mwc_total;

typedef struct {
    size_t waiting, attached, finished, lost;
    uint64_t received, dropped, unwatched;
    uint64_t mpi_time;          /* ns, summed over ranks' last snapshots */
} mwc_summary;

void mwc_model_init(mwc_model *m, size_t n);
void mwc_model_free(mwc_model *m);
void mwc_model_set_endpoint(mwc_model *m, size_t slot, int rank, const char *desc);

/* Apply one frame to a slot. -1 when the frame contradicts what the client
 * knows (HELLO for another rank than the endpoint's, a different job size,
 * PAIRS naming one destination twice); err then says why. */
int mwc_model_apply(mwc_model *m, size_t slot, const mwc_frame *f, char *err, size_t errlen);
void mwc_model_lose(mwc_model *m, size_t slot, const char *reason);

/* The rank to show for a slot: HELLO's, else the endpoint's, else -1. */
int mwc_model_rank(const mwc_model *m, size_t slot);
const char *mwc_model_name(const mwc_rank *r, uint32_t function);
/* Per-rank sums of the last snapshot. */
mwc_counts mwc_rank_total(const mwc_rank *r);
uint64_t mwc_rank_dropped(const mwc_rank *r);

/* How long call c of rank r had lasted at the client's time now, in
 * seconds: the rank's own count at its INFLIGHT, plus the time since the
 * frame arrived (up to when the rank was lost: a dead rank's call does not
 * go on). */
double mwc_inflight_seconds(const mwc_rank *r, const mwc_inflight *c, double now);

/* The stuck verdict, the one rule every view uses: a call is stuck once it
 * has lasted more than stuck_s seconds (--stuck; MWC_STUCK_DEFAULT_S when
 * not given). */
#define MWC_STUCK_DEFAULT_S 5.0
static inline int mwc_stuck(double seconds, double stuck_s)
{
    return seconds > stuck_s;
}

/* Nonzero when a rank's calls in progress are worth showing: it is
 * attached, or lost with the calls it was last seen in. */
int mwc_rank_has_inflight(const mwc_rank *r);

/* The wait-for graph (waitfor.h) of every rank's last calls in progress,
 * as they stand at the client's time now; a call is stuck once it has
 * lasted more than stuck_s seconds. Free it with mwc_waitfor_free(). */
void mwc_model_waitfor(const mwc_model *m, double now, double stuck_s, mwc_waitfor *w);

/* Job totals per function name, sorted by name; *out is malloc'd (free it). */
size_t mwc_model_totals(const mwc_model *m, mwc_total **out);
mwc_summary mwc_model_summary(const mwc_model *m);
int mwc_model_done(const mwc_model *m);

#endif
