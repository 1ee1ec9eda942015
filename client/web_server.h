/* mpiwatch --web [ADDR:]PORT: an HTTP server (libmicrohttpd, a thread per
 * connection) for the live page: GET / is the viewer page, GET /api/state the
 * job's state (web_state.h) as last published by the watch loop, GET
 * /api/stream the same as Server-Sent Events, one per publication
 * (web_stream.h). The server's threads only take the last published state
 * from the hub (web_hub.h), so a page, a stream or a thousand requests never
 * touch the model nor slow the watch. */
#ifndef MWC_WEB_SERVER_H
#define MWC_WEB_SERVER_H

#include <stddef.h>

typedef struct mwc_web mwc_web;

/* "" when --web is built in (libmicrohttpd was found), else why not. */
extern const char mwc_web_unavailable[];

/* Listen on where ("PORT" on 127.0.0.1, "IPV4:PORT" or "[IPV6]:PORT", see
 * web_addr.h; PORT 0 picks a free one). NULL with err set on failure. */
mwc_web *mwc_web_start(const char *where, char *err, size_t errlen);
/* http://ADDR:PORT/, the port the server got. */
const char *mwc_web_url(const mwc_web *w);
/* The new state, malloc'd; the server takes it and wakes the streams. */
void mwc_web_publish(mwc_web *w, char *state, size_t len);
/* Ends the streams, then the server. */
void mwc_web_stop(mwc_web *w);

#endif
