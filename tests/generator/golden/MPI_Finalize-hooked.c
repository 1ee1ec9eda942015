/* MPI_Finalize: the report is built here, before PMPI_Finalize, while MPI
 * still works. The call is counted but not timed: its time cannot be in the
 * report it writes. */
MW_EXPORT int MPI_Finalize(void)
{
    if (mw_enter()) {
        mw_call call;
    #line 12 "TMPDIR/golden-hooks.j2"
        hook_calls++;
#line 59 "wrap_environment.c"
        mw_start(&call);
        call.t_out = call.t_in;
        mw_exit(&call, MW_ID_MPI_Finalize);
    }
    mw_on_finalize();
    int ret = PMPI_Finalize();
    if (mw_enter()) {
    #line 16 "TMPDIR/golden-hooks.j2"
        if (hook_calls > 1000)
            fprintf(stderr, "MPI_Finalize returned %d\n", (int)ret);
#line 70 "wrap_environment.c"
        mw_guard_release();
    }
    return ret;
}
