/* The rank's side of the live monitor (docs/protocol.md): options, the two
 * transports, the endpoint line, frame encoding and the sender thread.
 *
 * Threads: the application's threads only queue events (monitor/events.h) and
 * post requests (mw_monitor_pcontrol). Everything else runs in the sender
 * thread, from mw_monitor_start (in mw_on_init) until mw_monitor_finish (in
 * mw_on_finalize), which stops the thread and then finishes the stream on
 * the finalizing thread. No monitor thread calls a profiled MPI function:
 * all their MPI calls are PMPI_ ones. */
#ifndef MW_MONITOR_SERVER_H
#define MW_MONITOR_SERVER_H

#include <stddef.h>
#include <stdint.h>

#include "core/compiler.h"
#include "core/event_ring.h"
#include "core/thread_stats.h"
#include "mpiwatch_protocol.h"

/* ------------------------------------------------------------ options */

enum { MW_PUBLISH_OFF, MW_PUBLISH_STDOUT, MW_PUBLISH_STDERR, MW_PUBLISH_FILE };
enum { MW_TRANSPORT_TCP, MW_TRANSPORT_MPI };

typedef struct mw_monitor_options {
    int publish;             /* MW_PUBLISH_*: off unless a flag or MPIWATCH_MONITOR asks */
    char file[4096];         /* the port file for MW_PUBLISH_FILE */
    int transport;           /* MPIWATCH_TRANSPORT */
    char bind[256];          /* MPIWATCH_BIND; "" = every address */
    double wait;             /* MPIWATCH_WAIT, seconds; 0 = do not wait */
    size_t buffer;           /* MPIWATCH_MONITOR_BUFFER: events per thread */
    double interval;         /* MPIWATCH_MONITOR_INTERVAL, seconds */
    int nice;                /* MPIWATCH_MONITOR_NICE: the sender thread's nice increment */
    int help;                /* --help was given */
    int node_size;           /* MPIWATCH_NODE_SIZE: 0 no node leaders; K > 0 pretend nodes
                                of K consecutive ranks; MW_NODE_HOST the ranks sharing memory */
} mw_monitor_options;

#define MW_NODE_HOST (-1)

extern MW_HIDDEN mw_monitor_options mw_monitor_opts;

/* Read the variables and take mpiwatch's flags out of argv (either may be
 * NULL). Called before PMPI_Init by MPI_Init/MPI_Init_thread; mw_on_init
 * calls it with NULLs if it has not run (Fortran). Problems are kept until
 * mw_monitor_options_report, which prints them when loud (rank 0). */
MW_HIDDEN void mw_monitor_options_load(int *argc, char ***argv);
MW_HIDDEN void mw_monitor_options_report(int loud);
MW_HIDDEN void mw_monitor_print_help(void);

/* ------------------------------------------------------------ events and calls in progress */

/* The sender's side of the event rings (monitor/events.c; the call path's
 * is monitor/events.h) and of the calls in progress (monitor/inflight.c;
 * the call path's flag is monitor/inflight.h). */

/* Events each thread may queue (MPIWATCH_MONITOR_BUFFER), rounded up to a
 * power of two. Set before events are switched on. */
MW_HIDDEN void mw_events_set_capacity(size_t events);

/* Switch event collection on or off for every thread: on while a client is
 * attached. The wrappers run the watched body all the time the monitor runs
 * (so that a call entered before the client came is seen in progress), and
 * queue events only while this is on. */
MW_HIDDEN void mw_events_enable(int on);

/* Move up to max queued events, from every thread's ring, into out, with
 * their thread and (for events without traffic) peer, tag and comm -1,
 * bytes 0. */
MW_HIDDEN size_t mw_events_drain(mw_event *out, size_t max);

/* Summed over the threads: the events queued into the rings so far
 * (drained or not), and those lost because a ring was full. */
MW_HIDDEN void mw_events_counts(uint64_t *recorded, uint64_t *dropped);

