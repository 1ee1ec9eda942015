/* MPI_Send: send */
static MW_NOINLINE int mw_profile_MPI_Send(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm);

MW_EXPORT int MPI_Send(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    if (!mw_profiling())
        return PMPI_Send(buf, count, datatype, dest, tag, comm);
    return mw_profile_MPI_Send(buf, count, datatype, dest, tag, comm);
}

static int mw_profile_MPI_Send(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    if (!mw_enter_guard())
        return PMPI_Send(buf, count, datatype, dest, tag, comm);
    mw_call call;
    mw_start(&call);
    int ret = PMPI_Send(buf, count, datatype, dest, tag, comm);
    mw_stop(&call);
    if (ret == MPI_SUCCESS) {
        mw_note_send(&call, count, datatype, dest, tag, comm);
    } else {
        mw_note_nothing(&call);
    }
    mw_exit_xfer(&call, MW_ID_MPI_Send);
    return ret;
}
