/* The state as Server-Sent Events (web_stream.h); nothing without
 * libmicrohttpd, whose absence web_server.c reports. */
#ifdef MW_HAVE_MICROHTTPD
#include "web_stream.h"

#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

/* Seconds without a new state before a comment line: well under the
 * server's connection timeout (10 s), so that a quiet stream (the job is
 * over) stays open, and often enough that a browser gone away is noticed
 * within about two of them (the second write to a closed connection fails)
 * and its slot freed. */
#define HEARTBEAT 1.0

/* First, how soon the browser should reconnect if the stream drops. */
static const char hello[] = "retry: 2000\n\n";
static const char beat[] = ": nothing new\n\n";

typedef struct {
    mwc_web_hub *hub;
    mwc_web_doc *doc;       /* the event being sent, or NULL */
    unsigned long seen;     /* the generation of the last state sent */
    const char *out;        /* what is left to send: in doc, hello or beat */
    size_t left;
} stream;

static ssize_t next(void *cls, uint64_t pos, char *buf, size_t max)
{
    stream *s = cls;
    (void)pos;
    if (s->left == 0) {
        mwc_web_hub_put(s->hub, s->doc);
        s->doc = NULL;
        mwc_web_doc *d;
        int got = mwc_web_hub_wait(s->hub, s->seen, HEARTBEAT, &d);
        if (got < 0)
            return MHD_CONTENT_READER_END_OF_STREAM;   /* mpiwatch is ending */
        if (got == 0) {
            s->out = beat;
            s->left = sizeof beat - 1;
        } else {
            s->doc = d;
            s->seen = d->gen;
            s->out = d->buf;
            s->left = d->len;
        }
    }
    size_t n = s->left < max ? s->left : max;
    memcpy(buf, s->out, n);
    s->out += n;
    s->left -= n;
    return (ssize_t)n;
}

static void done(void *cls)
{
    stream *s = cls;
    mwc_web_hub_put(s->hub, s->doc);
    mwc_web_hub_close_stream(s->hub);
    free(s);
}

struct MHD_Response *mwc_web_stream_response(mwc_web_hub *h, int *full)
{
    *full = 0;
    if (mwc_web_hub_open_stream(h) != 0) {
        *full = 1;
        return NULL;
    }
    stream *s = calloc(1, sizeof *s);
    if (s == NULL) {
        mwc_web_hub_close_stream(h);
        return NULL;
    }
    s->hub = h;
    s->out = hello;
    s->left = sizeof hello - 1;
    struct MHD_Response *r = MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 16 * 1024,
                                                               next, s, done);
    if (r == NULL)
        done(s);
    return r;
}

#else
typedef int mwc_web_stream_unused;   /* ISO C wants something in a file */
#endif
