/* MPI_Init: starts the runtime once MPI is up (even when profiling is off).
 * mpiwatch's own flags are taken out of argv first; the live monitor's MPI
 * ports need MPI_THREAD_MULTIPLE, which is then asked for, while the program
 * is told the level it would have had (and MPI_Query_thread agrees). */
MW_EXPORT int MPI_Init(int *argc, char ***argv)
{
    mw_on_init_args(argc, argv);
    int profiled = mw_enter();
    mw_call call;

    if (profiled)
        mw_start(&call);
    int ret = MW_UNLIKELY(mw_init_wants_threads())
                  ? mw_init_threaded(argc, argv)
                  : PMPI_Init(argc, argv);
    if (profiled)
        mw_stop(&call);
    if (ret == MPI_SUCCESS)
        mw_on_init();
    if (profiled) {
        mw_exit(&call, MW_ID_MPI_Init);
    }
    return ret;
}
