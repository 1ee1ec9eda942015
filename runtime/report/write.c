/* Report files: named after the program, the rank count, the batch job's id
 * and step where there is one, a time stamp and the pid; each written to a
 * temporary file and moved into place without replacing anything, so that a
 * reader never sees half a report and no run overwrites another's. A folder
 * that cannot take the report sends it to the current folder or $TMPDIR,
 * with a warning that says where it went. */
#define _GNU_SOURCE   /* renameat2 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "report/report.h"
#include "core/state.h"
#include "core/warn.h"

/* Move tmp to path unless path exists: a report is never replaced. 0 when
 * moved, EEXIST when path is taken, else an errno. A partial profile
 * replaces the rank's previous one (replace set). */
static int place(const char *tmp, const char *path, int replace)
{
    if (replace)
        return rename(tmp, path) == 0 ? 0 : errno;
    if (renameat2(AT_FDCWD, tmp, AT_FDCWD, path, RENAME_NOREPLACE) == 0)
        return 0;
    if (errno != EINVAL && errno != ENOSYS && errno != ENOTSUP)
        return errno;
    /* A file system without RENAME_NOREPLACE: a hard link fails the same way. */
    if (link(tmp, path) == 0) {
        unlink(tmp);
        return 0;
    }
    return errno;
}

static int write_file(const char *path, void (*writer)(FILE *, const void *), const void *arg,
                      int replace)
{
    char tmp[8400];
    const char *slash = strrchr(path, '/');
    /* Unique per process: two jobs writing one name never share a temporary. */
    if (slash != NULL)
        snprintf(tmp, sizeof tmp, "%.*s/.%s.%ld.tmp", (int)(slash - path), path, slash + 1,
                 (long)getpid());
    else
        snprintf(tmp, sizeof tmp, ".%s.%ld.tmp", path, (long)getpid());
    FILE *out = fopen(tmp, "w");
    if (out == NULL)
        return errno ? errno : EIO;
    writer(out, arg);
    int failed = ferror(out), rc = 0;
    if (fclose(out) != 0 || failed)
        rc = errno ? errno : EIO;
    else
        rc = place(tmp, path, replace);
    if (rc != 0)
        unlink(tmp);
    return rc;
}

int mw_write_at(int fd, const void *buf, size_t n, long long offset)
{
    const char *p = buf;
    while (n > 0) {
        ssize_t done = pwrite(fd, p, n, (off_t)offset);
        if (done < 0 && errno == EINTR)
            continue;
        if (done <= 0)
            return 0;
        p += done;
        n -= (size_t)done;
        offset += done;
    }
    return 1;
}

int mw_write_file(const char *path, void (*writer)(FILE *, const void *), const void *arg)
{
    return write_file(path, writer, arg, 0);
}

int mw_write_file_over(const char *path, void (*writer)(FILE *, const void *), const void *arg)
{
    return write_file(path, writer, arg, 1);
}

/* The job's id from the batch system, with its step where there is one
 * ("1234.0"), or "" when there is none. */
static const char *job_id(void)
{
    static const char *const vars[] = {"SLURM_JOB_ID", "PBS_JOBID", "LSB_JOBID", "JOB_ID",
                                       "FLUX_JOB_ID", NULL};
    static char id[160];
    for (int i = 0; vars[i] != NULL; i++) {
        const char *v = getenv(vars[i]), *step = getenv("SLURM_STEP_ID");
        if (v == NULL || *v == '\0' || strlen(v) >= 64 || strchr(v, '/') != NULL)
            continue;
        if (i == 0 && step != NULL && *step != '\0' && strlen(step) < 32 && !strchr(step, '/'))
            snprintf(id, sizeof id, "%s.%s", v, step);
        else
            snprintf(id, sizeof id, "%s", v);
        return id;
    }
    return "";
}

