/* The coefficient of variation of the per-rank times, one definition for
 * the report at MPI_Finalize (report/reduce.c) and the merge of partial
 * profiles (client/merge_job.c). */
#ifndef MW_REPORT_VARIATION_H
#define MW_REPORT_VARIATION_H

/* Square root by Newton's method: a report-time figure, not worth making
 * every program that links libmpiwatch statically add -lm. */
static inline double mw_root(double x)
{
    double r = x > 1 ? x : 1;
    for (int i = 0; i < 200 && x > 0; i++) {
        double next = 0.5 * (r + x / r);
        if (next >= r)
            break;
        r = next;
    }
    return x > 0 ? r : 0.0;
}

/* The coefficient of variation of n values from their sum and sum of squares. */
static inline double mw_variation(double sum, double squares, int n)
{
    double mean = n > 0 ? sum / n : 0.0, var = n > 0 ? squares / n - mean * mean : 0.0;
    return mean > 0 && var > 0 ? mw_root(var) / mean : 0.0;
}

#endif
