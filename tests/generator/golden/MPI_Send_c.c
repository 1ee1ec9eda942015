/* MPI_Send_c: send, large-count variant */
static MW_NOINLINE int mw_slow_MPI_Send_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm);

/* The profiled call. mw_fast: the TSC is the clock and the monitor is off
 * (see runtime/mw_mode.h), so neither is tested. */
static MW_ALWAYS_INLINE int mw_body_MPI_Send_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, const int mw_fast)
{
    if (!mw_fast) {
        if (!mw_enter_guard())
            return PMPI_Send_c(buf, count, datatype, dest, tag, comm);
    } else if (MW_UNLIKELY(mw_depth)) {
        return mw_slow_MPI_Send_c(buf, count, datatype, dest, tag, comm);   /* nested, or a first call */
    }
    mw_call call;
    mw_clock_in(&call, mw_fast);
    int ret = PMPI_Send_c(buf, count, datatype, dest, tag, comm);
    mw_clock_out(&call, mw_fast);
    if (ret == MPI_SUCCESS) {
        mw_note_send(&call, count, datatype, dest, tag, comm);
    } else {
        mw_note_nothing(&call);
    }
    mw_leave_xfer(&call, MW_ID_MPI_Send_c, mw_fast);
    return ret;
}

static MW_NOINLINE int mw_fast_MPI_Send_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    return mw_body_MPI_Send_c(buf, count, datatype, dest, tag, comm, 1);
}

static MW_NOINLINE int mw_slow_MPI_Send_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    return mw_body_MPI_Send_c(buf, count, datatype, dest, tag, comm, 0);
}

/* Where MPI_Send_c goes: set by mw_mode_update(). */
static mw_fn mw_slot_MPI_Send_c = (mw_fn)mw_slow_MPI_Send_c;
MW_HIDDEN const mw_impl mw_impl_MPI_Send_c = {
    &mw_slot_MPI_Send_c, (mw_fn)PMPI_Send_c, (mw_fn)mw_fast_MPI_Send_c, (mw_fn)mw_slow_MPI_Send_c,
};

MW_EXPORT int MPI_Send_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    return ((int (*)(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm))mw_slot_load(&mw_slot_MPI_Send_c))(buf, count, datatype, dest, tag, comm);
}
