/* The live page's published state (client/web_hub.c): each state as one
 * server-sent event whose data line is the whole JSON; references outlive a
 * newer publication; a waiter wakes at a new state, skips to the newest,
 * times out with nothing new and wakes at once when the hub stops; streams
 * are bounded, their slots come back, and the hub drains them at the end. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"
#include "web_hub.h"

static char *dup_str(const char *s)
{
    char *p = malloc(strlen(s) + 1);
    strcpy(p, s);
    return p;
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void events(void)
{
    mwc_web_hub h;
    CHECK(mwc_web_hub_init(&h, 2) == 0, "init");
    CHECK(mwc_web_hub_get(&h) == NULL, "no state before the first");
    mwc_web_hub_publish(&h, dup_str("{\"a\":\n[1,\r\n2]}\n"), 15);
    mwc_web_doc *d = mwc_web_hub_get(&h);
    CHECK(d != NULL && d->gen == 1, "the first state is generation 1");
    if (d != NULL) {
        const char *want = "id: 1\ndata: {\"a\": [1,  2]} \n\n";
        CHECK(d->len == strlen(want) && memcmp(d->buf, want, d->len) == 0,
              "one event, the JSON's newlines made spaces: '%.*s'", (int)d->len, d->buf);
        CHECK(d->json_len == 15 && memcmp(d->buf + d->json_off, "{\"a\": [1,  2]} ", 15) == 0,
              "the JSON for /api/state: '%.*s'", (int)d->json_len, d->buf + d->json_off);
    }
    mwc_web_hub_publish(&h, dup_str("{}"), 2);
    CHECK(d != NULL && d->buf[d->json_off] == '{' && d->gen == 1,
          "a reference stays valid after a newer state");
    mwc_web_hub_put(&h, d);
    d = mwc_web_hub_get(&h);
    CHECK(d != NULL && d->gen == 2 && memcmp(d->buf, "id: 2\ndata: {}\n\n", 16) == 0, "the newest");
    mwc_web_hub_put(&h, d);
    mwc_web_hub_destroy(&h);
}

static void *publish_later(void *p)
{
    mwc_web_hub *h = p;
    struct timespec t = {0, 200 * 1000 * 1000};
    nanosleep(&t, NULL);
    mwc_web_hub_publish(h, dup_str("{\"late\":1}"), 10);
    return NULL;
}

static void *stop_later(void *p)
{
    mwc_web_hub *h = p;
    struct timespec t = {0, 200 * 1000 * 1000};
    nanosleep(&t, NULL);
    mwc_web_hub_stop(h);
    return NULL;
}

static void waiting(void)
{
    mwc_web_hub h;
    mwc_web_hub_init(&h, 2);
    mwc_web_doc *d = NULL;
    double t0 = now();
    CHECK(mwc_web_hub_wait(&h, 0, 0.3, &d) == 0 && now() - t0 >= 0.29,
          "nothing published: the wait times out after 0.3 s (%.3f)", now() - t0);
    pthread_t th;
    pthread_create(&th, NULL, publish_later, &h);
    t0 = now();
    int got = mwc_web_hub_wait(&h, 0, 60, &d);
    double waited = now() - t0;
    pthread_join(th, NULL);
    /* 1, not 0: woken by the publication, not by the timeout (how soon is
     * no verdict: a busy machine may delay the publishing thread). */
    CHECK(got == 1 && d != NULL && d->gen == 1,
          "woken by the publication after %.3f s, not the 60 s timeout", waited);
    mwc_web_hub_put(&h, d);
    t0 = now();
    CHECK(mwc_web_hub_wait(&h, 1, 0.2, &d) == 0, "generation 1 seen: nothing new");
    mwc_web_hub_publish(&h, dup_str("{\"n\":2}"), 7);
    mwc_web_hub_publish(&h, dup_str("{\"n\":3}"), 7);
    CHECK(mwc_web_hub_wait(&h, 1, 0.2, &d) == 1 && d->gen == 3, "a slow reader skips to the newest");
    mwc_web_hub_put(&h, d);
    pthread_create(&th, NULL, stop_later, &h);
    t0 = now();
    got = mwc_web_hub_wait(&h, 3, 60, &d);
    waited = now() - t0;
    pthread_join(th, NULL);
    CHECK(got == -1, "the stop wakes a waiter (after %.3f s), with -1, not the 60 s timeout", waited);
    CHECK(mwc_web_hub_wait(&h, 0, 10, &d) == -1, "after the stop, no more states");
    mwc_web_hub_destroy(&h);
}

static void streams(void)
{
    mwc_web_hub h;
    mwc_web_hub_init(&h, 2);
    CHECK(mwc_web_hub_open_stream(&h) == 0 && mwc_web_hub_open_stream(&h) == 0, "two streams");
    CHECK(mwc_web_hub_open_stream(&h) == -1, "a third is refused");
    mwc_web_hub_close_stream(&h);
    CHECK(mwc_web_hub_open_stream(&h) == 0, "a closed stream's slot comes back");
    mwc_web_hub_stop(&h);
    double t0 = now();
    CHECK(mwc_web_hub_drain(&h, 0.2) == -1 && now() - t0 >= 0.19, "two streams still open: drain times out");
    mwc_web_hub_close_stream(&h);
    mwc_web_hub_close_stream(&h);
    CHECK(mwc_web_hub_drain(&h, 10) == 0, "all closed: drained");
    CHECK(mwc_web_hub_open_stream(&h) == -1, "none once the hub stops");
    mwc_web_hub_destroy(&h);
}

int main(void)
{
    events();
    waiting();
    streams();
    return CHECK_DONE("test_web_hub");
}
