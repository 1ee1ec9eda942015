/* MPI_Send_c: send, large-count variant */
static MW_NOINLINE int mw_profile_MPI_Send_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm);

MW_EXPORT int MPI_Send_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    if (!mw_profiling())
        return PMPI_Send_c(buf, count, datatype, dest, tag, comm);
    return mw_profile_MPI_Send_c(buf, count, datatype, dest, tag, comm);
}

static int mw_profile_MPI_Send_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    if (!mw_enter_guard())
        return PMPI_Send_c(buf, count, datatype, dest, tag, comm);
    fprintf(stderr, "MPI_Send_c: %lld bytes to %d\n", ((long long)(count) * mpiwatch_type_size(datatype)), dest);
    mw_call call;
    mw_start(&call);
    int ret = PMPI_Send_c(buf, count, datatype, dest, tag, comm);
    mw_stop(&call);
    if (ret == MPI_SUCCESS) {
        mw_note_send(&call, count, datatype, dest, tag, comm);
    } else {
        mw_note_nothing(&call);
    }
    if (hook_calls > 1000)
        fprintf(stderr, "MPI_Send_c returned %d\n", (int)ret);
    mw_exit_xfer(&call, MW_ID_MPI_Send_c);
    return ret;
}
