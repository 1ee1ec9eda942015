/* MPI_Send_c: send, large-count variant */
static MW_NOINLINE int mw_slow_MPI_Send_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm);

static MW_ALWAYS_INLINE int mw_body_MPI_Send_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, const int mw_how,
                                                   const void *mw_ra)
{
    if (mw_how == MW_SLOW) {
        if (!mw_enter_guard())
            return PMPI_Send_c(buf, count, datatype, dest, tag, comm);
    } else if (MW_UNLIKELY(mw_guard_taken())) {
        /* Nested: not counted again. A stale handed word (core/handoff.h)
         * goes the slow way, which frees it. */
        if (MW_LIKELY(mw_self != NULL) && MW_LIKELY(!mw_guard_handed(mw_guard_word())))
            return PMPI_Send_c(buf, count, datatype, dest, tag, comm);
        return mw_slow_MPI_Send_c(buf, count, datatype, dest, tag, comm);
    }
    if (mw_how != MW_SLOW)
        mw_guard_hold();
#line 21 "TMPDIR/golden-hooks.j2"
    fprintf(stderr, "MPI_Send_c: %lld bytes to %d\n", ((long long)(count) * mpiwatch_type_size(datatype)), dest);
#line 142 "wrap_send.c"
    mw_publish_args(mw_how, MWP_IF_SENDS | MW_INFLIGHT_HAS_COMM | MW_INFLIGHT_HAS_PEER | MW_INFLIGHT_HAS_TAG, (uintptr_t)comm, dest, tag, 0);
    mw_publish(mw_how, MW_ID_MPI_Send_c);
    mw_call call;
    mw_clock_in(&call, mw_how);
    mw_publish_time(mw_how, &call);
    int ret = PMPI_Send_c(buf, count, datatype, dest, tag, comm);
    mw_clock_out(&call, mw_how);
    if (ret == MPI_SUCCESS) {
        mw_note_send(&call, count, datatype, dest, tag, comm);
    } else {
        mw_note_nothing(&call);
    }
#line 16 "TMPDIR/golden-hooks.j2"
    if (hook_calls > 1000)
        fprintf(stderr, "MPI_Send_c returned %d\n", (int)ret);
#line 158 "wrap_send.c"
    mw_leave_xfer_at(&call, MW_ID_MPI_Send_c, mw_how, MW_SITE_OR_CALLER(mw_ra));
    return ret;
}

static MW_NOINLINE int mw_fast_MPI_Send_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    return mw_body_MPI_Send_c(buf, count, datatype, dest, tag, comm, MW_FAST, NULL);
}

static MW_NOINLINE int mw_watched_MPI_Send_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    return mw_body_MPI_Send_c(buf, count, datatype, dest, tag, comm, MW_WATCHED, NULL);
}

static MW_NOINLINE int mw_slow_MPI_Send_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    return mw_body_MPI_Send_c(buf, count, datatype, dest, tag, comm, MW_SLOW, NULL);
}

static MW_NOINLINE int mw_traced_MPI_Send_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    return mw_body_MPI_Send_c(buf, count, datatype, dest, tag, comm, MW_TRACED, NULL);
}

static mw_fn mw_slot_MPI_Send_c = (mw_fn)mw_slow_MPI_Send_c;
MW_HIDDEN const mw_impl mw_impl_MPI_Send_c = {
    &mw_slot_MPI_Send_c, (mw_fn)PMPI_Send_c, (mw_fn)mw_fast_MPI_Send_c,
    (mw_fn)mw_watched_MPI_Send_c, (mw_fn)mw_slow_MPI_Send_c, (mw_fn)mw_traced_MPI_Send_c,
};

MW_EXPORT int MPI_Send_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    return ((__typeof__(&PMPI_Send_c))mw_slot_load(&mw_slot_MPI_Send_c))(buf, count, datatype, dest, tag, comm);
}
