/* The live page's HTTP server (web_server.h), on libmicrohttpd. */
#include "web_server.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef MW_HAVE_MICROHTTPD
#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <sys/socket.h>
#include <microhttpd.h>

#include "mpiwatch_viewer.h"

const char mwc_web_unavailable[] = "";

struct mwc_web {
    struct MHD_Daemon *daemon;
    char *page;                 /* the viewer with no report in it: it reads /api/state */
    size_t page_len;
    pthread_mutex_t lock;       /* guards state, state_len, requests */
    char *state;
    size_t state_len;
    unsigned long requests;
    char url[64];
};

static enum MHD_Result reply(struct MHD_Connection *c, unsigned status, const char *type,
                             void *body, size_t len, enum MHD_ResponseMemoryMode mode)
{
    struct MHD_Response *r = MHD_create_response_from_buffer(len, body, mode);
    if (r == NULL) {
        if (mode == MHD_RESPMEM_MUST_FREE)
            free(body);
        return MHD_NO;
    }
    MHD_add_response_header(r, "Content-Type", type);
    MHD_add_response_header(r, "Cache-Control", "no-store");
    MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
    enum MHD_Result ok = MHD_queue_response(c, status, r);
    MHD_destroy_response(r);
    return ok;
}

static enum MHD_Result text(struct MHD_Connection *c, unsigned status, const char *msg)
{
    return reply(c, status, "text/plain; charset=utf-8", (void *)msg, strlen(msg),
                 MHD_RESPMEM_PERSISTENT);
}

static enum MHD_Result answer(void *cls, struct MHD_Connection *c, const char *url,
                              const char *method, const char *version, const char *upload,
                              size_t *upload_size, void **con_cls)
{
    mwc_web *w = cls;
    (void)version;
    (void)upload;
    (void)con_cls;
    pthread_mutex_lock(&w->lock);
    w->requests++;
    pthread_mutex_unlock(&w->lock);
    if (strcmp(method, "GET") != 0 && strcmp(method, "HEAD") != 0)
        return text(c, MHD_HTTP_METHOD_NOT_ALLOWED, "only GET and HEAD\n");
    if (*upload_size != 0)
        return text(c, MHD_HTTP_BAD_REQUEST, "no request body here\n");
    if (strcmp(url, "/") == 0 || strcmp(url, "/index.html") == 0)
        return reply(c, MHD_HTTP_OK, "text/html; charset=utf-8", w->page, w->page_len,
                     MHD_RESPMEM_PERSISTENT);
    if (strcmp(url, "/api/state") == 0) {
        pthread_mutex_lock(&w->lock);
        size_t len = w->state_len;
        char *copy = malloc(len ? len : 1);
        if (copy != NULL && len)
            memcpy(copy, w->state, len);
        pthread_mutex_unlock(&w->lock);
        if (copy == NULL)
            return text(c, MHD_HTTP_SERVICE_UNAVAILABLE, "out of memory\n");
        return reply(c, MHD_HTTP_OK, "application/json", copy, len, MHD_RESPMEM_MUST_FREE);
    }
    return text(c, MHD_HTTP_NOT_FOUND, "not found: / is the page, /api/state the job's state\n");
}

/* "PORT" or "ADDR:PORT" into addr; 0 or -1 with err. */
static int parse(const char *where, struct sockaddr_in *addr, char *err, size_t errlen)
{
    memset(addr, 0, sizeof *addr);
    addr->sin_family = AF_INET;
    addr->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    const char *colon = strrchr(where, ':'), *port = colon ? colon + 1 : where;
    if (colon) {
        char host[64];
        size_t n = (size_t)(colon - where);
        if (n == 0 || n >= sizeof host) {
            snprintf(err, errlen, "--web %s: give [ADDR:]PORT, ADDR an IPv4 address", where);
            return -1;
        }
        memcpy(host, where, n);
        host[n] = '\0';
        if (strcmp(host, "localhost") == 0)
            snprintf(host, sizeof host, "127.0.0.1");
        if (inet_pton(AF_INET, host, &addr->sin_addr) != 1) {
            snprintf(err, errlen, "--web %s: '%s' is not an IPv4 address (such as 127.0.0.1 or 0.0.0.0)",
                     where, host);
            return -1;
        }
    }
    char *end;
    long p = strtol(port, &end, 10);
    if (end == port || *end || p < 0 || p > 65535) {
        snprintf(err, errlen, "--web %s: the port must be a number from 0 to 65535", where);
        return -1;
    }
    addr->sin_port = htons((uint16_t)p);
    return 0;
}

mwc_web *mwc_web_start(const char *where, char *err, size_t errlen)
{
    struct sockaddr_in addr;
    if (parse(where, &addr, err, errlen) != 0)
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
    pthread_mutex_init(&w->lock, NULL);
    w->daemon = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_POLL, 0, NULL, NULL,
                                 answer, w, MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&addr,
                                 MHD_OPTION_CONNECTION_LIMIT, (unsigned)64,
                                 MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)10,
                                 MHD_OPTION_END);
    if (w->daemon == NULL) {
        snprintf(err, errlen, "--web %s: cannot listen there (port in use, or an address "
                              "this host does not have?)", where);
        pthread_mutex_destroy(&w->lock);
        free(w->page);
        free(w);
        return NULL;
    }
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(w->daemon, MHD_DAEMON_INFO_BIND_PORT);
    char host[INET_ADDRSTRLEN] = "127.0.0.1";
    inet_ntop(AF_INET, &addr.sin_addr, host, sizeof host);
    snprintf(w->url, sizeof w->url, "http://%s:%u/", host,
             info ? (unsigned)info->port : (unsigned)ntohs(addr.sin_port));
    return w;
}

const char *mwc_web_url(const mwc_web *w)
{
    return w->url;
}

void mwc_web_publish(mwc_web *w, char *state, size_t len)
{
    pthread_mutex_lock(&w->lock);
    char *old = w->state;
    w->state = state;
    w->state_len = len;
    pthread_mutex_unlock(&w->lock);
    free(old);
}

unsigned long mwc_web_requests(const mwc_web *w)
{
    pthread_mutex_lock((pthread_mutex_t *)&w->lock);
    unsigned long n = w->requests;
    pthread_mutex_unlock((pthread_mutex_t *)&w->lock);
    return n;
}

void mwc_web_stop(mwc_web *w)
{
    if (w == NULL)
        return;
    MHD_stop_daemon(w->daemon);
    pthread_mutex_destroy(&w->lock);
    free(w->state);
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

unsigned long mwc_web_requests(const mwc_web *w)
{
    (void)w;
    return 0;
}

void mwc_web_stop(mwc_web *w)
{
    (void)w;
}

#endif
