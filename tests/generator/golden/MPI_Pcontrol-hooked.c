/* MPI_Pcontrol: sets the profiling level (0 off, 1 on, 2 flush) and is always
 * forwarded. The standard leaves the variable arguments to the tool; none is
 * used, and none can be forwarded portably. */
MW_EXPORT int MPI_Pcontrol(const int level, ...)
{
    int profiled = mw_enter();
    mw_call call;

    if (profiled) {
    #line 12 "TMPDIR/golden-hooks.j2"
        hook_calls++;
#line 121 "wrap_environment.c"
        mw_start(&call);
    }
    mw_on_pcontrol(level);
    int ret = PMPI_Pcontrol(level);
    if (profiled) {
        mw_stop(&call);
    #line 16 "TMPDIR/golden-hooks.j2"
        if (hook_calls > 1000)
            fprintf(stderr, "MPI_Pcontrol returned %d\n", (int)ret);
#line 131 "wrap_environment.c"
        mw_exit(&call, MW_ID_MPI_Pcontrol);
    }
    return ret;
}
