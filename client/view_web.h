/* The live page's view (mpiwatch --web): passes everything on to the view
 * the user chose (terminal or JSON lines) and, twice a second and at the
 * end, publishes the job's state (web_state.h) to the HTTP server. */
#ifndef MWC_VIEW_WEB_H
#define MWC_VIEW_WEB_H

#include "view.h"
#include "web_server.h"

typedef struct {
    mwc_view inner;
    mwc_web *server;
    double stuck_s;
    int recording;     /* a --replay, not a job */
    double next;       /* elapsed seconds of the next publication */
} mwc_web_view_state;

mwc_view mwc_view_web(mwc_web_view_state *st);

/* Publish the state now (the watch loop's end, or before the first frame). */
void mwc_web_view_publish(mwc_web_view_state *st, const mwc_model *m, double elapsed);

#endif
