/* MPI_Send: send */
static MW_NOINLINE int mw_slow_MPI_Send(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm);

/* The profiled call. mw_fast: the TSC is the clock and the monitor is off
 * (see runtime/mw_mode.h), so neither is tested. */
static MW_ALWAYS_INLINE int mw_body_MPI_Send(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, const int mw_fast)
{
    if (!mw_fast) {
        if (!mw_enter_guard())
            return PMPI_Send(buf, count, datatype, dest, tag, comm);
    } else if (MW_UNLIKELY(mw_depth)) {
        return mw_slow_MPI_Send(buf, count, datatype, dest, tag, comm);   /* nested, or a first call */
    }
    if (mw_fast)
        mw_depth = 1;   /* the hooks run inside the guard; mw_clock_in keeps it */
    fprintf(stderr, "MPI_Send: %lld bytes to %d\n", ((long long)(count) * mpiwatch_type_size(datatype)), dest);
    mw_call call;
    mw_clock_in(&call, mw_fast);
    int ret = PMPI_Send(buf, count, datatype, dest, tag, comm);
    mw_clock_out(&call, mw_fast);
    if (ret == MPI_SUCCESS) {
        mw_note_send(&call, count, datatype, dest, tag, comm);
    } else {
        mw_note_nothing(&call);
    }
    if (hook_calls > 1000)
        fprintf(stderr, "MPI_Send returned %d\n", (int)ret);
    mw_leave_xfer(&call, MW_ID_MPI_Send, mw_fast);
    return ret;
}

static MW_NOINLINE int mw_fast_MPI_Send(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    return mw_body_MPI_Send(buf, count, datatype, dest, tag, comm, 1);
}

static MW_NOINLINE int mw_slow_MPI_Send(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    return mw_body_MPI_Send(buf, count, datatype, dest, tag, comm, 0);
}

/* Where MPI_Send goes: set by mw_mode_update(). */
static mw_fn mw_slot_MPI_Send = (mw_fn)mw_slow_MPI_Send;
MW_HIDDEN const mw_impl mw_impl_MPI_Send = {
    &mw_slot_MPI_Send, (mw_fn)PMPI_Send, (mw_fn)mw_fast_MPI_Send, (mw_fn)mw_slow_MPI_Send,
};

MW_EXPORT int MPI_Send(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    return ((int (*)(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm))mw_slot_load(&mw_slot_MPI_Send))(buf, count, datatype, dest, tag, comm);
}