/* One call in progress, as the sender found it. */
typedef struct mw_inflight {
    uint32_t function, thread;
    uint64_t t_in;           /* ticks */
    int32_t peer, tag, root; /* world ranks and tag, or MWP_NONE / MWP_ANY */
    int32_t comm, comm_size;
    uint32_t flags;          /* MWP_IF_* */
} mw_inflight;

/* The monitor starts or stops: route profiled calls through the bodies that
 * publish (the watched one with the TSC), or back. */
MW_HIDDEN void mw_inflight_begin(void);
MW_HIDDEN void mw_inflight_end(void);

/* Up to max calls in progress, one per thread inside a profiled call, into
 * out; returns how many. Never blocks a calling thread: reads without its
 * lock, and leaves out a call that ended or changed while it read. */
MW_HIDDEN size_t mw_inflight_collect(mw_inflight *out, size_t max);

/* Did the set of calls in progress change (another call, or a thread
 * entering or leaving one) between a and b? */
MW_HIDDEN int mw_inflight_changed(const mw_inflight *a, size_t na, const mw_inflight *b,
                                  size_t nb);

/* ------------------------------------------------------------ frames */

/* Frame types, sizes and layouts: include/mpiwatch_protocol.h. */

/* A growable byte queue of whole frames: bytes [head, len) are unsent. */
typedef struct mw_buf {
    unsigned char *data;
    size_t head, len, cap;
    int failed;              /* an allocation failed: the frame was not added */
} mw_buf;

MW_HIDDEN void mw_buf_free(mw_buf *b);
MW_HIDDEN void mw_buf_consume(mw_buf *b, size_t n);
static inline size_t mw_buf_pending(const mw_buf *b) { return b->len - b->head; }

/* Ticks (mw_now) to nanoseconds since the epoch (mw_state.start_ticks). */
typedef struct mw_timebase {
    uint64_t ticks0, ns0;    /* a pair of readings of mw_now and CLOCK_MONOTONIC */
    double ns_per_tick;
} mw_timebase;

MW_HIDDEN void mw_timebase_init(mw_timebase *tb);
MW_HIDDEN void mw_timebase_update(mw_timebase *tb);
MW_HIDDEN uint64_t mw_timebase_ns(const mw_timebase *tb, uint64_t ticks);

/* The counters frames report. */
typedef struct mw_monitor_counts {
    uint64_t sent;           /* events in frames handed to the transport, all clients */
    uint64_t dropped;        /* rings full, output full, or lost with a client */
    uint64_t unwatched;      /* made while no client was attached */
} mw_monitor_counts;

/* Each returns 0, or -1 if the frame could not be added (memory). */
MW_HIDDEN int mw_frame_hello(mw_buf *b, uint64_t epoch_wall_ns, const char *timer);
/* Encode up to n events, at most one frame; returns how many were encoded. */
MW_HIDDEN size_t mw_frame_events(mw_buf *b, const mw_event *ev, size_t n, const mw_timebase *tb);
/* stats: MW_FN_COUNT entries; ns_of converts a number of ticks to ns. */
MW_HIDDEN int mw_frame_snapshot(mw_buf *b, uint64_t t, const mw_monitor_counts *c,
                                const mw_fn_stats *stats, uint64_t (*ns_of)(uint64_t, const void *),
                                const void *arg);
MW_HIDDEN int mw_frame_goodbye(mw_buf *b, uint64_t t, uint64_t sent, uint64_t dropped);
MW_HIDDEN int mw_frame_level(mw_buf *b, uint64_t t, int32_t level);
/* This rank's bytes and messages to each of n ranks, those with messages;
 * the MWP_PAIRS_MAX with the most bytes if there are more. */
MW_HIDDEN int mw_frame_pairs(mw_buf *b, uint64_t t, const uint64_t *bytes,
                             const uint64_t *messages, int n);
/* n (1 to MWP_FORWARD_MAX) bytes of rank's own stream, forwarded by its node leader. */
MW_HIDDEN int mw_frame_forward(mw_buf *b, uint32_t rank, const unsigned char *data, size_t n);
/* The calls in progress at t (ns since the epoch); n fits one frame. */
MW_HIDDEN int mw_frame_inflight(mw_buf *b, uint64_t t, const struct mw_inflight *calls, size_t n,
                                const mw_timebase *tb);

