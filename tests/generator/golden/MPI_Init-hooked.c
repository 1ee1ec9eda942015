/* MPI_Init: starts the runtime once MPI is up (even when profiling is off). */
MW_EXPORT int MPI_Init(int *argc, char ***argv)
{
    int profiled = mw_enter();
    mw_call call;

    if (profiled) {
        hook_calls++;
    }
    if (profiled)
        mw_start(&call);
    int ret = PMPI_Init(argc, argv);
    if (profiled)
        mw_stop(&call);
    if (ret == MPI_SUCCESS)
        mw_on_init();
    if (profiled) {
        if (hook_calls > 1000)
            fprintf(stderr, "MPI_Init returned %d\n", (int)ret);
        mw_exit(&call, MW_ID_MPI_Init);
    }
    return ret;
}
