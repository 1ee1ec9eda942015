/* MPI_Send: send */
static MW_NOINLINE int mw_slow_MPI_Send(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm);
static MW_NOINLINE int mw_slow_at_MPI_Send(const void *mw_ra, const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm);


#if MW_HAVE_MEMO
/* MPI_Send with its call site's memo (runtime/traffic/memo.h). */
static MW_ALWAYS_INLINE int mw_memo_call_MPI_Send(mw_site *mw_e, const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    mw_xfer_keep(mw_e, count, dest, MW_XFER_WIDE(count));
    mw_xfer_clock_in();
    int mw_ret = PMPI_Send(buf, count, datatype, dest, tag, comm);
    return mw_xfer_end_send(mw_ret, MW_ID_MPI_Send, MW_XFER_WIDE(count));
}

/* MPI_Send when the fast body found no memo at hand for the call site
 * whose key it left in mw_tls.xfer.key: filled out of line, or the general
 * way when it cannot serve (or the thread has no statistics yet). */
static MW_NOINLINE int mw_memo_miss_MPI_Send(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    const void *mw_ra = (const void *)mw_site_address(mw_tls.xfer.key);
    if (MW_UNLIKELY(mw_guard_taken()))
        return mw_slow_at_MPI_Send(mw_ra, buf, count, datatype, dest, tag, comm);
    mw_site *mw_e = mw_memo_prepare(MW_ID_MPI_Send, mw_ra, MW_MEMO_SEND, MW_MEMO_KEY(datatype), MW_MEMO_KEY(comm));
    if (mw_e == NULL)
        return mw_slow_at_MPI_Send(mw_ra, buf, count, datatype, dest, tag, comm);
    return mw_memo_call_MPI_Send(mw_e, buf, count, datatype, dest, tag, comm);
}

/* The fast body: two compares find the call site's memo (no call, no
 * register saved for the look-up), anything else goes out of line. */
static MW_NOINLINE int mw_fast_MPI_Send(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    uint64_t mw_key = mw_site_key(MW_ID_MPI_Send, MW_CALL_SITE);
    mw_site *mw_e;
    if (MW_UNLIKELY(mw_guard_taken())) {
        uint64_t mw_word = mw_guard_word();
        if (MW_LIKELY(!mw_guard_handed(mw_word))) {
            if (MW_LIKELY(mw_self != NULL))   /* nested: not counted again */
                return PMPI_Send(buf, count, datatype, dest, tag, comm);
            goto miss;   /* the thread's first call */
        }
        /* A Fortran call handed over (core/handoff.h): counted as from its
         * call site. */
        mw_guard_release();
        mw_key = mw_handed_key(MW_ID_MPI_Send, mw_word);
    }
    if (MW_LIKELY((mw_e = mw_memo_hit(mw_key, MW_MEMO_KEY(datatype), MW_MEMO_KEY(comm))) != NULL)) {
        mw_xfer_keep(mw_e, count, dest, MW_XFER_WIDE(count));
        mw_xfer_clock_in();
        int mw_ret = PMPI_Send(buf, count, datatype, dest, tag, comm);
        return mw_xfer_end_send(mw_ret, MW_ID_MPI_Send, MW_XFER_WIDE(count));
    }
miss:
    mw_tls.xfer.key = mw_key;
    return mw_memo_miss_MPI_Send(buf, count, datatype, dest, tag, comm);
}

/* MPI_Send with its call site's memo (runtime/traffic/memo.h),
 * traced (runtime/trace/memo_record.h). */
static MW_ALWAYS_INLINE int mw_traced_call_MPI_Send(mw_site *mw_e, const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    mw_xfer_keep(mw_e, count, dest, MW_XFER_WIDE(count));
    mw_xfer_keep_tag(tag, MW_MEMO_SEND);
    mw_xfer_clock_in();
    int mw_ret = PMPI_Send(buf, count, datatype, dest, tag, comm);
    return mw_xfer_end_traced(mw_ret, MW_ID_MPI_Send, MW_MEMO_SEND, MW_XFER_WIDE(count), NULL);
}

/* MPI_Send when the traced body found no memo at hand for the call site
 * whose key it left in mw_tls.xfer.key: filled out of line, or the general
 * way when it cannot serve (or the thread has no statistics yet). */
static MW_NOINLINE int mw_traced_miss_MPI_Send(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    const void *mw_ra = (const void *)mw_site_address(mw_tls.xfer.key);
    if (MW_UNLIKELY(mw_guard_taken()))
        return mw_slow_at_MPI_Send(mw_ra, buf, count, datatype, dest, tag, comm);
    mw_site *mw_e = mw_memo_prepare(MW_ID_MPI_Send, mw_ra, MW_MEMO_SEND, MW_MEMO_KEY(datatype), MW_MEMO_KEY(comm));
    if (mw_e == NULL)
        return mw_slow_at_MPI_Send(mw_ra, buf, count, datatype, dest, tag, comm);
    return mw_traced_call_MPI_Send(mw_e, buf, count, datatype, dest, tag, comm);
}

/* The traced body: two compares find the call site's memo (no call, no
 * register saved for the look-up), anything else goes out of line. */
