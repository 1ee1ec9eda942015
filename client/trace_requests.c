/* Completions matched to their requests' starts (trace_requests.h). */
#include "trace_requests.h"

#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    uint64_t handle, t;   /* a start: its leave; a completion: its call's enter */
    int done;             /* 0 start (first at one time), 1 completion */
    size_t at;            /* the call (start) or the completion (r->done) */
} event;

static int by_handle_time(const void *a, const void *b)
{
    const event *x = a, *y = b;
    if (x->handle != y->handle)
        return x->handle < y->handle ? -1 : 1;
    if (x->t != y->t)
        return x->t < y->t ? -1 : 1;
    if (x->done != y->done)
        return x->done - y->done;
    return x->at < y->at ? -1 : x->at > y->at;
}

/* A receive's function (MPI_Irecv, MPI_Imrecv and their large forms). */
static int receives(const char *name)
{
    char low[64];
    size_t n = 0;
    for (; name[n] != '\0' && n + 1 < sizeof low; n++)
        low[n] = (char)tolower((unsigned char)name[n]);
    low[n] = '\0';
    return strstr(low, "recv") != NULL && strstr(low, "sendrecv") == NULL;
}

int mwc_trace_match_requests(mwc_trace_rank *r)
{
    size_t n = 0;
    for (size_t i = 0; i < r->ncalls; i++)
        n += r->calls[i].request != 0;
    for (size_t d = 0; d < r->ndone; d++)
        n += r->done[d].request != 0;
    if (n == 0)
        return 0;
    event *ev = malloc(n * sizeof *ev);
    size_t *open = malloc(n * sizeof *open);      /* starts of the handle not yet completed */
    size_t *start_of = malloc(r->ndone * sizeof *start_of);   /* by completion; SIZE_MAX none */
    if (ev == NULL || open == NULL || start_of == NULL) {
        free(ev);
        free(open);
        free(start_of);
        return -1;
    }
    size_t k = 0;
    for (size_t i = 0; i < r->ncalls; i++) {
        const mwc_trace_call *c = &r->calls[i];
        if (c->request != 0)
            ev[k++] = (event){c->request, c->t_out, 0, i};
        for (uint32_t j = 0; j < c->ndone; j++) {
            size_t d = c->first_done + j;
            start_of[d] = SIZE_MAX;
            if (r->done[d].request != 0)
                ev[k++] = (event){r->done[d].request, c->t_in, 1, d};
        }
    }
    qsort(ev, k, sizeof *ev, by_handle_time);
    for (size_t a = 0, b; a < k; a = b) {
        size_t nopen = 0;
        for (b = a; b < k && ev[b].handle == ev[a].handle; b++) {
            if (!ev[b].done)
                open[nopen++] = ev[b].at;
            else if (nopen > 0)
                start_of[ev[b].at] = open[--nopen];   /* the latest started */
        }
    }
    for (size_t i = 0; i < r->ncalls; i++)
        if (r->calls[i].request != 0)
            r->calls[i].request = (uint64_t)i + 1;
    /* Keep the matched completions (and the calls' own receives), in order. */
    size_t w = 0;
    for (size_t i = 0; i < r->ncalls; i++) {
        mwc_trace_call *c = &r->calls[i];
        size_t first = w;
        for (uint32_t j = 0; j < c->ndone; j++) {
            size_t d = c->first_done + j;
            mwc_trace_done done = r->done[d];
            if (done.request != 0) {
                if (start_of[d] == SIZE_MAX)
                    continue;
                const mwc_trace_call *s = &r->calls[start_of[d]];
                done.request = (uint64_t)start_of[d] + 1;
                if (!receives(r->names[s->fn])) {
                    done.source = done.tag = -1;   /* a send's status says nothing */
                    done.bytes = 0;
                } else if (done.source < 0 && done.tag >= 0 && s->traffic && s->peer >= 0) {
                    done.source = s->peer;   /* the source its start named */
                }
            }
            r->done[w++] = done;
        }
        c->first_done = first;
        c->ndone = (uint32_t)(w - first);
    }
    r->ndone = w;
    free(ev);
    free(open);
    free(start_of);
    return 0;
}
