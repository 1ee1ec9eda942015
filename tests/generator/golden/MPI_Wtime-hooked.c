/* MPI_Wtime: environment */
static MW_NOINLINE double mw_profile_MPI_Wtime(void);

MW_EXPORT double MPI_Wtime(void)
{
    if (!mw_profiling())
        return PMPI_Wtime();
    return mw_profile_MPI_Wtime();
}

static double mw_profile_MPI_Wtime(void)
{
    if (!mw_enter_guard())
        return PMPI_Wtime();
    hook_calls++;
    mw_call call;
    mw_start(&call);
    double ret = PMPI_Wtime();
    mw_stop(&call);
    if (hook_calls > 1000)
        fprintf(stderr, "MPI_Wtime returned %d\n", (int)ret);
    mw_exit(&call, MW_ID_MPI_Wtime);
    return ret;
}
