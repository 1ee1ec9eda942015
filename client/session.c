#include "session.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

void mwc_session_init(mwc_session *s, size_t n, const int *ranks, char *const *descs,
                      mwc_view view, mwc_recorder *rec)
{
    memset(s, 0, sizeof *s);
    mwc_model_init(&s->model, n);
    s->dec = mwc_calloc(n, sizeof *s->dec);
    for (size_t i = 0; i < n; i++) {
        mwc_decoder_init(&s->dec[i]);
        mwc_model_set_endpoint(&s->model, i, ranks[i], descs[i]);
    }
    s->view = view;
    s->rec = rec;
    s->t0 = mwc_now();
}

void mwc_session_free(mwc_session *s)
{
    for (size_t i = 0; i < s->model.n; i++)
        mwc_decoder_free(&s->dec[i]);
    free(s->dec);
    mwc_model_free(&s->model);
}

int mwc_session_active(const mwc_session *s, size_t slot)
{
    int st = s->model.r[slot].status;
    return st != MWC_FINISHED && st != MWC_LOST;
}

void mwc_session_lose(mwc_session *s, size_t slot, const char *reason)
{
    if (!mwc_session_active(s, slot))
        return;
    s->model.now = mwc_now();
    mwc_model_lose(&s->model, slot, reason);
    if (s->view.lost)
        s->view.lost(s->view.st, &s->model, slot);
}

static int on_frame(void *ctx, const mwc_frame *f)
{
    mwc_session *s = ctx;
    char err[200];
    if (mwc_model_apply(&s->model, s->cur, f, err, sizeof err) != 0) {
        mwc_session_lose(s, s->cur, err);
        return 1;
    }
    if (s->view.frame)
        s->view.frame(s->view.st, &s->model, s->cur, f);
    return 0;
}

int mwc_session_data(mwc_session *s, size_t slot, const void *data, size_t n)
{
    if (s->rec)
        mwc_record(s->rec, MWC_REC_DATA, (uint32_t)slot, data, n);
    if (!mwc_session_active(s, slot))
        return -1;
    s->cur = slot;
    s->model.now = mwc_now();
    int rc = mwc_decoder_feed(&s->dec[slot], data, n, on_frame, s);
    if (rc < 0) {
        char why[260];
        snprintf(why, sizeof why, "protocol error: %s", s->dec[slot].error);
        mwc_session_lose(s, slot, why);
        return -1;
    }
    return rc > 0 || !mwc_session_active(s, slot) ? -1 : 0;
}

void mwc_session_closed(mwc_session *s, size_t slot, const char *reason)
{
    if (s->rec)
        mwc_record(s->rec, MWC_REC_CLOSED, (uint32_t)slot, reason, strlen(reason));
    if (!mwc_session_active(s, slot))
        return;
    const mwc_decoder *d = &s->dec[slot];
    char why[260];
    if (!mwc_decoder_idle(d))
        snprintf(why, sizeof why, "%s, in the middle of a frame", reason);
    else if (s->model.r[slot].have_hello)
        snprintf(why, sizeof why, "%s, without GOODBYE", reason);
    else
        snprintf(why, sizeof why, "%s", reason);
    mwc_session_lose(s, slot, why);
}

void mwc_session_tick(mwc_session *s)
{
    if (s->rec)
        mwc_record_flush(s->rec);
    if (s->view.tick)
        s->view.tick(s->view.st, &s->model, mwc_now() - s->t0);
}

void mwc_session_finish(mwc_session *s)
{
    if (s->view.finish)
        s->view.finish(s->view.st, &s->model, mwc_now() - s->t0);
}
