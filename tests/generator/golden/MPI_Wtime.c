/* MPI_Wtime: environment */
static MW_NOINLINE double mw_slow_MPI_Wtime(void);

static MW_ALWAYS_INLINE double mw_body_MPI_Wtime(const int mw_how,
                                                   const void *mw_ra)
{
    if (mw_how == MW_SLOW) {
        if (!mw_enter_guard())
            return PMPI_Wtime();
    } else if (MW_UNLIKELY(mw_guard_taken())) {
        /* Nested: not counted again. A stale handed word (core/handoff.h)
         * goes the slow way, which frees it. */
        if (MW_LIKELY(mw_self != NULL) && MW_LIKELY(!mw_guard_handed(mw_guard_word())))
            return PMPI_Wtime();
        return mw_slow_MPI_Wtime();
    }
    mw_publish(mw_how, MW_ID_MPI_Wtime);
    mw_call call;
    mw_clock_in(&call, mw_how);
    mw_publish_time(mw_how, &call);
    double ret = PMPI_Wtime();
    mw_clock_out(&call, mw_how);
    mw_leave_at(&call, MW_ID_MPI_Wtime, mw_how, MW_SITE_OR_CALLER(mw_ra));
    return ret;
}

static MW_NOINLINE double mw_fast_MPI_Wtime(void)
{
    return mw_body_MPI_Wtime(MW_FAST, NULL);
}

static MW_NOINLINE double mw_watched_MPI_Wtime(void)
{
    return mw_body_MPI_Wtime(MW_WATCHED, NULL);
}

static MW_NOINLINE double mw_slow_MPI_Wtime(void)
{
    return mw_body_MPI_Wtime(MW_SLOW, NULL);
}

static MW_NOINLINE double mw_traced_MPI_Wtime(void)
{
    return mw_body_MPI_Wtime(MW_TRACED, NULL);
}

static mw_fn mw_slot_MPI_Wtime = (mw_fn)mw_slow_MPI_Wtime;
MW_HIDDEN const mw_impl mw_impl_MPI_Wtime = {
    &mw_slot_MPI_Wtime, (mw_fn)PMPI_Wtime, (mw_fn)mw_fast_MPI_Wtime,
    (mw_fn)mw_watched_MPI_Wtime, (mw_fn)mw_slow_MPI_Wtime, (mw_fn)mw_traced_MPI_Wtime,
};

MW_EXPORT double MPI_Wtime(void)
{
    return ((__typeof__(&PMPI_Wtime))mw_slot_load(&mw_slot_MPI_Wtime))();
}
