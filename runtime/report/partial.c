/* A rank's partial profile: what MPI_Pcontrol(2)'s snapshot holds, written
 * at any moment by one rank alone, with no MPI call (its peers may be dead
 * or stuck, and so may MPI), marked partial with why and when. The files
 * keep one name for the rank's whole run (the report name of the process's
 * load time, then -rank<R>-partial), so a later dump replaces an earlier
 * one atomically and MPI_Finalize knows what to remove; pid and time keep
 * two runs' files apart. `mpiwatch --merge` groups them by their job key. */
#include <dirent.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/state.h"
#include "core/warn.h"
#include "report/report.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static char json_path[8400], text_path[8400];
static char host[256];
static int warned;

/* What the ranks of one job share without talking to each other: the
 * launcher's job (Open MPI, PMIx) or the batch job's id; "" when there is
 * none of them (MPICH's Hydra outside a batch system). */
const char *mw_partial_job_key(void)
{
    static const char *const vars[] = {"PMIX_NAMESPACE", "OMPI_MCA_ess_base_jobid", NULL};
    for (int i = 0; vars[i] != NULL; i++) {
        const char *v = getenv(vars[i]);
        if (v != NULL && *v != '\0')
            return v;
    }
    return mw_report_job_id();
}

/* Write one file, replacing the rank's previous one; 0 or an errno. */
static int write_format(const char *ext, void (*writer)(FILE *, const void *),
                        const mw_job_summary *job, char *path, size_t size)
{
    char name[512];
    mw_report_name(name, sizeof name, job->program, mw_state.start_wall);
    snprintf(path, size, "%s/%s-rank%d-partial.%s", mw_state.config.outdir, name, job->first_rank,
             ext);
    return mw_write_file_over(path, writer, job);
}

/* The call sites named by an earlier dump: a dump resolves them again
 * (libdw reads the process's modules, milliseconds each time) only when
 * one is new, so frequent dumps (MPIWATCH_DUMP_EVERY) stay cheap. */
static mw_site_summary *named;
static int nnamed;

static int same_place(const mw_site_summary *a, const mw_site_summary *b)
{
    if (a->all.module != b->all.module || a->all.offset != b->all.offset ||
        a->all.depth != b->all.depth)
        return 0;
    for (int d = 0; d < a->all.depth - 1; d++)
        if (a->all.up_module[d] != b->all.up_module[d] || a->all.up_offset[d] != b->all.up_offset[d])
            return 0;
    return 1;
}

static const mw_site_summary *named_as(const mw_site_summary *s)
{
    for (int j = 0; j < nnamed; j++)
        if (same_place(&named[j], s))
            return &named[j];
    return NULL;
}

/* Copy a site's names (and its callers', allocated) from from. */
static void copy_names(mw_site_summary *to, const mw_site_summary *from)
{
    memcpy(to->function, from->function, sizeof to->function);
    memcpy(to->file, from->file, sizeof to->file);
    memcpy(to->module, from->module, sizeof to->module);
    to->line = from->line;
    to->up = NULL;
    if (from->up != NULL && (to->up = calloc((size_t)from->all.depth, sizeof *to->up)) != NULL)
        memcpy(to->up, from->up, (size_t)(from->all.depth - 1) * sizeof *to->up);
}

static void name_sites(mw_site_summary *sites, int n)
{
    int known = 1;
    for (int i = 0; i < n && known; i++)
        known = named_as(&sites[i]) != NULL;
    if (known)
        for (int i = 0; i < n; i++)
            copy_names(&sites[i], named_as(&sites[i]));
    else
        mw_callsites_resolve(sites, n);
    mw_site_summary *keep = calloc((size_t)(n ? n : 1), sizeof *keep);
    if (keep == NULL)
        return;   /* the next dump resolves again */
    for (int j = 0; j < nnamed; j++)
        free(named[j].up);
    free(named);
    for (int i = 0; i < n; i++) {
        keep[i].all = sites[i].all;
        copy_names(&keep[i], &sites[i]);
    }
    named = keep;
    nnamed = n;
}

int mw_partial_write(const char *reason)
{
    static mw_job_summary job;
    if (!mw_state.started || mw_state.finished || mw_state.config.formats == 0)
        return -1;
    pthread_mutex_lock(&lock);
    if (host[0] == '\0' && gethostname(host, sizeof host - 1) != 0)
        snprintf(host, sizeof host, "?");
    mw_report_local(mw_clock_seconds(mw_now() - mw_app_start()), &job);
    job.program = mw_state.program;
    job.timer = mw_clock_name();
    job.partial = reason;
    job.taken = (long long)time(NULL);
    job.partial_job = mw_partial_job_key();
    job.partial_host = host;
    /* What a finalize report's header and tables add, from this rank alone:
     * resolved here (the dumper thread, MPI_Abort's or exit's context, never
     * a signal handler), as the merge has no access to this process. */
    mw_report_command_line(job.command, sizeof job.command);
    mw_program_build_id(job.build_id);
    mw_report_regions_local(&job);
    mw_callsites_local(&job.sites, &job.nsites, &job.sites_other);
    name_sites(job.sites, job.nsites);
    job.sites_resolver = mw_callsites_resolver();
    char path[8400];
    /* The text first: a rank that waits for its node's JSON files then knows
     * each of those ranks has written both. */
    if (mw_state.config.formats & MW_FORMAT_TEXT) {
        int trc = write_format("txt", mw_report_text_writer, &job, path, sizeof path);
        if (trc == 0)
            snprintf(text_path, sizeof text_path, "%s", path);
    }
    int rc = write_format("json", mw_report_json_writer, &job, path, sizeof path);
    if (rc == 0)
        snprintf(json_path, sizeof json_path, "%s", path);
    else if (!warned++)
        mw_warn("cannot write the partial profile %s (%s)", path, strerror(rc));
    mw_report_free(&job);
    pthread_mutex_unlock(&lock);
    return rc;
}

void mw_partial_remove(void)
{
    pthread_mutex_lock(&lock);
    if (json_path[0] != '\0')
        unlink(json_path);
    if (text_path[0] != '\0')
        unlink(text_path);
    json_path[0] = text_path[0] = '\0';
    pthread_mutex_unlock(&lock);
}

const char *mw_partial_path(void)
{
    return json_path;
}

/* Partial JSON files of this program and size written at or after since. */
static int fresh_partials(const struct timespec *since)
{
    char prefix[320];
    int n = 0;
    snprintf(prefix, sizeof prefix, "mpiwatch-%s-%dr-", mw_state.program, mw_state.world_size);
    DIR *dir = opendir(mw_state.config.outdir);
    if (dir == NULL)
        return -1;
    for (struct dirent *e; (e = readdir(dir)) != NULL;) {
        size_t len = strlen(e->d_name);
        struct stat st;
        if (strncmp(e->d_name, prefix, strlen(prefix)) != 0 || len < 13 ||
            strcmp(e->d_name + len - 13, "-partial.json") != 0 ||
            fstatat(dirfd(dir), e->d_name, &st, 0) != 0)
            continue;
        if (st.st_mtim.tv_sec > since->tv_sec ||
            (st.st_mtim.tv_sec == since->tv_sec && st.st_mtim.tv_nsec >= since->tv_nsec))
            n++;
    }
    closedir(dir);
    return n;
}

void mw_partial_wait_for(int want, const struct timespec *since, int ms)
{
    for (int waited = 0; want > 0 && waited < ms; waited += 2) {
        int n = fresh_partials(since);
        if (n < 0 || n >= want)
            return;
        poll(NULL, 0, 2);
    }
}
