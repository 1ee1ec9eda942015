/* The live page's HTTP server (web_server.h), on libmicrohttpd. */
#include "web_server.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef MW_HAVE_MICROHTTPD
#include <arpa/inet.h>
#include <netinet/in.h>
#include <microhttpd.h>

#include "mpiwatch_viewer.h"
#include "web_addr.h"
#include "web_hub.h"
#include "web_stream.h"

const char mwc_web_unavailable[] = "";

/* Streams open at once: each holds a thread and a connection (of 64), so
 * pages and /api/state always find room beside them. */
#define MAX_STREAMS 16
#define MAX_CONNECTIONS 64

struct mwc_web {
    struct MHD_Daemon *daemon;
    char *page;                 /* the viewer with no report in it: it reads the stream */
    size_t page_len;
    mwc_web_hub hub;
    char url[80];
};

static enum MHD_Result queue(struct MHD_Connection *c, unsigned status, const char *type,
                             struct MHD_Response *r)
{
    if (r == NULL)
        return MHD_NO;
    MHD_add_response_header(r, "Content-Type", type);
    MHD_add_response_header(r, "Cache-Control", "no-store");
    MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
    enum MHD_Result ok = MHD_queue_response(c, status, r);
    MHD_destroy_response(r);
    return ok;
}

static enum MHD_Result text(struct MHD_Connection *c, unsigned status, const char *msg)
{
    return queue(c, status, "text/plain; charset=utf-8",
                 MHD_create_response_from_buffer(strlen(msg), (void *)msg, MHD_RESPMEM_PERSISTENT));
}

static enum MHD_Result state(struct MHD_Connection *c, mwc_web_hub *h)
{
    mwc_web_doc *d = mwc_web_hub_get(h);
    if (d == NULL)
        return text(c, MHD_HTTP_SERVICE_UNAVAILABLE, "no state yet\n");
    /* Copied outside the hub's lock: the publisher never waits for it. */
    struct MHD_Response *r = MHD_create_response_from_buffer(d->json_len, d->buf + d->json_off,
                                                             MHD_RESPMEM_MUST_COPY);
    mwc_web_hub_put(h, d);
    if (r == NULL)
        return text(c, MHD_HTTP_SERVICE_UNAVAILABLE, "out of memory\n");
    return queue(c, MHD_HTTP_OK, "application/json", r);
}

static enum MHD_Result stream(struct MHD_Connection *c, mwc_web_hub *h)
{
    int full;
    struct MHD_Response *r = mwc_web_stream_response(h, &full);
    if (r == NULL && full) {
        r = MHD_create_response_from_buffer(
            strlen("too many streams open: ask /api/state instead\n"),
            (void *)"too many streams open: ask /api/state instead\n", MHD_RESPMEM_PERSISTENT);
        if (r != NULL)
            MHD_add_response_header(r, "Retry-After", "5");
        return queue(c, MHD_HTTP_SERVICE_UNAVAILABLE, "text/plain; charset=utf-8", r);
    }
    if (r == NULL)
        return text(c, MHD_HTTP_SERVICE_UNAVAILABLE, "out of memory\n");
    return queue(c, MHD_HTTP_OK, "text/event-stream; charset=utf-8", r);
}

static enum MHD_Result answer(void *cls, struct MHD_Connection *c, const char *url,
                              const char *method, const char *version, const char *upload,
                              size_t *upload_size, void **con_cls)
{
    mwc_web *w = cls;
    (void)version;
    (void)upload;
    (void)con_cls;
    if (strcmp(method, "GET") != 0 && strcmp(method, "HEAD") != 0)
        return text(c, MHD_HTTP_METHOD_NOT_ALLOWED, "only GET and HEAD\n");
    if (*upload_size != 0)
        return text(c, MHD_HTTP_BAD_REQUEST, "no request body here\n");
    if (strcmp(url, "/") == 0 || strcmp(url, "/index.html") == 0)
        return queue(c, MHD_HTTP_OK, "text/html; charset=utf-8",
                     MHD_create_response_from_buffer(w->page_len, w->page, MHD_RESPMEM_PERSISTENT));
    if (strcmp(url, "/api/state") == 0)
        return state(c, &w->hub);
    if (strcmp(url, "/api/stream") == 0)
        return stream(c, &w->hub);
    return text(c, MHD_HTTP_NOT_FOUND,
                "not found: / is the page, /api/state the job's state, /api/stream its stream\n");
}

