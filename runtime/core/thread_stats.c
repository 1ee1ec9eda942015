/* Registry of the per-thread statistics blocks. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "core/handoff.h"
#include "core/state.h"
#include "core/thread_stats.h"
#include "core/warn.h"


static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static mw_thread *registry;
static uint32_t thread_count;
static pthread_key_t exit_key;
static pthread_once_t exit_key_once = PTHREAD_ONCE_INIT;
static int exit_key_ok;

/* A thread that exits keeps its statistics, but its TLS block goes: forget
 * it before, so that the monitor never reads a dead thread's block. */
static void forget_tls(void *arg)
{
    mw_thread *t = arg;
    pthread_mutex_lock(&registry_lock);
    t->tls = NULL;
    pthread_mutex_unlock(&registry_lock);
}

static void make_exit_key(void)
{
    exit_key_ok = pthread_key_create(&exit_key, forget_tls) == 0;
}

mw_thread *mw_thread_attach(void)
{
    static int warned;
    size_t size = sizeof(mw_thread) + (size_t)MW_FN_COUNT * sizeof(mw_site);
    mw_thread *t = NULL;
    /* Every function's histogram in one zeroed block: calloc maps it fresh,
     * so only the pages of functions that move data are ever touched. */
    uint64_t *hist = calloc((size_t)MW_FN_COUNT * MW_HIST_SLOTS, sizeof *hist);
    if (hist != NULL && posix_memalign((void **)&t, 64, size) == 0)
        memset(t, 0, size);
    else
        t = NULL;
    if (t == NULL) {
        free(hist);
        if (!warned++)
            mw_warn("out of memory for a thread's statistics; its calls are not profiled");
        return NULL;
    }
    for (int i = 0; i < MW_FN_COUNT; i++) {
        t->fn[i].s.min_ticks = UINT64_MAX;
        t->fn[i].key = mw_site_key(i, NULL);
        t->hist[i] = hist + (size_t)i * MW_HIST_SLOTS;
    }
    /* The handle caches start empty as zeroed (key 0 is no handle), valid
     * for generation 0: a thread attached after a handle was freed empties
     * them again at its first look-up (core/handles.h). */
    mw_pairs_attach(t);
    pthread_once(&exit_key_once, make_exit_key);
    pthread_mutex_lock(&registry_lock);
    t->number = thread_count++;
    /* Without a destructor to forget it, the block is never shown. */
    if (exit_key_ok && pthread_setspecific(exit_key, t) == 0)
        t->tls = &mw_tls;
    t->next = registry;
    registry = t;
    pthread_mutex_unlock(&registry_lock);
    mw_self = t;
    mw_guard_release();   /* was MW_GUARD_NEW: an attached thread is never inside a call */
    return t;
}

int mw_guard_contended(void)
{
    if (mw_guard_handed(mw_guard)) {   /* stale: not this call's (core/handoff.h) */
        mw_handoff_stale();
        mw_guard_hold();
        return 1;
    }
    if (mw_self != NULL || mw_thread_attach() == NULL)
        return 0;   /* nested; or no memory, and the guard stays MW_GUARD_NEW */
    mw_guard_hold();
    return 1;
}

/* No vector register: the trampoline below keeps only the general ones. */
#if MW_SITE_TRAMPOLINE
__attribute__((target("general-regs-only")))
#endif
mw_site *mw_site_find(mw_thread *t, uint64_t key)
{
    /* As mw_site_fn and mw_site_home, which cannot be inlined here. */
    int id = (int)(key >> 48);
    size_t home = (size_t)(key >> 2) & (MW_SITES - 1);
    for (unsigned k = 0; k <= MW_SITE_PROBES; k++) {
        unsigned slot = (unsigned)(home + k) & (MW_SITES - 1);
        mw_site *e = &t->sites[slot];
        if (e->key == key)
            return e;
        if (e->key == 0) {
            /* Only this thread writes its table; the sender thread reads it
             * (mw_stats_merge) under the registry lock, and sees the site
             * once nsites covers it. */
            e->s.min_ticks = UINT64_MAX;
            e->key = key;
            t->site_used[t->nsites] = (uint16_t)slot;
            __atomic_store_n(&t->nsites, t->nsites + 1, __ATOMIC_RELEASE);
            return e;
        }
    }
    t->sites_full++;
    return &t->fn[id];
}

#if MW_SITE_TRAMPOLINE
/* mw_site_find(mw_self, rax = key) -> rax, keeping every other general
 * register (see core/thread_stats.h). */
MW_HIDDEN mw_site *mw_site_find_self(uint64_t key);
mw_site *mw_site_find_self(uint64_t key)
{
    return mw_site_find(mw_self, key);
}

__asm__(".text\n"
        ".globl mw_site_miss_x86\n"
        ".hidden mw_site_miss_x86\n"
        ".type mw_site_miss_x86, @function\n"
        "mw_site_miss_x86:\n"
        "    push %rcx\n    push %rdx\n    push %rsi\n    push %rdi\n"
        "    push %r8\n    push %r9\n    push %r10\n    push %r11\n"
        "    push %rbp\n    mov %rsp, %rbp\n    and $-16, %rsp\n"
        "    mov %rax, %rdi\n"
        "    call mw_site_find_self\n"
        "    mov %rbp, %rsp\n    pop %rbp\n"
        "    pop %r11\n    pop %r10\n    pop %r9\n    pop %r8\n"
        "    pop %rdi\n    pop %rsi\n    pop %rdx\n    pop %rcx\n"
        "    ret\n"
        ".size mw_site_miss_x86, .-mw_site_miss_x86\n");
