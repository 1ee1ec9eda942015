/* The live monitor's wire protocol, version 1: the one definition that the
 * ranks (runtime/monitor) and the client (client/) both compile against.
 * docs/protocol.md describes it in words and cites this header; the tests'
 * encoders (tests/client/frames.c, tests/monitor/raw_client.py) are written
 * from the document on purpose, so that a change here that the document
 * does not describe makes them fail.
 *
 * Everything on the wire is little-endian; a string is a u16 length and its
 * bytes, without a terminator. */
#ifndef MPIWATCH_PROTOCOL_H
#define MPIWATCH_PROTOCOL_H

#define MWP_VERSION 1

/* ------------------------------------------------------------ endpoints */

/* One line per rank: "mpiwatch-endpoint VERSION RANK SIZE TRANSPORT...",
 * where TRANSPORT... is "tcp HOST PORT TOKEN", "mpi TOKEN PORT_NAME", or
 * "none" (the rank's monitor could not start). */
#define MWP_ENDPOINT_PREFIX "mpiwatch-endpoint "
#define MWP_ENDPOINT_FORMAT MWP_ENDPOINT_PREFIX "%d %d %d %s"   /* version, rank, size, the rest */
#define MWP_ENDPOINT_NONE "none"
/* Node leaders (MPIWATCH_NODE_SIZE): a leader publishes "node HOST PORT
 * TOKEN" and serves its node's ranks over that one connection, each rank's
 * stream wrapped in MWP_FORWARD frames; the node's other ranks publish
 * "via LEADER" (the leader's world rank) and open no endpoint. */
#define MWP_ENDPOINT_NODE "node"
#define MWP_ENDPOINT_VIA "via"
#define MWP_TOKEN_HEX 32             /* a token: 128 random bits in lowercase hexadecimal */

/* ------------------------------------------------------------ attaching */

/* A TCP client's first and only line: "MPIWATCH VERSION TOKEN\n", within
 * MWP_HANDSHAKE_SECONDS of connecting. */
#define MWP_HANDSHAKE_FORMAT "MPIWATCH %d %s\n"
#define MWP_HANDSHAKE_SECONDS 5
/* Instead of the handshake, a request that the rank write its partial
 * profile now (mpiwatch --dump; TCP only): the rank answers one line,
 * MWP_DUMPED_PREFIX and the file's path, or MWP_NOT_DUMPED, and closes. */
#define MWP_DUMP_FORMAT "MPIWATCH %d %s dump\n"
#define MWP_DUMPED_PREFIX "MPIWATCH dumped "
#define MWP_NOT_DUMPED "MPIWATCH not dumped\n"
/* A node leader answers a dump request for its node: per rank connected to
 * it, as each answers, MWP_NODE_DUMP_FORMAT (the world rank) followed by
 * that rank's answer line; it closes once all have answered, or after
 * MWP_NODE_DUMP_SECONDS (ranks missing then did not answer). */
#define MWP_NODE_DUMP_PREFIX "MPIWATCH rank "
#define MWP_NODE_DUMP_FORMAT MWP_NODE_DUMP_PREFIX "%u "
#define MWP_NODE_DUMP_SECONDS 10

/* Over MPI ports: the client sends its token (MWP_TOKEN_HEX chars, MPI_CHAR)
 * with the first tag; the rank sends frames, as bytes, with the second. */
#define MWP_MPI_TAG_TOKEN 1
#define MWP_MPI_TAG_FRAMES 2

/* ------------------------------------------------------------ frames */

/* A frame: u32 length (the type byte and the body), u8 type, body. */
#define MWP_FRAME_HEADER 5
#define MWP_FRAME_MAX 1048576u       /* the largest length field */

enum mwp_frame_type {
    MWP_HELLO = 1,     /* u16 version, u32 rank, size, pid, u64 epoch (wall ns), strings host,
                        * program, timer, mpi, u32 n and n function names (id = index) */
    MWP_EVENTS = 2,    /* u32 n, n event records */
    MWP_SNAPSHOT = 3,  /* u64 t, sent, dropped, unwatched, u32 n, n entries */
    MWP_GOODBYE = 4,   /* u64 t, sent, dropped */
    MWP_LEVEL = 5,     /* u64 t, i32 level */
    MWP_INFLIGHT = 6,  /* u64 t, u32 n, n in-flight records: the calls the rank's threads
                        * are inside at t (n may be 0: none). Clients that predate it skip it. */
    MWP_PAIRS = 7,     /* u64 t, u32 n, n pair records: the bytes and messages this rank has
                        * sent to each other rank so far (after each SNAPSHOT) */
    MWP_FORWARD = 8,   /* u32 rank, then 1 to MWP_FORWARD_MAX bytes of that rank's own
                        * stream (frames split anywhere): sent only by a node leader */
};

