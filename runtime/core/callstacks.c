/* Deeper call sites: see core/callstacks.h. */
#include <execinfo.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/callstacks.h"
#include "core/warn.h"

typedef struct mw_callstack {
    uint64_t hash;
    int n;                                 /* 0 = empty; stored last (release) */
    const void *frame[MW_CALLSTACK_MAX];
} mw_callstack;

int mw_callsite_depth = 1;

static mw_callstack *stacks;               /* MW_CALLSTACKS entries, made at first use */
static int used;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

#define PROBES 64

static uint64_t hash_of(const void *const *frame, int n)
{
    uint64_t h = 1469598103934665603ull;   /* FNV-1a over the addresses */
    for (int i = 0; i < n; i++) {
        h ^= (uint64_t)(uintptr_t)frame[i];
        h *= 1099511628211ull;
    }
    return h | 1;
}

/* The entry holding this stack, or NULL; with the lock held, *free_slot
 * gets the first empty slot on the way. */
static mw_callstack *find(uint64_t h, const void *const *frame, int n, mw_callstack **free_slot)
{
    mw_callstack *table = __atomic_load_n(&stacks, __ATOMIC_ACQUIRE);
    if (table == NULL)
        return NULL;
    for (int p = 0; p < PROBES; p++) {
        mw_callstack *e = &table[(h + (uint64_t)p) & (MW_CALLSTACKS - 1)];
        int en = __atomic_load_n(&e->n, __ATOMIC_ACQUIRE);
        if (en == 0) {
            if (free_slot != NULL)
                *free_slot = e;
            return NULL;
        }
        if (e->hash == h && en == n && memcmp(e->frame, frame, (size_t)n * sizeof *frame) == 0)
            return e;
    }
    return NULL;
}

static mw_callstack *insert(uint64_t h, const void *const *frame, int n)
{
    static int warned;
    mw_callstack *e, *slot = NULL;
    pthread_mutex_lock(&lock);
    if (stacks == NULL)
        __atomic_store_n(&stacks, calloc(MW_CALLSTACKS, sizeof *stacks), __ATOMIC_RELEASE);
    if ((e = find(h, frame, n, &slot)) == NULL && slot != NULL && used < MW_CALLSTACKS / 2) {
        e = slot;
        e->hash = h;
        memcpy(e->frame, frame, (size_t)n * sizeof *frame);
        __atomic_store_n(&e->n, n, __ATOMIC_RELEASE);
        used++;
    }
    if (e == NULL && !warned++)
        mw_warn("more than %d distinct call stacks (MPIWATCH_CALLSITE_DEPTH=%d); further ones "
                "are kept by their innermost call site", MW_CALLSTACKS / 2, mw_callsite_depth);
    pthread_mutex_unlock(&lock);
    return e;
}

const void *mw_callstack_site(const void *ra)
{
    void *trace[64];
    int n = backtrace(trace, 64), k = 0;
    while (k < n && trace[k] != ra)
        k++;
    if (k == n)
        return ra;               /* the unwinder lost the caller: keep the site */
    int depth = n - k < mw_callsite_depth ? n - k : mw_callsite_depth;
    const void *const *frame = (const void *const *)&trace[k];
    uint64_t h = hash_of(frame, depth);
    mw_callstack *e = find(h, frame, depth, NULL);
    if (e == NULL)
        e = insert(h, frame, depth);
    return e != NULL ? (const void *)e : ra;
}

int mw_callstack_frames(const void *site, const void **frames)
{
    mw_callstack *table = __atomic_load_n(&stacks, __ATOMIC_ACQUIRE);
    uintptr_t a = (uintptr_t)site, lo = (uintptr_t)table;
    if (table != NULL && a >= lo && a < lo + MW_CALLSTACKS * sizeof *table &&
        (a - lo) % sizeof *table == 0) {
        const mw_callstack *e = site;
        int n = __atomic_load_n(&e->n, __ATOMIC_ACQUIRE);
        memcpy(frames, e->frame, (size_t)n * sizeof *frames);
        return n;
    }
    frames[0] = site;
    return 1;
}
