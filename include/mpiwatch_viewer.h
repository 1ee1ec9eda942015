/* The viewer page (client/web/), assembled at build time with its chart
 * library inlined (client/web/embed.py writes generated/viewer_page.c).
 * A page is mw_viewer_head, a report's JSON with every '<' written as
 * \u003c (so that no string in it can close the script element), then
 * mw_viewer_tail. libmpiwatch (MPIWATCH_FORMATS=html) and the mpiwatch
 * client (--html) both write it. Not installed. */
#ifndef MPIWATCH_VIEWER_H
#define MPIWATCH_VIEWER_H

#include <stdio.h>
#include <string.h>

/* The matrix's blocks a side at most, its one definition: the viewer draws
 * the report's pairs in as many (client/web/viewer.js, given it by the C
 * strings client/web/embed.py writes), and the client bins the matrix file
 * into as many (client/matrix_blocks.c). */
#define MW_VIEWER_MATRIX_BLOCKS 256
#define MW_VIEWER_TEXT_(x) #x
#define MW_VIEWER_TEXT(x) MW_VIEWER_TEXT_(x)
#define MW_VIEWER_MATRIX_BLOCKS_TEXT MW_VIEWER_TEXT(MW_VIEWER_MATRIX_BLOCKS)

extern const char mw_viewer_head[];
extern const char mw_viewer_tail[];
/* "" when the page is built in; else why not and what to install. */
extern const char mw_viewer_unavailable[];

/* The timeline page (client/web/timeline.html: the mpiwatch client's
 * --trace DIR --html), before and after its data; it needs no chart
 * library. In the client only (generated/timeline_page.c). */
extern const char mw_timeline_head[];
extern const char mw_timeline_tail[];

/* Write len bytes of a report's JSON into a page, each '<' as \u003c.
 * 0, or -1 when a write failed. */
static inline int mw_viewer_write_data(FILE *out, const char *text, size_t len)
{
    size_t done = 0;
    while (done < len) {
        const char *lt = memchr(text + done, '<', len - done);
        size_t plain = lt ? (size_t)(lt - (text + done)) : len - done;
        if (plain && fwrite(text + done, 1, plain, out) != plain)
            return -1;
        done += plain;
        if (lt) {
            if (fputs("\\u003c", out) == EOF)
                return -1;
            done++;
        }
    }
    return 0;
}

#endif
