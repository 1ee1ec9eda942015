/* Report files: named after the program, the rank count and the job id (or
 * a time stamp and pid), each written to a temporary file and renamed, so
 * that a reader never sees half a report. A failure is a warning. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "report/report.h"
#include "core/state.h"
#include "core/warn.h"

int mw_write_file(const char *path, void (*writer)(FILE *, const void *), const void *arg)
{
    char tmp[8300];
    const char *slash = strrchr(path, '/');
    if (slash != NULL)
        snprintf(tmp, sizeof tmp, "%.*s/.%s.tmp", (int)(slash - path), path, slash + 1);
    else
        snprintf(tmp, sizeof tmp, ".%s.tmp", path);
    FILE *out = fopen(tmp, "w");
    if (out == NULL) {
        mw_warn("cannot write %s: %s", path, strerror(errno));
        return -1;
    }
    writer(out, arg);
    int failed = ferror(out);
    if (fclose(out) != 0 || failed || rename(tmp, path) != 0) {
        mw_warn("cannot write %s: %s", path, strerror(errno ? errno : EIO));
        unlink(tmp);
        return -1;
    }
    return 0;
}

/* The job's id from the batch system, or "" when there is none. */
static const char *job_id(void)
{
    static const char *const vars[] = {"SLURM_JOB_ID", "PBS_JOBID", "LSB_JOBID", "JOB_ID",
                                       "FLUX_JOB_ID", NULL};
    for (int i = 0; vars[i] != NULL; i++) {
        const char *v = getenv(vars[i]);
        if (v != NULL && *v != '\0' && strlen(v) < 64 && strchr(v, '/') == NULL)
            return v;
    }
    return "";
}

/* mpiwatch-<program>-<N>r-<job id or date-time-pid>, without extension. */
static void base_name(char *name, size_t size, const mw_job_summary *job)
{
    const char *id = job_id();
    int n = mw_state.world_size;
    if (*id != '\0') {
        snprintf(name, size, "mpiwatch-%s-%dr-job%s", job->program, n, id);
        return;
    }
    char stamp[32];
    time_t now = time(NULL);
    struct tm tm;
    localtime_r(&now, &tm);
    strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &tm);
    snprintf(name, size, "mpiwatch-%s-%dr-%s-%ld", job->program, n, stamp, (long)getpid());
}

static void json_writer(FILE *out, const void *job)
{
    mw_report_json(out, job);
}

static void text_writer(FILE *out, const void *job)
{
    mw_report_text(out, job);
}

void mw_report_write(const mw_job_summary *job, const char *dir)
{
    char name[512], path[8192];
    base_name(name, sizeof name, job);
    if (job->snapshot) {
        size_t used = strlen(name);
        snprintf(name + used, sizeof name - used, "-rank%d-snapshot%d", job->first_rank,
                 job->snapshot);
    }
    if (mw_state.config.formats & MW_FORMAT_JSON) {
        snprintf(path, sizeof path, "%s/%s.json", dir, name);
        mw_write_file(path, json_writer, job);
    }
    if (mw_state.config.formats & MW_FORMAT_TEXT) {
        snprintf(path, sizeof path, "%s/%s.txt", dir, name);
        mw_write_file(path, text_writer, job);
    }
}
