/* The HTML report from a JSON report (html_report.h). */
#include "html_report.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "json_check.h"
#include "matrix_blocks.h"
#include "mpiwatch_report.h"
#include "mpiwatch_viewer.h"

#define MAX_REPORT ((size_t)1 << 30)   /* 1 GiB: far above any real report */

/* The whole file, NUL-terminated; NULL with a message on stderr. */
static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        fprintf(stderr, "mpiwatch: cannot read %s: %s\n", path, strerror(errno));
        return NULL;
    }
    struct stat st;
    if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode)) {
        fprintf(stderr, "mpiwatch: %s is not a regular file\n", path);
        fclose(f);
        return NULL;
    }
    if ((unsigned long long)st.st_size > MAX_REPORT) {
        fprintf(stderr, "mpiwatch: %s is larger than 1 GiB: not an mpiwatch report\n", path);
        fclose(f);
        return NULL;
    }
    size_t size = (size_t)st.st_size;
    char *text = malloc(size + 1);
    if (text == NULL) {
        fprintf(stderr, "mpiwatch: no memory for %s (%zu bytes)\n", path, size);
        fclose(f);
        return NULL;
    }
    size_t got = fread(text, 1, size, f);
    int err = ferror(f);
    fclose(f);
    if (err || got != size) {
        fprintf(stderr, "mpiwatch: cannot read %s: %s\n", path, err ? strerror(errno) : "it changed size");
        free(text);
        return NULL;
    }
    text[size] = '\0';
    *len = size;
    return text;
}

/* A page: head, the data with '<' escaped, tail. 0, or -1 when a write fails. */
static int write_page(FILE *out, const char *head, const char *tail, const char *text, size_t len)
{
    if (fputs(head, out) == EOF)
        return -1;
    if (mw_viewer_write_data(out, text, len) != 0)
        return -1;
    if (fputs(tail, out) == EOF)
        return -1;
    return ferror(out) ? -1 : 0;
}

int mwc_html_write(FILE *out, const char *text, size_t len)
{
    return write_page(out, mw_viewer_head, mw_viewer_tail, text, len);
}

int mwc_html_report(const char *json_path, const char *out_path, int quiet)
{
    if (mw_viewer_unavailable[0] != '\0') {
        fprintf(stderr, "mpiwatch: --html: %s\n", mw_viewer_unavailable);
        return 1;
    }
    size_t len = 0;
    char *text = slurp(json_path, &len);
    if (text == NULL)
        return 1;
    mwc_json_check check;
    if (mwc_json_check_text(text, len, &check) != 0) {
        fprintf(stderr, "mpiwatch: %s:%zu:%zu: not valid JSON: %s\n", json_path, check.line,
                check.column, check.error);
        free(text);
        return 1;
    }
    if (!check.is_object || strcmp(check.schema, MW_REPORT_SCHEMA) != 0) {
        fprintf(stderr, "mpiwatch: %s is not an mpiwatch report: %s\n", json_path,
                !check.is_object ? "it is not a JSON object"
                : check.schema[0] ? "its \"schema\" is not " MW_REPORT_SCHEMA
                : "it has no \"schema\": \"" MW_REPORT_SCHEMA "\"");
        free(text);
        return 1;
    }
    mwc_matrix_blocks_add(json_path, &text, &len, quiet);
    int rc = mwc_html_write_file(out_path, text, len, quiet);
    free(text);
    return rc;
}

int mwc_html_write_file(const char *out_path, const char *text, size_t len, int quiet)
{
    if (mw_viewer_unavailable[0] != '\0') {
        fprintf(stderr, "mpiwatch: --html: %s\n", mw_viewer_unavailable);
        return 1;
    }
    return mwc_page_write_file(out_path, mw_viewer_head, mw_viewer_tail, text, len, quiet);
}

int mwc_page_write_file(const char *out_path, const char *head, const char *tail, const char *text,
                        size_t len, int quiet)
{
    size_t n = strlen(out_path) + 64;
    char *tmp = malloc(n);
    if (tmp == NULL) {
        fprintf(stderr, "mpiwatch: no memory\n");
        return 1;
    }
    snprintf(tmp, n, "%s.%ld.tmp", out_path, (long)getpid());
    FILE *out = fopen(tmp, "w");
    int rc = 1;
    if (out == NULL) {
        fprintf(stderr, "mpiwatch: cannot write %s: %s\n", out_path, strerror(errno));
    } else {
        int bad = write_page(out, head, tail, text, len);
        if (fclose(out) != 0 || bad)
            fprintf(stderr, "mpiwatch: cannot write %s: %s\n", out_path, strerror(errno));
        else if (rename(tmp, out_path) != 0)
            fprintf(stderr, "mpiwatch: cannot write %s: %s\n", out_path, strerror(errno));
        else
            rc = 0;
        if (rc != 0)
            unlink(tmp);
    }
    if (rc == 0 && !quiet) {
        struct stat st;
        if (stat(out_path, &st) == 0)
            fprintf(stderr, "mpiwatch: wrote %s (%lld bytes)\n", out_path, (long long)st.st_size);
    }
    free(tmp);
    return rc;
}
