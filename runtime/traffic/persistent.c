/* Persistent requests: what an *_init call would transfer is remembered
 * with its request and counted at each MPI_Start/MPI_Startall. A small
 * open-addressing table under a lock: starts are far rarer than messages. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "core/handles.h"
#include "traffic/traffic.h"

typedef struct entry {
    MPI_Request request;    /* MPI_REQUEST_NULL: free slot */
    int used;               /* 1 live, 2 deleted (a tombstone) */
    mw_call transfer;
} entry;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static entry *table;
static size_t capacity, live, tombstones;

static size_t hash(MPI_Request request)
{
    uintptr_t k = (uintptr_t)request;
    k ^= k >> 17;
    k *= 0x9E3779B97F4A7C15u;
    return (size_t)(k >> 20);
}

/* The slot of request, or of the first reusable slot on its probe path. */
static entry *find(MPI_Request request, int for_insert)
{
    entry *reuse = NULL;
    for (size_t i = hash(request), n = 0; n < capacity; i++, n++) {
        entry *e = &table[i & (capacity - 1)];
        if (e->used == 0)
            return for_insert && reuse ? reuse : (for_insert ? e : NULL);
        if (e->used == 1 && e->request == request)
            return e;
        if (e->used == 2 && reuse == NULL)
            reuse = e;
    }
    return for_insert ? reuse : NULL;
}

static int grow(void)
{
    size_t old_capacity = capacity;
    entry *old = table;
    capacity = capacity ? capacity * 2 : 64;
    table = calloc(capacity, sizeof *table);
    if (table == NULL) {
        table = old;
        capacity = old_capacity;
        return -1;
    }
    live = tombstones = 0;
    for (size_t i = 0; i < old_capacity; i++) {
        if (old[i].used == 1) {
            *find(old[i].request, 1) = old[i];
            live++;
        }
    }
    free(old);
    return 0;
}

void mw_persist(mw_call *c, MPI_Request request)
{
    pthread_mutex_lock(&lock);
    if ((live + tombstones + 1) * 2 <= capacity || grow() == 0) {
        entry *e = find(request, 1);
        if (e->used != 1) {
            if (e->used == 2)
                tombstones--;
            live++;
        }
        e->request = request;
        e->used = 1;
        e->transfer = *c;
    }
    pthread_mutex_unlock(&lock);
    /* The init call itself moves no data. */
    c->sent = 0;
    c->recv = 0;
    c->messages = 0;
}

/* Copy the remembered transfer of request into *out; 0 if none. */
static int lookup(MPI_Request request, mw_call *out)
{
    int found = 0;
    pthread_mutex_lock(&lock);
    entry *e = capacity ? find(request, 0) : NULL;
    if (e != NULL) {
        *out = e->transfer;
        found = 1;
    }
    pthread_mutex_unlock(&lock);
    return found;
}

void mw_note_start(mw_call *c, MPI_Request request)
{
    mw_call transfer;
    mw_note_nothing(c);
    if (!lookup(request, &transfer))
        return;
    c->sent = transfer.sent;
    c->recv = transfer.recv;
    c->peer = transfer.peer;
    c->tag = transfer.tag;
    c->comm = transfer.comm;
    c->messages = transfer.messages;
}

void mw_note_startall(mw_call *c, int count, const MPI_Request *requests)
{
    mw_call one;
    int first = 1;
    mw_note_nothing(c);
    for (int i = 0; i < count; i++) {
        mw_note_start(&one, requests[i]);
        /* No message (traffic/inline.h); a 0-byte receive from a real peer
         * still joins the call's peer, tag and communicator. */
        if (MW_CALL_NO_MESSAGE(&one))
            continue;
        /* Peers may differ: count each send's destination here. */
        if (one.messages && one.peer >= 0)
            mw_count_pair(one.peer, one.sent, one.messages);
        c->sent += one.sent;
        c->recv += one.recv;
        /* One peer and tag for the call only when all its transfers agree. */
        if (first) {
            c->peer = one.peer;
            c->tag = one.tag;
            c->comm = one.comm;
            first = 0;
        } else {
            c->peer = c->peer == one.peer ? c->peer : -1;
            c->tag = c->tag == one.tag ? c->tag : -1;
            c->comm = c->comm == one.comm ? c->comm : MPI_COMM_NULL;
        }
    }
}

void mw_forget_request(MPI_Request request)
{
    pthread_mutex_lock(&lock);
    entry *e = capacity ? find(request, 0) : NULL;
    if (e != NULL) {
        e->used = 2;
        live--;
        tombstones++;
    }
    pthread_mutex_unlock(&lock);
}
