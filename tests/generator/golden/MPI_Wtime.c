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
    mw_call call;
    mw_start(&call);
    double ret = PMPI_Wtime();
    mw_stop(&call);
    mw_exit(&call, MW_ID_MPI_Wtime);
    return ret;
}
