/* The job's state as the live page's server hands it out (mpiwatch --web):
 * the watch loop publishes each new state here; the HTTP server's threads
 * take references to the last one (GET /api/state) or wait for the next one
 * (GET /api/stream, one thread per stream). Publishing only swaps a pointer
 * under the lock and wakes the waiters, so neither a page nor a stalled
 * stream can slow the watch loop, let alone the ranks. No libmicrohttpd
 * here, so that it is unit-tested (tests/client/test_web_hub.c). */
#ifndef MWC_WEB_HUB_H
#define MWC_WEB_HUB_H

#include <pthread.h>
#include <stddef.h>

/* One published state, shared by the requests that read it. buf holds it as
 * one server-sent event, "id: GEN\ndata: JSON\n\n", with the JSON's own
 * newlines (whitespace only: strings escape theirs) made spaces so that it
 * fits on the data line; /api/state answers buf + json_off, json_len bytes. */
typedef struct {
    unsigned refs;          /* guarded by the hub's lock */
    unsigned long gen;      /* 1, 2, ...: publication order */
    char *buf;
    size_t len;             /* the whole event */
    size_t json_off, json_len;
} mwc_web_doc;

typedef struct {
    pthread_mutex_t lock;
    pthread_cond_t changed;     /* a new document, stopping, a stream closed; CLOCK_MONOTONIC */
    mwc_web_doc *doc;           /* the last one published (NULL before the first) */
    unsigned long gen;
    unsigned streams, max_streams;
    int stopping;
} mwc_web_hub;

/* 0, or -1 when the lock or condition cannot be made. */
int mwc_web_hub_init(mwc_web_hub *h, unsigned max_streams);
/* After every thread that uses it has ended. */
void mwc_web_hub_destroy(mwc_web_hub *h);

/* A new state: json is malloc'd, len bytes; the hub takes it (and frees it
 * when out of memory, keeping the last state). From one thread only. */
void mwc_web_hub_publish(mwc_web_hub *h, char *json, size_t len);

/* The last document, with a reference (NULL before the first); put it back. */
mwc_web_doc *mwc_web_hub_get(mwc_web_hub *h);
void mwc_web_hub_put(mwc_web_hub *h, mwc_web_doc *d);

/* Wait up to seconds for a document newer than generation seen: 1 with *d
 * (a reference), 0 when the time ran out, -1 when the hub is stopping. A
 * slow reader skips to the newest: documents never queue up. */
int mwc_web_hub_wait(mwc_web_hub *h, unsigned long seen, double seconds, mwc_web_doc **d);

/* A stream may start: 0, or -1 when max_streams are open or the hub is
 * stopping. Each 0 is matched by one mwc_web_hub_close_stream. */
int mwc_web_hub_open_stream(mwc_web_hub *h);
void mwc_web_hub_close_stream(mwc_web_hub *h);

/* Wake every waiter with -1, refuse new streams: before the server stops. */
void mwc_web_hub_stop(mwc_web_hub *h);
/* After the stop: wait up to seconds for the streams to have closed (their
 * last chunk sent, so that browsers see an orderly end); 0 when they have. */
int mwc_web_hub_drain(mwc_web_hub *h, double seconds);

#endif
