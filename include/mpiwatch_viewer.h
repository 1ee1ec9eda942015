/* The viewer page (client/web/), assembled at build time with its chart
 * library inlined (client/web/embed.py writes generated/viewer_page.c).
 * A page is mw_viewer_head, a report's JSON with every '<' written as
 * \u003c (so that no string in it can close the script element), then
 * mw_viewer_tail. libmpiwatch (MPIWATCH_FORMATS=html) and the mpiwatch
 * client (--html) both write it. Not installed. */
#ifndef MPIWATCH_VIEWER_H
#define MPIWATCH_VIEWER_H

extern const char mw_viewer_head[];
extern const char mw_viewer_tail[];
/* "" when the page is built in; else why not and what to install. */
extern const char mw_viewer_unavailable[];

#endif