mwc_web *mwc_web_start(const char *where, char *err, size_t errlen)
{
    mwc_web_addr addr;
    if (mwc_web_addr_parse(where, &addr, err, errlen) != 0)
        return NULL;
    mwc_web *w = calloc(1, sizeof *w);
    size_t head = strlen(mw_viewer_head), tail = strlen(mw_viewer_tail);
    if (w == NULL || (w->page = malloc(head + tail + 1)) == NULL) {
        free(w);
        snprintf(err, errlen, "--web: out of memory");
        return NULL;
    }
    memcpy(w->page, mw_viewer_head, head);
    memcpy(w->page + head, mw_viewer_tail, tail + 1);
    w->page_len = head + tail;
    if (mwc_web_hub_init(&w->hub, MAX_STREAMS) != 0) {
        snprintf(err, errlen, "--web: cannot make a lock");
        free(w->page);
        free(w);
        return NULL;
    }
    /* A thread per connection: a stream's thread sleeps until the next state
     * (web_stream.h) while the others answer pages and /api/state. */
    unsigned flags = MHD_USE_THREAD_PER_CONNECTION | MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_POLL;
    if (addr.ipv6)
        flags |= MHD_USE_IPv6;      /* that address only, as asked: no IPv4 beside it */
    w->daemon = MHD_start_daemon(flags, 0, NULL, NULL, answer, w,
                                 MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&addr.sa,
                                 MHD_OPTION_CONNECTION_LIMIT, (unsigned)MAX_CONNECTIONS,
                                 MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)10,
                                 MHD_OPTION_END);
    if (w->daemon == NULL) {
        snprintf(err, errlen, "--web %s: cannot listen there (port in use, or an address "
                              "this host does not have?)", where);
        mwc_web_hub_destroy(&w->hub);
        free(w->page);
        free(w);
        return NULL;
    }
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(w->daemon, MHD_DAEMON_INFO_BIND_PORT);
    unsigned port = info ? (unsigned)info->port
                         : (unsigned)ntohs(addr.ipv6 ? ((struct sockaddr_in6 *)&addr.sa)->sin6_port
                                                     : ((struct sockaddr_in *)&addr.sa)->sin_port);
    mwc_web_addr_url(&addr, port, w->url, sizeof w->url);
    return w;
}

const char *mwc_web_url(const mwc_web *w)
{
    return w->url;
}

void mwc_web_publish(mwc_web *w, char *state, size_t len)
{
    mwc_web_hub_publish(&w->hub, state, len);
}

void mwc_web_stop(mwc_web *w)
{
    if (w == NULL)
        return;
    /* The streams end (their threads could not be joined otherwise), and
     * get a moment to send their last chunk before the sockets close. */
    mwc_web_hub_stop(&w->hub);
    mwc_web_hub_drain(&w->hub, 1.0);
    MHD_stop_daemon(w->daemon);
    mwc_web_hub_destroy(&w->hub);
    free(w->page);
    free(w);
}

#else /* no libmicrohttpd */

const char mwc_web_unavailable[] =
    "this mpiwatch was built without libmicrohttpd: install it (Debian: apt-get install "
    "libmicrohttpd-dev), then run configure and make again";

mwc_web *mwc_web_start(const char *where, char *err, size_t errlen)
{
    snprintf(err, errlen, "--web %s: %s", where, mwc_web_unavailable);
    return NULL;
}

const char *mwc_web_url(const mwc_web *w)
{
    (void)w;
    return "";
}

void mwc_web_publish(mwc_web *w, char *state, size_t len)
{
    (void)w;
    (void)len;
    free(state);
}

void mwc_web_stop(mwc_web *w)
{
    (void)w;
}

#endif
