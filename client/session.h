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
} mwc_session;

/* ranks[i] is slot i's endpoint rank (-1 unknown), descs[i] its description. */
void mwc_session_init(mwc_session *s, size_t n, const int *ranks, char *const *descs,
                      mwc_view view, mwc_recorder *rec);
void mwc_session_free(mwc_session *s);

/* Bytes from slot's rank. Returns 0 to keep reading, -1 when the stream is
 * over for the client: GOODBYE arrived, or it was malformed (the slot is then
 * lost and the view told). The transport closes the connection on -1. */
int mwc_session_data(mwc_session *s, size_t slot, const void *data, size_t n);

/* The connection ended or was never made. A slot that has not said GOODBYE
 * is lost for this reason. */
void mwc_session_closed(mwc_session *s, size_t slot, const char *reason);

/* Mark a slot lost now (e.g. a transport error); the view is told. */
void mwc_session_lose(mwc_session *s, size_t slot, const char *reason);

int mwc_session_active(const mwc_session *s, size_t slot);
void mwc_session_tick(mwc_session *s);
void mwc_session_finish(mwc_session *s);

#endif
