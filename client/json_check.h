/* A JSON syntax check (RFC 8259) of a whole document, for reports read from
 * disk before they go into a page: it says where the first error is, and
 * hands back the top-level object's "schema" string. It builds nothing. */
#ifndef MWC_JSON_CHECK_H
#define MWC_JSON_CHECK_H

#include <stddef.h>

typedef struct {
    size_t line, column;     /* of the first error, from 1 */
    char error[160];         /* "" when the document is valid */
    char schema[64];         /* the top-level object's "schema", if a short string */
    int is_object;           /* the document is an object */
} mwc_json_check;

/* 0 when text[0..len) is one valid JSON value (with white space around it),
 * else -1 with r->error, r->line and r->column set. Nesting deeper than
 * 512 levels is an error. */
int mwc_json_check_text(const char *text, size_t len, mwc_json_check *r);

#endif
