/* What the report's header says of the job: the command line, the program's
 * build-id, when it ran, on which hosts (ranks per host, and how many nodes)
 * and with which MPI library. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/yielding_collectives.h"
#include "core/state.h"
#include "report/report.h"

#define HOST_LEN 64

void mw_report_command_line(char *out, size_t size)
{
    FILE *f = fopen("/proc/self/cmdline", "r");
    size_t n = f != NULL ? fread(out, 1, size - 1, f) : 0;
    if (f != NULL)
        fclose(f);
    while (n > 0 && out[n - 1] == '\0')
        n--;
    for (size_t i = 0; i < n; i++)
        if (out[i] == '\0')
            out[i] = ' ';
    out[n] = '\0';
}

static int by_name(const void *a, const void *b)
{
    return strncmp(a, b, HOST_LEN);
}

/* "host1 (4 ranks), host2 (4 ranks)" from every rank's host name, sorted;
 * returns how many hosts. */
static int summarise_hosts(char *names, int n, char *out, size_t size)
{
    size_t used = 0;
    int hosts = 0, full = 0;
    qsort(names, (size_t)n, HOST_LEN, by_name);
    out[0] = '\0';
    for (int i = 0; i < n;) {
        int j = i;
        while (j < n && strncmp(&names[(size_t)j * HOST_LEN], &names[(size_t)i * HOST_LEN], HOST_LEN) == 0)
            j++;
        hosts++;
        int w = full ? 0 : snprintf(out + used, size - used, "%s%.*s (%d rank%s)", used ? ", " : "",
                                    HOST_LEN, &names[(size_t)i * HOST_LEN], j - i, j - i == 1 ? "" : "s");
        if (!full && (w < 0 || (size_t)w >= size - used)) {
            snprintf(out + (size > 5 ? size - 5 : 0), size > 5 ? 5 : size, " ...");
            full = 1;   /* the list is cut; the hosts are still counted */
        } else if (!full) {
            used += (size_t)w;
        }
        i = j;
    }
    return hosts;
}

int mw_report_header(mw_job_summary *job, MPI_Comm comm)
{
    char mine[HOST_LEN] = {0};
    int n = mw_state.world_size;
    char *all = job ? calloc((size_t)n, HOST_LEN) : NULL;
    if (job && all == NULL)
        return MPI_ERR_NO_MEM;
    gethostname(mine, sizeof mine - 1);
    int rc = mw_gather(mine, HOST_LEN, MPI_CHAR, all, comm);
    if (job && rc == MPI_SUCCESS) {
        int len = 0;
        job->nodes = summarise_hosts(all, n, job->hosts, sizeof job->hosts);
        mw_report_command_line(job->command, sizeof job->command);
        mw_program_build_id(job->build_id);
        if (PMPI_Get_library_version(job->library, &len) != MPI_SUCCESS)
            job->library[0] = '\0';
        job->library[strcspn(job->library, "\n")] = '\0';   /* its first line */
        job->start = mw_state.start_wall;
        job->end = time(NULL);
    }
    free(all);
    return rc;
}
