/* The live page's published state (web_hub.h). */
#include "web_hub.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int mwc_web_hub_init(mwc_web_hub *h, unsigned max_streams)
{
    memset(h, 0, sizeof *h);
    h->max_streams = max_streams;
    pthread_condattr_t ca;
    if (pthread_condattr_init(&ca) != 0)
        return -1;
    /* Monotonic: a wall clock set back must not hold a stream for hours. */
    int rc = pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    if (rc == 0)
        rc = pthread_cond_init(&h->changed, &ca);
    pthread_condattr_destroy(&ca);
    if (rc != 0)
        return -1;
    if (pthread_mutex_init(&h->lock, NULL) != 0) {
        pthread_cond_destroy(&h->changed);
        return -1;
    }
    return 0;
}

void mwc_web_hub_destroy(mwc_web_hub *h)
{
    if (h->doc != NULL) {
        free(h->doc->buf);
        free(h->doc);
    }
    pthread_cond_destroy(&h->changed);
    pthread_mutex_destroy(&h->lock);
}

/* The event for json under generation gen; NULL when out of memory. */
static mwc_web_doc *make_doc(const char *json, size_t len, unsigned long gen)
{
    char head[48];
    int hn = snprintf(head, sizeof head, "id: %lu\ndata: ", gen);
    mwc_web_doc *d = malloc(sizeof *d);
    char *buf = malloc((size_t)hn + len + 2);
    if (d == NULL || buf == NULL) {
        free(d);
        free(buf);
        return NULL;
    }
    memcpy(buf, head, (size_t)hn);
    for (size_t i = 0; i < len; i++)
        buf[hn + i] = json[i] == '\n' || json[i] == '\r' ? ' ' : json[i];
    buf[hn + len] = '\n';
    buf[hn + len + 1] = '\n';
    d->refs = 1;
    d->gen = gen;
    d->buf = buf;
    d->len = (size_t)hn + len + 2;
    d->json_off = (size_t)hn;
    d->json_len = len;
    return d;
}

static void unref_locked(mwc_web_doc *d, mwc_web_doc **dead)
{
    *dead = --d->refs == 0 ? d : NULL;
}

static void free_doc(mwc_web_doc *d)
{
    if (d != NULL) {
        free(d->buf);
        free(d);
    }
}

void mwc_web_hub_publish(mwc_web_hub *h, char *json, size_t len)
{
    pthread_mutex_lock(&h->lock);
    unsigned long gen = h->gen + 1;
    pthread_mutex_unlock(&h->lock);
    /* Built outside the lock: readers never wait for a copy of the state. */
    mwc_web_doc *d = make_doc(json, len, gen), *dead = NULL;
    free(json);
    if (d == NULL)
        return;
    pthread_mutex_lock(&h->lock);
    h->gen = gen;
    if (h->doc != NULL)
        unref_locked(h->doc, &dead);
    h->doc = d;
    pthread_cond_broadcast(&h->changed);
    pthread_mutex_unlock(&h->lock);
    free_doc(dead);
}

mwc_web_doc *mwc_web_hub_get(mwc_web_hub *h)
{
    pthread_mutex_lock(&h->lock);
    mwc_web_doc *d = h->doc;
    if (d != NULL)
        d->refs++;
    pthread_mutex_unlock(&h->lock);
    return d;
}

void mwc_web_hub_put(mwc_web_hub *h, mwc_web_doc *d)
{
    if (d == NULL)
        return;
    mwc_web_doc *dead;
    pthread_mutex_lock(&h->lock);
    unref_locked(d, &dead);
    pthread_mutex_unlock(&h->lock);
    free_doc(dead);
}

static struct timespec deadline(double seconds)
{
    struct timespec until;
    clock_gettime(CLOCK_MONOTONIC, &until);
    long long ns = (long long)until.tv_nsec + (long long)(seconds * 1e9);
    until.tv_sec += (time_t)(ns / 1000000000);
    until.tv_nsec = (long)(ns % 1000000000);
    return until;
}

int mwc_web_hub_wait(mwc_web_hub *h, unsigned long seen, double seconds, mwc_web_doc **d)
{
    struct timespec until = deadline(seconds);
    int rc = 0;
    pthread_mutex_lock(&h->lock);
    while (!h->stopping && (h->doc == NULL || h->doc->gen <= seen) && rc != ETIMEDOUT)
        rc = pthread_cond_timedwait(&h->changed, &h->lock, &until);
    int got = h->stopping ? -1 : h->doc != NULL && h->doc->gen > seen ? 1 : 0;
    if (got == 1) {
        h->doc->refs++;
        *d = h->doc;
    }
    pthread_mutex_unlock(&h->lock);
    return got;
}

int mwc_web_hub_open_stream(mwc_web_hub *h)
{
    pthread_mutex_lock(&h->lock);
    int ok = !h->stopping && h->streams < h->max_streams;
    if (ok)
        h->streams++;
    pthread_mutex_unlock(&h->lock);
    return ok ? 0 : -1;
}

void mwc_web_hub_close_stream(mwc_web_hub *h)
{
    pthread_mutex_lock(&h->lock);
    if (h->streams > 0)
        h->streams--;
    pthread_cond_broadcast(&h->changed);   /* for mwc_web_hub_drain */
    pthread_mutex_unlock(&h->lock);
}

void mwc_web_hub_stop(mwc_web_hub *h)
{
    pthread_mutex_lock(&h->lock);
    h->stopping = 1;
    pthread_cond_broadcast(&h->changed);
    pthread_mutex_unlock(&h->lock);
}

int mwc_web_hub_drain(mwc_web_hub *h, double seconds)
{
    struct timespec until = deadline(seconds);
    int rc = 0;
    pthread_mutex_lock(&h->lock);
    while (h->streams > 0 && rc != ETIMEDOUT)
        rc = pthread_cond_timedwait(&h->changed, &h->lock, &until);
    int left = h->streams > 0;
    pthread_mutex_unlock(&h->lock);
    return left ? -1 : 0;
}