/* ------------------------------------------------------------ transports */

/* What the sender needs from a transport. attach/write/detach are called by
 * the sender thread only (or by the finalizing thread after it stopped). */
typedef struct mw_transport {
    const char *name;        /* "tcp" or "mpi" */
    /* Poll for a new client: 1 when one has just attached (and authenticated). */
    int (*poll_attach)(void);
    /* Send from buf[0..len): bytes taken (0 if the transport is busy), -1 if
     * the client is gone. Never blocks. */
    long (*write)(const unsigned char *buf, size_t len);
    /* 1 while everything handed to write may still be in flight. */
    int (*busy)(void);
    /* Has the attached client gone away (noticed without writing)? */
    int (*gone)(void);
    /* Drop the current client (after GOODBYE when final). */
    void (*detach)(int final);
    /* Wait up to ms for something to do (a client, room to write). */
    void (*wait)(int ms, int want_write);
    /* Release everything (at finalize); at_exit: the process is ending
     * without MPI_Finalize, make no MPI call. */
    void (*shutdown)(int at_exit);
    /* The endpoint line's transport-specific part (after "RANK SIZE "). */
    const char *(*endpoint)(void);
} mw_transport;

/* Open the listening socket: 0, or -1 after a warning. token: 32 hex digits. */
MW_HIDDEN int mw_tcp_open(const char *bind, const char *token);
extern MW_HIDDEN const mw_transport mw_tcp_transport;

/* Open an MPI port (needs MPI_THREAD_MULTIPLE): 0, or -1 after a warning. */
MW_HIDDEN int mw_mpiport_open(const char *token);
extern MW_HIDDEN const mw_transport mw_mpiport_transport;

/* 32 lowercase hex digits of fresh random bits into out[33]: 0, or -1. */
MW_HIDDEN int mw_monitor_token(char *out);

/* ------------------------------------------------------------ node leaders */

/* With MPIWATCH_NODE_SIZE, collective over the private communicator: the
 * ranks of a node agree on their leader (the lowest rank), which opens the
 * relay; the others learn its local socket and secret over MPI. Returns the
 * local transport that every rank of the node then uses (the leader's own
 * rank too), or NULL: no node leaders asked for, or the leader could not
 * start (it warns; each rank then opens its own endpoint). token: the
 * leader's client token, or NULL when this rank has none. */
MW_HIDDEN const mw_transport *mw_node_open(const char *token);
/* In MPI_Finalize, on every rank after its stream has ended (collective over
 * the node): the leader's relay forwards the node's last bytes and stops. */
MW_HIDDEN void mw_node_finish(void);

/* A rank's end of its node's local channel (monitor/local.c): the leader is
 * its "client", which attaches when the leader's own client does. */
MW_HIDDEN void mw_local_open(int leader, const char *name, const char *secret);
extern MW_HIDDEN const mw_transport mw_local_transport;

/* A member's first line to its leader: version, the node's secret, its world rank. */
#define MW_LOCAL_HELLO_FORMAT "MPIWATCH-LOCAL %d %s %d\n"
#define MW_LOCAL_ATTACH 'A'      /* the leader's one byte: a client is attached, start */
#define MW_LOCAL_DUMP 'D'        /* the leader's one byte: write your partial profile and answer
                                  * its line (mw_monitor_dump_answer) on this connection */
#define MW_LOCAL_NAME_MAX 100    /* the abstract socket's name, without its leading NUL */

/* The leader's relay (monitor/relay.c), a thread of its own: the TCP client
 * (tcp.c's listener and authentication), the node's local connections, and
 * each rank's bytes forwarded in MWP_FORWARD frames. name[MW_LOCAL_NAME_MAX]
 * receives the local socket's name. 0, or -1 after a warning. */