#endif

/* Another thread may be filling a memo meanwhile: of another handle than
 * the one being freed (MPI forbids using a handle while it is freed), and
 * its type is written last, so a fill that loses the race is only emptied. */
void mw_memos_forget(mw_thread *t)
{
    unsigned n = __atomic_load_n(&t->nsites, __ATOMIC_ACQUIRE);
    for (unsigned k = 0; k < n; k++)
        __atomic_store_n(&t->sites[t->site_used[k]].memo.type, (uintptr_t)0, __ATOMIC_RELAXED);
    if (__atomic_load_n(&t->fn_memos, __ATOMIC_RELAXED))
        for (int i = 0; i < MW_FN_COUNT; i++)
            __atomic_store_n(&t->fn[i].memo.type, (uintptr_t)0, __ATOMIC_RELAXED);
}

static void forget_memos(mw_thread *t, void *arg)
{
    (void)arg;
    mw_memos_forget(t);
}

void mw_threads_forget_memos(void)
{
    mw_threads_each(forget_memos, NULL);
}

void mw_threads_each(void (*fn)(mw_thread *t, void *arg), void *arg)
{
    pthread_mutex_lock(&registry_lock);
    for (mw_thread *t = registry; t != NULL; t = t->next)
        fn(t, arg);
    pthread_mutex_unlock(&registry_lock);
}

/* Other threads may be updating their tables (the monitor's periodic
 * snapshots): relaxed atomic loads, plain moves on x86. */
#define LOAD(x) __atomic_load_n(&(x), __ATOMIC_RELAXED)

void mw_stats_merge_one(mw_fn_stats *out, const mw_fn_stats *s)
{
    uint64_t max = LOAD(s->max_ticks), min = LOAD(s->min_ticks);
    out->calls += LOAD(s->calls);
    out->ticks += LOAD(s->ticks);
    out->sent += LOAD(s->sent);
    out->recv += LOAD(s->recv);
    out->sizes |= mw_sizes_fold(LOAD(s->sizes));
    if (max > out->max_ticks)
        out->max_ticks = max;
    if (min < out->min_ticks)
        out->min_ticks = min;
}

static void merge_one(mw_thread *t, void *arg)
{
    mw_fn_stats *out = arg;
    for (int i = 0; i < MW_FN_COUNT; i++)
        mw_stats_merge_one(&out[i], &t->fn[i].s);
    unsigned n = __atomic_load_n(&t->nsites, __ATOMIC_ACQUIRE);
    for (unsigned k = 0; k < n; k++) {
        const mw_site *e = &t->sites[t->site_used[k]];
        mw_stats_merge_one(&out[mw_site_fn(e->key)], &e->s);
    }
}

void mw_thread_totals(const mw_thread *t, uint64_t *ticks, uint64_t *calls)
{
    *ticks = *calls = 0;
    for (int i = 0; i < MW_FN_COUNT; i++) {
        *ticks += t->fn[i].s.ticks;
        *calls += t->fn[i].s.calls;
    }
    for (unsigned k = 0; k < t->nsites; k++) {
        *ticks += t->sites[t->site_used[k]].s.ticks;
        *calls += t->sites[t->site_used[k]].s.calls;
    }
}

void mw_stats_merge(mw_fn_stats *out)
{
    memset(out, 0, (size_t)MW_FN_COUNT * sizeof *out);
    for (int i = 0; i < MW_FN_COUNT; i++)
        out[i].min_ticks = UINT64_MAX;
    mw_threads_each(merge_one, out);
}

int mw_pairs_attach(mw_thread *t)
{
    if (t->pairs != NULL)
        return 1;
    int n = mw_state.world_size;
    uint64_t *pairs;
    if (!mw_state.started || n <= 0 || (pairs = calloc(2 * (size_t)n, sizeof *pairs)) == NULL)
        return 0;
    t->world_size = n;
    /* The monitor's sender reads the row (mw_pairs_merge): the pointer last. */
    __atomic_store_n(&t->pairs, pairs, __ATOMIC_RELEASE);
    return 1;
}

typedef struct pairs_arg {
    uint64_t *bytes, *messages;
    int n;
} pairs_arg;

static void merge_pairs_one(mw_thread *t, void *arg)
{
    pairs_arg *a = arg;
    const uint64_t *pairs = __atomic_load_n(&t->pairs, __ATOMIC_ACQUIRE);
    if (pairs == NULL)
        return;
    for (int d = 0; d < a->n && d < t->world_size; d++) {
        a->bytes[d] += __atomic_load_n(&pairs[2 * d], __ATOMIC_RELAXED);
        a->messages[d] += __atomic_load_n(&pairs[2 * d + 1], __ATOMIC_RELAXED);
    }
}

void mw_pairs_merge(uint64_t *bytes, uint64_t *messages, int n)
{
    pairs_arg a = {bytes, messages, n};
    memset(bytes, 0, (size_t)n * sizeof *bytes);
    memset(messages, 0, (size_t)n * sizeof *messages);
    mw_threads_each(merge_pairs_one, &a);
}
