/* The HTML report: the viewer page (client/web/, built in as
 * mw_viewer_head and mw_viewer_tail) around the JSON report. The JSON goes
 * through a stream that writes each '<' as \u003c, so that no string in it
 * can end the page's script element; JSON has '<' only inside strings, where
 * \u003c means the same character. */
#define _GNU_SOURCE   /* fopencookie */
#include <stdio.h>
#include <string.h>
#include <sys/types.h>

#include "mpiwatch_viewer.h"
#include "report/report.h"
#include "core/warn.h"

static ssize_t escape_write(void *cookie, const char *buf, size_t size)
{
    if (mw_viewer_write_data(cookie, buf, size) != 0)
        return -1;
    return (ssize_t)size;
}

int mw_report_html_available(void)
{
    return mw_viewer_unavailable[0] == '\0';
}

const char *mw_report_html_missing(void)
{
    return mw_viewer_unavailable;
}

void mw_report_html(FILE *out, const mw_job_summary *job)
{
    cookie_io_functions_t io = {.read = NULL, .write = escape_write, .seek = NULL, .close = NULL};
    fputs(mw_viewer_head, out);
    FILE *json = fopencookie(out, "w", io);
    if (json == NULL) {
        /* The page then says it holds no report; the JSON report has it. */
        mw_warn("the HTML report has no data: no memory for its stream");
    } else {
        mw_report_json_page(json, job, 1);
        if (fclose(json) != 0)
            mw_warn("the HTML report's data is incomplete: a write failed");
    }
    fputs(mw_viewer_tail, out);
}
