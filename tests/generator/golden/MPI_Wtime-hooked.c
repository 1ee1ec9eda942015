/* MPI_Wtime: environment */
static MW_NOINLINE double mw_slow_MPI_Wtime(void);

/* The profiled call. mw_fast: the TSC is the clock and the monitor is off
 * (see runtime/mw_mode.h), so neither is tested. */
static MW_ALWAYS_INLINE double mw_body_MPI_Wtime(const int mw_fast)
{
    if (!mw_fast) {
        if (!mw_enter_guard())
            return PMPI_Wtime();
    } else if (MW_UNLIKELY(mw_depth)) {
        return mw_slow_MPI_Wtime();   /* nested, or a first call */
    }
    if (mw_fast)
        mw_depth = 1;   /* the hooks run inside the guard; mw_clock_in keeps it */
    hook_calls++;
    mw_call call;
    mw_clock_in(&call, mw_fast);
    double ret = PMPI_Wtime();
    mw_clock_out(&call, mw_fast);
    if (hook_calls > 1000)
        fprintf(stderr, "MPI_Wtime returned %d\n", (int)ret);
    mw_leave(&call, MW_ID_MPI_Wtime, mw_fast);
    return ret;
}

static MW_NOINLINE double mw_fast_MPI_Wtime(void)
{
    return mw_body_MPI_Wtime(1);
}

static MW_NOINLINE double mw_slow_MPI_Wtime(void)
{
    return mw_body_MPI_Wtime(0);
}

/* Where MPI_Wtime goes: set by mw_mode_update(). */
static mw_fn mw_slot_MPI_Wtime = (mw_fn)mw_slow_MPI_Wtime;
MW_HIDDEN const mw_impl mw_impl_MPI_Wtime = {
    &mw_slot_MPI_Wtime, (mw_fn)PMPI_Wtime, (mw_fn)mw_fast_MPI_Wtime, (mw_fn)mw_slow_MPI_Wtime,
};

MW_EXPORT double MPI_Wtime(void)
{
    return ((double (*)(void))mw_slot_load(&mw_slot_MPI_Wtime))();
}
