/* MPI_Send_c: send, large-count variant */
static MW_NOINLINE int mw_slow_MPI_Send_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm);

static MW_ALWAYS_INLINE int mw_body_MPI_Send_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, const int mw_how)
{
    if (mw_how == MW_SLOW) {
        if (!mw_enter_guard())
            return PMPI_Send_c(buf, count, datatype, dest, tag, comm);
    } else if (MW_UNLIKELY(mw_depth)) {
        if (MW_LIKELY(mw_self != NULL))   /* nested: not counted again */
            return PMPI_Send_c(buf, count, datatype, dest, tag, comm);
        return mw_slow_MPI_Send_c(buf, count, datatype, dest, tag, comm);
    }
#if MW_HAVE_MEMO
    if (mw_how == MW_FAST) {
        /* The call site's memo (runtime/traffic/memo.h): nothing kept in
         * registers across PMPI_Send_c. */
        mw_site *mw_e = mw_memo_site(MW_ID_MPI_Send_c, MW_CALL_SITE, MW_MEMO_SEND, MW_MEMO_KEY(datatype), MW_MEMO_KEY(comm));
        if (MW_UNLIKELY(mw_e == NULL))
            return mw_slow_MPI_Send_c(buf, count, datatype, dest, tag, comm);
        mw_xfer_keep(mw_e, count, dest);
        mw_xfer_clock_in();
        return mw_xfer_end_send(PMPI_Send_c(buf, count, datatype, dest, tag, comm), MW_ID_MPI_Send_c);
    }
#endif
    mw_publish_args(mw_how, 0xb01, (uintptr_t)comm, dest, tag, 0);
    mw_publish(mw_how, MW_ID_MPI_Send_c);
    mw_call call;
    /* Noted before the call, from its arguments alone: fewer values to keep
     * across PMPI_Send_c, and outside the timed span. */
    mw_note_send(&call, count, datatype, dest, tag, comm);
    mw_clock_in(&call, mw_how);
    mw_publish_time(mw_how, &call);
    int ret = PMPI_Send_c(buf, count, datatype, dest, tag, comm);
    mw_clock_out(&call, mw_how);
    if (MW_UNLIKELY(ret != MPI_SUCCESS)) {
        mw_leave(&call, MW_ID_MPI_Send_c, mw_how);
        return ret;
    }
    mw_leave_xfer(&call, MW_ID_MPI_Send_c, mw_how);
    return ret;
}

static MW_NOINLINE int mw_fast_MPI_Send_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    return mw_body_MPI_Send_c(buf, count, datatype, dest, tag, comm, MW_FAST);
}

static MW_NOINLINE int mw_watched_MPI_Send_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    return mw_body_MPI_Send_c(buf, count, datatype, dest, tag, comm, MW_WATCHED);
}

static MW_NOINLINE int mw_slow_MPI_Send_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    return mw_body_MPI_Send_c(buf, count, datatype, dest, tag, comm, MW_SLOW);
}

static mw_fn mw_slot_MPI_Send_c = (mw_fn)mw_slow_MPI_Send_c;
MW_HIDDEN const mw_impl mw_impl_MPI_Send_c = {
    &mw_slot_MPI_Send_c, (mw_fn)PMPI_Send_c, (mw_fn)mw_fast_MPI_Send_c,
    (mw_fn)mw_watched_MPI_Send_c, (mw_fn)mw_slow_MPI_Send_c,
};

MW_EXPORT int MPI_Send_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    return ((__typeof__(&PMPI_Send_c))mw_slot_load(&mw_slot_MPI_Send_c))(buf, count, datatype, dest, tag, comm);
}