MW_HIDDEN int mw_relay_open(const char *bind, const char *token, const char *secret, char *name);
/* Stop it: unless at_exit, first forward what the node's ranks wrote before
 * closing their connections (while the client takes it, MW_FINAL_STALL_NS,
 * and only while one is attached). */
MW_HIDDEN void mw_relay_stop(int at_exit);
/* The leader's endpoint line's transport part: "node HOST PORT TOKEN". */
MW_HIDDEN const char *mw_relay_endpoint(void);

/* The monitor's threads yield the CPU to the application (MPIWATCH_MONITOR_NICE). */
MW_HIDDEN void mw_monitor_lower_priority(void);

/* ------------------------------------------------------------ publishing */

/* Publish this rank's endpoint line (collective over mw_state.comm when the
 * destination is a file). Returns 0, or -1 after a warning. */
MW_HIDDEN int mw_monitor_publish(const char *line);
/* At MPI_Finalize: remove the port file this rank published (rank 0). */
MW_HIDDEN void mw_monitor_unpublish(void);

/* ------------------------------------------------------------ life cycle */

/* At MPI_Finalize a rank's sender and a node leader's relay hand over what
 * is left while the client takes it: each gives up after MW_FINAL_STALL_NS
 * in which none moved, and after MW_FINAL_MAX_NS in any case. A starved
 * client takes the last MBs in slow steps (a fixed 2 s lost ranks' last
 * MBs; 3 s lost 5 of 16 nodes' goodbyes at 512 ranks on 2 cores). */
#define MW_FINAL_STALL_NS 10000000000ull
#define MW_FINAL_MAX_NS 60000000000ull

/* Do the monitor's MPI ports need MPI_THREAD_MULTIPLE (lifecycle/thread_level.c
 * asks for it)? Valid once the options are loaded. */
MW_HIDDEN int mw_monitor_wants_threads(void);

/* In mw_on_init, after the private communicator exists. */
MW_HIDDEN void mw_monitor_start(void);
/* Who writes the rank's partial profile when a client asks (mpiwatch
 * --dump, over TCP): returns the file's path, or NULL. Set by the life
 * cycle, which owns the partial profile, before mw_monitor_start. */
MW_HIDDEN void mw_monitor_on_dump(const char *(*dump)(void));
/* Write the partial profile now and put the answer to a --dump request in
 * line (MWP_DUMPED_PREFIX and the path, or MWP_NOT_DUMPED, with its newline):
 * its length. Run on the monitor's threads only. */
#define MW_DUMP_ANSWER_MAX 4400
MW_HIDDEN size_t mw_monitor_dump_answer(char *line, size_t size);
/* A node leader's relay takes each authenticated --dump connection (tcp.c
 * hands over the socket instead of answering itself). */
MW_HIDDEN void mw_tcp_hand_dumps_to(void (*take)(int fd));
/* MPI_Pcontrol(level). */
MW_HIDDEN void mw_monitor_pcontrol(int level);
/* In mw_on_finalize: final SNAPSHOT from stats (the report's own merge),
 * GOODBYE, flush for at most 2 s, close. */
MW_HIDDEN void mw_monitor_finish(const mw_fn_stats *stats);
/* 1 if the monitor ran; its transport's name, its counters, and the
 * snapshots not sent because a client was behind (replaced by newer ones). */
MW_HIDDEN int mw_monitor_active(const char **transport, mw_monitor_counts *counts,
                                uint64_t *skipped);

/* Send what a connected socket takes now, never blocking (monitor/tcp.c):
 * the bytes sent, 0 when it takes none now, -1 when it is closed. */
MW_HIDDEN long mw_socket_write(int fd, const unsigned char *buf, size_t len);

/* Whether the n bytes at a and b are equal, in a time that does not depend
 * on where they differ: how a token or a node's secret is compared. */
static inline int mw_same_secret(const char *a, const char *b, size_t n)
{
    unsigned char d = 0;
    for (size_t i = 0; i < n; i++)
        d |= (unsigned char)(a[i] ^ b[i]);
    return d == 0;
}

#endif