/* An EVENTS record: one MPI call. Offsets in bytes. */
enum mwp_event_layout {
    MWP_EV_FUNCTION = 0,   /* u32 function id */
    MWP_EV_THREAD = 4,     /* u32 thread, numbered in the order of first events */
    MWP_EV_T_IN = 8,       /* u64 ns since the epoch */
    MWP_EV_T_OUT = 16,     /* u64 */
    MWP_EV_PEER = 24,      /* i32 world rank, or -1 */
    MWP_EV_TAG = 28,       /* i32, or -1 */
    MWP_EV_COMM = 32,      /* i32 communicator as its Fortran handle, or -1 */
    MWP_EV_FLAGS = 36,     /* u32: MWP_EVENT_TRAFFIC */
    MWP_EV_SENT = 40,      /* u64 bytes */
    MWP_EV_RECV = 48,      /* u64 bytes */
    MWP_EVENT_SIZE = 56,
};
#define MWP_EVENT_TRAFFIC 1u       /* flags bit 0: the call moved data; the bytes are meaningful */

/* A SNAPSHOT entry: one function's totals so far. */
enum mwp_entry_layout {
    MWP_EN_FUNCTION = 0,   /* u32 function id */
    MWP_EN_CALLS = 4,      /* u64 */
    MWP_EN_TIME = 12,      /* u64 ns */
    MWP_EN_SENT = 20,      /* u64 bytes */
    MWP_EN_RECV = 28,      /* u64 bytes */
    MWP_ENTRY_SIZE = 36,
};

/* An INFLIGHT record: a call a thread of the rank is inside. Offsets in bytes. */
enum mwp_inflight_layout {
    MWP_IF_FUNCTION = 0,   /* u32 function id */
    MWP_IF_THREAD = 4,     /* u32 thread, numbered as in EVENTS */
    MWP_IF_T_IN = 8,       /* u64 ns since the epoch: when the call was entered */
    MWP_IF_PEER = 16,      /* i32 world rank of the peer, or MWP_NONE, or MWP_ANY */
    MWP_IF_TAG = 20,       /* i32 tag, or MWP_NONE, or MWP_ANY */
    MWP_IF_ROOT = 24,      /* i32 world rank of a collective's root, or MWP_NONE */
    MWP_IF_COMM = 28,      /* i32 communicator as its Fortran handle, or MWP_NONE */
    MWP_IF_COMM_SIZE = 32, /* i32 ranks in the communicator's group (remote group of an
                            * intercommunicator), 0 when unknown */
    MWP_IF_FLAGS = 36,     /* u32: MWP_IF_* bits below */
    MWP_INFLIGHT_SIZE = 40,
};
#define MWP_NONE (-1)              /* a field the call does not have, or not known */
#define MWP_ANY (-2)               /* MPI_ANY_SOURCE, MPI_ANY_TAG */
#define MWP_IF_SENDS 1u            /* the call sends to peer (it may wait for peer to receive) */
#define MWP_IF_RECEIVES 2u         /* the call receives from peer (it waits for peer to send) */
#define MWP_IF_COLLECTIVE 4u       /* a collective: it may wait for every member of comm */
#define MWP_IF_WORLD 8u            /* comm holds every rank of MPI_COMM_WORLD (in any order) */
#define MWP_IF_COMPLETES 16u       /* a wait or test on requests (MPI_Wait...): peer, tag and
                                    * comm, when known, are those of the request waited for */

/* A PAIRS record: what this rank has sent to one rank so far. */
enum mwp_pair_layout {
    MWP_PA_TO = 0,         /* u32 world rank of the destination */
    MWP_PA_BYTES = 4,      /* u64 */
    MWP_PA_MESSAGES = 12,  /* u64 */
    MWP_PAIR_SIZE = 20,
};

/* The fixed parts of the bodies. */
#define MWP_HELLO_FIXED (2 + 4 + 4 + 4 + 8)   /* before the strings */
#define MWP_EVENTS_FIXED 4
#define MWP_SNAPSHOT_FIXED (8 * 4 + 4)
#define MWP_GOODBYE_SIZE (8 * 3)
#define MWP_LEVEL_SIZE (8 + 4)
#define MWP_INFLIGHT_FIXED (8 + 4)
#define MWP_PAIRS_FIXED (8 + 4)
#define MWP_PAIRS_MAX ((MWP_FRAME_MAX - 1 - MWP_PAIRS_FIXED) / MWP_PAIR_SIZE)
#define MWP_FORWARD_FIXED 4
#define MWP_FORWARD_MAX (MWP_FRAME_MAX - 1 - MWP_FORWARD_FIXED)

_Static_assert(MWP_EV_RECV + 8 == MWP_EVENT_SIZE, "an event record ends with its recv bytes");
_Static_assert(MWP_EV_FLAGS + 4 == MWP_EV_SENT, "event fields are contiguous");
_Static_assert(MWP_EN_RECV + 8 == MWP_ENTRY_SIZE, "an entry ends with its recv bytes");
_Static_assert(MWP_IF_FLAGS + 4 == MWP_INFLIGHT_SIZE, "an in-flight record ends with its flags");
_Static_assert(MWP_PA_MESSAGES + 8 == MWP_PAIR_SIZE, "a pair record ends with its messages");
_Static_assert(MWP_FRAME_MAX % 8 == 0, "the frame limit is a whole number of words");

#endif