void mw_report_name(char *name, size_t size, const char *program, long long when)
{
    const char *id = job_id();
    char stamp[32];
    time_t t = (time_t)when;
    struct tm tm;
    localtime_r(&t, &tm);
    strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &tm);
    snprintf(name, size, "mpiwatch-%s-%dr%s%s-%s-%ld", program, mw_state.world_size,
             *id ? "-job" : "", id, stamp, (long)getpid());
}

const char *mw_report_job_id(void)
{
    return job_id();
}

void mw_report_json_writer(FILE *out, const void *job)
{
    mw_report_json(out, job);
}

void mw_report_text_writer(FILE *out, const void *job)
{
    mw_report_text(out, job);
}

static void html_writer(FILE *out, const void *job)
{
    mw_report_html(out, job);
}

/* Write one report as DIR/NAME.EXT, NAME-2.EXT, ... (never over another
 * report); 0 or an errno. */
static int write_one(const char *dir, const char *name, const char *ext,
                     void (*writer)(FILE *, const void *), const mw_job_summary *job,
                     char *path, size_t size)
{
    int rc = EEXIST;
    for (int k = 1; k <= 100 && rc == EEXIST; k++) {
        if (k == 1)
            snprintf(path, size, "%s/%s.%s", dir, name, ext);
        else
            snprintf(path, size, "%s/%s-%d.%s", dir, name, k, ext);
        rc = mw_write_file(path, writer, job);
    }
    return rc;
}

/* Where a report goes when its folder cannot take it: the current folder,
 * then $TMPDIR (or /tmp). */
static const char *fallback_dir(int k)
{
    const char *tmp = getenv("TMPDIR");
    return k == 0 ? "." : (tmp != NULL && *tmp == '/') ? tmp : "/tmp";
}

void mw_report_write(const mw_job_summary *job, const char *dir)
{
    mw_report_write_told(job, dir, NULL);
}

void mw_report_write_told(const mw_job_summary *job, const char *dir,
                          void (*written)(const char *path))
{
    static const struct {
        int bit;
        const char *ext;
        void (*writer)(FILE *, const void *);
    } formats[] = {{MW_FORMAT_JSON, "json", mw_report_json_writer},
                   {MW_FORMAT_TEXT, "txt", mw_report_text_writer},
                   {MW_FORMAT_HTML, "html", html_writer}};
    static int html_warned;
    char name[sizeof job->name], path[8400];
    if (job->name[0] != '\0')   /* chosen already, for the matrix file beside it */
        snprintf(name, sizeof name, "%s", job->name);
    else
        mw_report_name(name, sizeof name, job->program, (long long)time(NULL));
    if (job->snapshot) {
        size_t used = strlen(name);
        snprintf(name + used, sizeof name - used, "-rank%d-snapshot%d", job->first_rank,
                 job->snapshot);
    }
    if (job->merged)   /* beside the partial files it came from, never taken for one */
        snprintf(name + strlen(name), sizeof name - strlen(name), "-merged");
    for (size_t f = 0; f < sizeof formats / sizeof formats[0]; f++) {
        if (!(mw_state.config.formats & formats[f].bit))
            continue;
        if (formats[f].bit == MW_FORMAT_HTML && !mw_report_html_available()) {
            if (!html_warned++)
                mw_warn("MPIWATCH_FORMATS asks for html, but %s; the other reports are written",
                        mw_report_html_missing());
            continue;
        }
        int rc = write_one(dir, name, formats[f].ext, formats[f].writer, job, path, sizeof path);
        for (int k = 0; rc != 0 && k < 2; k++) {
            int first = rc;
            rc = write_one(fallback_dir(k), name, formats[f].ext, formats[f].writer, job, path,
                           sizeof path);
            if (rc == 0)
                mw_warn("cannot write the report into %s (%s); it is in %s", dir, strerror(first),
                        path);
        }
        if (rc == 0 && written != NULL)
            written(path);
        if (rc != 0)
            mw_warn("cannot write the %s report into %s, the current folder or %s (%s); it is lost",
                    formats[f].ext, dir, fallback_dir(1), strerror(rc));
    }
}
