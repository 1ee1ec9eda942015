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
    s->relay = mwc_calloc(n, sizeof *s->relay);
    s->leader = mwc_calloc(n, sizeof *s->leader);
    for (size_t i = 0; i < n; i++)
        s->leader[i] = -1;
    s->view = view;
    s->rec = rec;
    s->t0 = mwc_now();
}

void mwc_session_free(mwc_session *s)
{
    for (size_t i = 0; i < s->model.n; i++)
        mwc_decoder_free(&s->dec[i]);
    free(s->dec);
    for (size_t i = 0; i < s->model.n; i++)
        if (s->relay[i]) {
            mwc_decoder_free(s->relay[i]);
            free(s->relay[i]);
        }
    free(s->relay);
    free(s->leader);
    free(s->by_rank);
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

static void map_rank(mwc_session *s, size_t slot)
{
    int rank = s->model.r[slot].endpoint_rank;
    if (rank < 0)
        return;
    if ((size_t)rank >= s->nby_rank) {
        size_t n = (size_t)rank + 1;
        s->by_rank = mwc_realloc(s->by_rank, n * sizeof *s->by_rank);
        for (size_t i = s->nby_rank; i < n; i++)
            s->by_rank[i] = -1;
        s->nby_rank = n;
    }
    s->by_rank[rank] = (long)slot;
}

void mwc_session_set_node(mwc_session *s, size_t leader)
{
    if (s->relay[leader] == NULL) {
        s->relay[leader] = mwc_malloc(sizeof *s->relay[leader]);
        mwc_decoder_init_relay(s->relay[leader]);
    }
    map_rank(s, leader);
}

void mwc_session_set_via(mwc_session *s, size_t member, size_t leader)
{
    s->leader[member] = (long)leader;
    map_rank(s, member);
}

const mwc_decoder *mwc_session_conn_decoder(const mwc_session *s, size_t slot)
{
    return s->relay[slot] ? s->relay[slot] : &s->dec[slot];
}

int mwc_session_conn_active(const mwc_session *s, size_t slot)
{
    if (mwc_session_active(s, slot))
        return 1;
    for (size_t i = 0; s->relay[slot] && i < s->model.n; i++)
        if (s->leader[i] == (long)slot && mwc_session_active(s, i))
            return 1;
    return 0;
}

/* A FORWARD frame: bytes of a rank behind this leader (or its own). */
static int on_forward(void *ctx, const mwc_frame *f)
{
    mwc_session *s = ctx;
    size_t leader = s->cur;
    uint32_t rank = f->u.forward.rank;
    long slot = rank < s->nby_rank ? s->by_rank[rank] : -1;
    if (slot < 0 || (slot != (long)leader && s->leader[slot] != (long)leader)) {
        snprintf(s->relay[leader]->error, sizeof s->relay[leader]->error,
                 "FORWARD frame for rank %u, which is not behind this node leader",
                 (unsigned)rank);
        return 1;
    }
    mwc_session_data(s, (size_t)slot, f->u.forward.data, f->u.forward.len);
    s->cur = leader;
    return 0;
}

/* Every rank behind the leader (and the leader) is lost for why. */
static void lose_node(mwc_session *s, size_t leader, const char *why)
{
    for (size_t i = 0; i < s->model.n; i++)
        if (s->leader[i] == (long)leader)
            mwc_session_lose(s, i, why);
    mwc_session_lose(s, leader, why);
}

int mwc_session_relay_data(mwc_session *s, size_t slot, const void *data, size_t n)
{
    s->cur = slot;
    int rc = mwc_decoder_feed(s->relay[slot], data, n, on_forward, s);
    if (rc != 0) {
        char why[300];
        snprintf(why, sizeof why, "protocol error from its node leader (rank %d): %s",
                 s->model.r[slot].endpoint_rank, s->relay[slot]->error);
        lose_node(s, slot, why);
        return -1;
    }
    return mwc_session_conn_active(s, slot) ? 0 : -1;
}

void mwc_session_closed(mwc_session *s, size_t slot, const char *reason)
{
    for (size_t i = 0; s->relay[slot] && i < s->model.n; i++)
        if (s->leader[i] == (long)slot && mwc_session_active(s, i)) {
            char why[300];
            snprintf(why, sizeof why, "its node leader (rank %d): %s", s->model.r[slot].endpoint_rank,
                     reason);
            mwc_session_closed(s, i, why);
        }
    if (s->rec)
        mwc_record(s->rec, MWC_REC_CLOSED, (uint32_t)slot, reason, strlen(reason));
    if (!mwc_session_active(s, slot))
        return;
    char why[260];
    if (!mwc_decoder_idle(&s->dec[slot]) || !mwc_decoder_idle(mwc_session_conn_decoder(s, slot)))
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
