/* mpiwatch_counter_add: named counters for hooks. A name is looked up first
 * where the same pointer came last (hooks often pass string literals), then
 * among all names; either way by its text, since a hook may also pass one
 * buffer holding different names (count-tags.j2 formats "MPI_Send tag %d").
 * New names take the lock. Values are added atomically, so any thread may
 * count. */
#include <pthread.h>
#include <string.h>

#include "mpiwatch.h"
#include "core/hook_counters.h"
#include "core/warn.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static char names[MW_MAX_COUNTERS][MW_COUNTER_NAME];
static const char *seen[MW_MAX_COUNTERS];   /* the last pointer each name came as */
static int64_t values[MW_MAX_COUNTERS];
static int count;                            /* published with release */

static int find(const char *name)
{
    int n = __atomic_load_n(&count, __ATOMIC_ACQUIRE);
    for (int i = 0; i < n; i++)
        if (__atomic_load_n(&seen[i], __ATOMIC_RELAXED) == name &&
            strncmp(names[i], name, MW_COUNTER_NAME - 1) == 0)
            return i;
    for (int i = 0; i < n; i++)
        if (strncmp(names[i], name, MW_COUNTER_NAME - 1) == 0) {
            __atomic_store_n(&seen[i], name, __ATOMIC_RELAXED);
            return i;
        }
    return -1;
}

static int add_name(const char *name)
{
    static int warned;
    pthread_mutex_lock(&lock);
    int i = find(name);
    if (i < 0 && count < MW_MAX_COUNTERS) {
        i = count;
        strncpy(names[i], name, MW_COUNTER_NAME - 1);
        __atomic_store_n(&seen[i], name, __ATOMIC_RELAXED);
        __atomic_store_n(&count, count + 1, __ATOMIC_RELEASE);
    } else if (i < 0 && !warned++) {
        mw_warn("more than %d counter names; '%s' and later ones are not counted",
                MW_MAX_COUNTERS, name);
    }
    pthread_mutex_unlock(&lock);
    return i;
}

MW_EXPORT void mpiwatch_counter_add(const char *name, long long value)
{
    if (name == NULL || name[0] == '\0')
        return;
    int i = find(name);
    if (i < 0 && (i = add_name(name)) < 0)
        return;
    __atomic_add_fetch(&values[i], (int64_t)value, __ATOMIC_RELAXED);
}

int mw_counters_read(char out_names[][MW_COUNTER_NAME], int64_t *out_values, int max)
{
    int n = __atomic_load_n(&count, __ATOMIC_ACQUIRE);
    n = n < max ? n : max;
    for (int i = 0; i < n; i++) {
        memcpy(out_names[i], names[i], MW_COUNTER_NAME);
        out_values[i] = __atomic_load_n(&values[i], __ATOMIC_RELAXED);
    }
    return n;
}
