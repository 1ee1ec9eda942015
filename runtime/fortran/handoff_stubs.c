/* The probe of a Fortran entry point's hand-over: see fortran/handoff_stubs.h. */
#include "core/mode.h"
#include "core/thread_stats.h"
#include "fortran/handoff_stubs.h"

uint64_t mw_handoff_probe(uint64_t key, const void *ra)
{
    mw_site *e = mw_site_find(mw_self, key);
    if (e == NULL)
        return UINT64_MAX;
    mw_guard = mw_handed_word(ra);
    return e->s.calls;
}

int mw_handoff_probed(uint64_t key, uint64_t calls, unsigned char *probed, const void *stub)
{
    __atomic_store_n(probed, 1, __ATOMIC_RELAXED);
    if (mw_guard_handed(mw_guard)) {   /* the binding did not reach a C wrapper */
        mw_guard_release();
        return 0;
    }
    /* Taken: by the C wrapper of this very call if the site counted one more
     * (not if the binding called another MPI function first). */
    mw_site *e = mw_site_find(mw_self, key);
    if (e != NULL && e->s.calls == calls + 1)
        mw_mode_fortran_handed(stub);
    return 1;
}