static MW_NOINLINE int mw_traced_MPI_Send(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    uint64_t mw_key = mw_site_key(MW_ID_MPI_Send, MW_CALL_SITE);
    mw_site *mw_e;
    if (MW_UNLIKELY(mw_guard_taken())) {
        uint64_t mw_word = mw_guard_word();
        if (MW_LIKELY(!mw_guard_handed(mw_word))) {
            if (MW_LIKELY(mw_self != NULL))   /* nested: not counted again */
                return PMPI_Send(buf, count, datatype, dest, tag, comm);
            goto miss;   /* the thread's first call */
        }
        /* A Fortran call handed over (core/handoff.h): counted as from its
         * call site. */
        mw_guard_release();
        mw_key = mw_handed_key(MW_ID_MPI_Send, mw_word);
    }
    if (MW_LIKELY((mw_e = mw_memo_hit(mw_key, MW_MEMO_KEY(datatype), MW_MEMO_KEY(comm))) != NULL)) {
        mw_xfer_keep(mw_e, count, dest, MW_XFER_WIDE(count));
        mw_xfer_keep_tag(tag, MW_MEMO_SEND);
        mw_xfer_clock_in();
        int mw_ret = PMPI_Send(buf, count, datatype, dest, tag, comm);
        return mw_xfer_end_traced(mw_ret, MW_ID_MPI_Send, MW_MEMO_SEND, MW_XFER_WIDE(count), NULL);
    }
miss:
    mw_tls.xfer.key = mw_key;
    return mw_traced_miss_MPI_Send(buf, count, datatype, dest, tag, comm);
}
#endif

static MW_ALWAYS_INLINE int mw_body_MPI_Send(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, const int mw_how,
                                                   const void *mw_ra)
{
    if (mw_how == MW_SLOW) {
        if (!mw_enter_guard())
            return PMPI_Send(buf, count, datatype, dest, tag, comm);
    } else if (MW_UNLIKELY(mw_guard_taken())) {
        /* Nested: not counted again. A stale handed word (core/handoff.h)
         * goes the slow way, which frees it. */
        if (MW_LIKELY(mw_self != NULL) && MW_LIKELY(!mw_guard_handed(mw_guard_word())))
            return PMPI_Send(buf, count, datatype, dest, tag, comm);
        return mw_slow_at_MPI_Send(MW_SITE_OR_CALLER(mw_ra), buf, count, datatype, dest, tag, comm);
    }
    mw_publish_args(mw_how, MWP_IF_SENDS | MW_INFLIGHT_HAS_COMM | MW_INFLIGHT_HAS_PEER | MW_INFLIGHT_HAS_TAG, (uintptr_t)comm, dest, tag, 0);
    mw_publish(mw_how, MW_ID_MPI_Send);
    mw_call call;
    /* Noted before the call, from its arguments alone: fewer values to keep
     * across PMPI_Send, and outside the timed span. */
    mw_note_send(&call, count, datatype, dest, tag, comm);
    mw_clock_in(&call, mw_how);
    mw_publish_time(mw_how, &call);
    int ret = PMPI_Send(buf, count, datatype, dest, tag, comm);
    mw_clock_out(&call, mw_how);
    if (MW_UNLIKELY(ret != MPI_SUCCESS)) {
        mw_leave_at(&call, MW_ID_MPI_Send, mw_how, MW_SITE_OR_CALLER(mw_ra));
        return ret;
    }
    mw_leave_xfer_at(&call, MW_ID_MPI_Send, mw_how, MW_SITE_OR_CALLER(mw_ra));
    return ret;
}

#if !MW_HAVE_MEMO
static MW_NOINLINE int mw_fast_MPI_Send(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    return mw_body_MPI_Send(buf, count, datatype, dest, tag, comm, MW_FAST, NULL);
}
#endif

static MW_NOINLINE int mw_watched_MPI_Send(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    return mw_body_MPI_Send(buf, count, datatype, dest, tag, comm, MW_WATCHED, NULL);
}

static MW_NOINLINE int mw_slow_MPI_Send(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    return mw_slow_at_MPI_Send(MW_CALL_SITE, buf, count, datatype, dest, tag, comm);
}

#if !MW_HAVE_MEMO
static MW_NOINLINE int mw_traced_MPI_Send(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    return mw_body_MPI_Send(buf, count, datatype, dest, tag, comm, MW_TRACED, NULL);
}
#endif

/* The general body for a call from mw_ra. */
static MW_NOINLINE int mw_slow_at_MPI_Send(const void *mw_ra, const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    return mw_body_MPI_Send(buf, count, datatype, dest, tag, comm, MW_SLOW, mw_ra);
}

static mw_fn mw_slot_MPI_Send = (mw_fn)mw_slow_MPI_Send;
MW_HIDDEN const mw_impl mw_impl_MPI_Send = {
    &mw_slot_MPI_Send, (mw_fn)PMPI_Send, (mw_fn)mw_fast_MPI_Send,
    (mw_fn)mw_watched_MPI_Send, (mw_fn)mw_slow_MPI_Send, (mw_fn)mw_traced_MPI_Send,
};

MW_EXPORT int MPI_Send(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    return ((__typeof__(&PMPI_Send))mw_slot_load(&mw_slot_MPI_Send))(buf, count, datatype, dest, tag, comm);
}
