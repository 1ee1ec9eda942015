/* The JSON report (schema mpiwatch-report/1, see docs/report-format.md),
 * written to a temporary file and renamed so a reader never sees half. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "mw_functions.h"
#include "mw_report.h"
#include "mw_warn.h"

/* Write s as a JSON string (our strings are names and paths: escape the
 * characters JSON requires, pass everything else through). */
static void json_string(FILE *out, const char *s)
{
    fputc('"', out);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(out, "\\%c", c);
        else if (c < 0x20)
            fprintf(out, "\\u%04x", c);
        else
            fputc(c, out);
    }
    fputc('"', out);
}

static void write_body(FILE *out, const mw_job_summary *job)
{
    fprintf(out, "{\n  \"schema\": \"mpiwatch-report/1\",\n  \"program\": ");
    json_string(out, job->program);
    fprintf(out, ",\n  \"ranks\": %d,\n  \"mpi\": ", job->ranks);
    json_string(out, mw_mpi_description);
    fprintf(out, ",\n  \"timer\": ");
    json_string(out, job->timer);
    fprintf(out, ",\n  \"app_time\": {\"min\": %.9g, \"max\": %.9g},\n", job->app_time_min,
            job->app_time_max);
    fprintf(out, "  \"functions\": {");
    const char *sep = "\n";
    for (int i = 0; i < MW_FN_COUNT; i++) {
        const mw_fn_summary *f = &job->fn[i];
        if (f->calls == 0)
            continue;
        fprintf(out, "%s    ", sep);
        json_string(out, mw_fn_names[i]);
        fprintf(out, ": {\"category\": \"%s\", \"calls\": %llu, \"time\": %.9g, "
                     "\"min\": %.9g, \"max\": %.9g}",
                mw_fn_categories[i], (unsigned long long)f->calls, f->time, f->min, f->max);
        sep = ",\n";
    }
    fprintf(out, "\n  }\n}\n");
}

/* The report's file name: program, rank count, time stamp and pid. */
static void report_name(char *name, size_t size, const mw_job_summary *job)
{
    char stamp[32];
    time_t now = time(NULL);
    struct tm tm;
    localtime_r(&now, &tm);
    strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &tm);
    snprintf(name, size, "mpiwatch-%s-%dr-%s-%ld.json", job->program, job->ranks, stamp,
             (long)getpid());
}

int mw_report_write_json(const mw_job_summary *job, const char *dir)
{
    char name[512], path[8192], tmp[8300];
    report_name(name, sizeof name, job);
    snprintf(path, sizeof path, "%s/%s", dir, name);
    snprintf(tmp, sizeof tmp, "%s/.%s.tmp", dir, name);

    FILE *out = fopen(tmp, "w");
    if (out == NULL) {
        mw_warn("cannot write the report %s: %s", path, strerror(errno));
        return -1;
    }
    write_body(out, job);
    int failed = ferror(out);
    if (fclose(out) != 0 || failed) {
        mw_warn("cannot write the report %s: %s", path, strerror(errno));
        unlink(tmp);
        return -1;
    }
    if (rename(tmp, path) != 0) {
        mw_warn("cannot write the report %s: %s", path, strerror(errno));
        unlink(tmp);
        return -1;
    }
    return 0;
}
