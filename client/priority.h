/* The client's CPU priority (--nice). Watching costs the client almost
 * nothing while the ranks only send snapshots and calls in progress, and
 * then it must answer at once, even on a node whose cores spinning ranks
 * keep busy (a nice-19 process there waits seconds for each time slice:
 * too long to name a hung rank). Decoding a flood of events is another
 * matter: there each slice the client takes is one a rank waited for. So
 * the client keeps its priority while it is cheap and lowers it by --nice,
 * once and for good, as soon as it is busy. */
#ifndef MWC_PRIORITY_H
#define MWC_PRIORITY_H

/* Busy: more than this share of one core over at least one second, or
 * (a client starved by a crowded node uses little CPU, yet has a flood to
 * decode) this many reads that found a full buffer's worth waiting. */
#define MWC_PRIORITY_BUSY_SHARE 0.05
#define MWC_PRIORITY_BACKLOG_READS 8

typedef struct {
    int nice;          /* --nice N: what to add to our nice value when busy */
    int quiet;         /* no warning when the system refuses */
    int lowered;       /* done (or refused): nothing more to watch */
    double wall0, cpu0; /* the start of the current measuring window */
    unsigned long backlog0;
} mwc_priority;

void mwc_priority_init(mwc_priority *p, int nice, int quiet);

/* Call often (each turn of the watch loop) with the count of reads so far
 * that found a backlog (mwc_tcp's full_reads): at most once a second it
 * measures the CPU time used and the backlog since the last measure, and
 * lowers the priority when that was a busy second. */
void mwc_priority_step(mwc_priority *p, unsigned long backlog_reads);

#endif
