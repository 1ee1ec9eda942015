/* GET /api/stream (mpiwatch --web): the job's state as Server-Sent Events,
 * one event with the whole state (the JSON of /api/state on one data line)
 * each time the watch loop publishes one, a comment line after a second
 * with nothing new. Each stream has its own server thread
 * (libmicrohttpd's thread-per-connection mode), which sleeps in the content
 * reader until the hub (web_hub.h) has a newer state: libmicrohttpd's manual
 * ("Flow control") allows blocking there in that mode and only there, where
 * returning 0 from the reader would spin. */
#ifndef MWC_WEB_STREAM_H
#define MWC_WEB_STREAM_H

#include <microhttpd.h>

#include "web_hub.h"

/* A stream's response (chunked, of unknown length), or NULL: *full set when
 * the hub has all its streams open or is stopping (answer 503), else out of
 * memory. The stream ends when the hub stops or the browser leaves. */
struct MHD_Response *mwc_web_stream_response(mwc_web_hub *h, int *full);

#endif
