/* mpiwatch --report FILE.json --html OUT.html: the viewer page with a JSON
 * report in it, one self-contained file (docs/client.md, "HTML reports"). */
#ifndef MWC_HTML_REPORT_H
#define MWC_HTML_REPORT_H

#include <stdio.h>

/* Checks that json_path holds a JSON report (schema MW_REPORT_SCHEMA) and writes
 * the page to out_path (through a temporary file, then renamed). Errors go
 * to stderr, naming the file; returns 0, or 1 on any error. */
int mwc_html_report(const char *json_path, const char *out_path, int quiet);

/* The page around text[0..len) (a JSON document), with '<' escaped. 0, or
 * -1 when a write fails. */
int mwc_html_write(FILE *out, const char *text, size_t len);

/* The page around text[0..len) into out_path (a temporary file, then
 * renamed); 0, or 1 with a message on stderr. */
int mwc_html_write_file(const char *out_path, const char *text, size_t len, int quiet);

/* The same for any page of the viewer's kind (the timeline's too): head,
 * the data with '<' escaped, tail. */
int mwc_page_write_file(const char *out_path, const char *head, const char *tail, const char *text,
                        size_t len, int quiet);

#endif
