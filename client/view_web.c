/* The live page's view (view_web.h). */
#include "view_web.h"

#include "util.h"
#include "web_state.h"

#define PUBLISH_EVERY 0.5   /* seconds; the page asks once a second */

void mwc_web_view_publish(mwc_web_view_state *st, const mwc_model *m, double elapsed)
{
    size_t len = 0;
    char *state = mwc_web_state(m, mwc_now(), elapsed, st->stuck_s, st->recording, &len);
    if (state != NULL)
        mwc_web_publish(st->server, state, len);
    st->next = elapsed + PUBLISH_EVERY;
}

static void frame(void *p, const mwc_model *m, size_t slot, const mwc_frame *f)
{
    mwc_web_view_state *st = p;
    if (st->inner.frame)
        st->inner.frame(st->inner.st, m, slot, f);
}

static void lost(void *p, const mwc_model *m, size_t slot)
{
    mwc_web_view_state *st = p;
    if (st->inner.lost)
        st->inner.lost(st->inner.st, m, slot);
}

static void tick(void *p, const mwc_model *m, double elapsed)
{
    mwc_web_view_state *st = p;
    if (st->inner.tick)
        st->inner.tick(st->inner.st, m, elapsed);
    if (elapsed >= st->next)
        mwc_web_view_publish(st, m, elapsed);
}

static void finish(void *p, const mwc_model *m, double elapsed)
{
    mwc_web_view_state *st = p;
    if (st->inner.finish)
        st->inner.finish(st->inner.st, m, elapsed);
    mwc_web_view_publish(st, m, elapsed);
}

mwc_view mwc_view_web(mwc_web_view_state *st)
{
    mwc_view v = {frame, lost, tick, finish, st};
    return v;
}
