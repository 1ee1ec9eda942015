/* The one path every received byte takes, live or replayed: record it,
 * decode it, update the model, tell the view. Transports call
 * mwc_session_data() and mwc_session_closed(); --replay calls the same. */
#ifndef MWC_SESSION_H
#define MWC_SESSION_H

#include "decoder.h"
#include "model.h"
#include "record.h"
#include "view.h"

typedef struct {
    mwc_model model;
    mwc_decoder *dec;    /* one per slot */
    mwc_view view;
    mwc_recorder *rec;   /* NULL unless --record */
    double t0;           /* mwc_now() at the start, for elapsed times */
    size_t cur;          /* the slot being fed (for the decoder callback) */
    /* Node leaders (docs/protocol.md): a leader's connection carries its
     * node's ranks' streams in FORWARD frames, decoded by relay[leader]
     * and handed to each rank's own slot. */
    mwc_decoder **relay; /* per slot: a node leader's connection decoder, or NULL */
    long *leader;        /* per slot: the slot of the leader it is watched through, or -1 */
    long *by_rank;       /* rank -> slot for the ranks behind leaders, -1 none */
    size_t nby_rank;
} mwc_session;

/* ranks[i] is slot i's endpoint rank (-1 unknown), descs[i] its description. */
void mwc_session_init(mwc_session *s, size_t n, const int *ranks, char *const *descs,
                      mwc_view view, mwc_recorder *rec);
void mwc_session_free(mwc_session *s);

/* Bytes from slot's rank. Returns 0 to keep reading, -1 when the stream is
 * over for the client: GOODBYE arrived, or it was malformed (the slot is then
 * lost and the view told). The transport closes the connection on -1. */
int mwc_session_data(mwc_session *s, size_t slot, const void *data, size_t n);

/* Slot leader's connection comes from a node leader; slot member (another
 * rank's) is watched through it. */
void mwc_session_set_node(mwc_session *s, size_t leader);
void mwc_session_set_via(mwc_session *s, size_t member, size_t leader);
/* Bytes from a node leader's connection (slot: the leader's). Returns as
 * mwc_session_data: -1 when the connection is over for the client (every
 * rank behind it finished, or the stream was malformed: all of them lost). */
int mwc_session_relay_data(mwc_session *s, size_t slot, const void *data, size_t n);
/* The decoder of the slot's connection: the relay's for a node leader. */
const mwc_decoder *mwc_session_conn_decoder(const mwc_session *s, size_t slot);
/* Does slot's connection still serve an active rank (itself, or one
 * behind it when it is a node leader)? */
int mwc_session_conn_active(const mwc_session *s, size_t slot);

/* The connection ended or was never made. A node leader's ends the
 * streams of the ranks behind it too. A slot that has not said GOODBYE
 * is lost for this reason. */
void mwc_session_closed(mwc_session *s, size_t slot, const char *reason);

/* Mark a slot lost now (e.g. a transport error); the view is told. */
void mwc_session_lose(mwc_session *s, size_t slot, const char *reason);

int mwc_session_active(const mwc_session *s, size_t slot);
void mwc_session_tick(mwc_session *s);
void mwc_session_finish(mwc_session *s);

#endif
