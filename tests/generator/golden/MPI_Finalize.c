/* MPI_Finalize: the report is built here, before PMPI_Finalize, while MPI
 * still works. The call is counted but not timed: its time cannot be in the
 * report it writes. */
MW_EXPORT int MPI_Finalize(void)
{
    if (mw_enter()) {
        mw_call call;
        mw_start(&call);
        call.t_out = call.t_in;
        mw_exit(&call, MW_ID_MPI_Finalize);
    }
    mw_on_finalize();
    return PMPI_Finalize();
}
