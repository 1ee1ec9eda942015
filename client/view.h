/* What the session tells a view. Two views implement it: the live terminal
 * (view_tty.c) and JSON lines (view_json.c). The model is already updated
 * when a view hears of a frame. */
#ifndef MWC_VIEW_H
#define MWC_VIEW_H

#include "decoder.h"
#include "model.h"

typedef struct {
    void (*frame)(void *st, const mwc_model *m, size_t slot, const mwc_frame *f);
    void (*lost)(void *st, const mwc_model *m, size_t slot);
    /* Called often (at least every 100 ms); elapsed in seconds. */
    void (*tick)(void *st, const mwc_model *m, double elapsed);
    /* Every rank has finished or is lost (or the client was interrupted). */
    void (*finish)(void *st, const mwc_model *m, double elapsed);
    void *st;
} mwc_view;

#endif
