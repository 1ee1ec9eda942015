/* A C string as a JSON string literal (report/report.h): for the JSON
 * report and the wait states' section (report/wait_section.c), which the
 * report's writer calls, on its own so that neither depends on the other. */
#include <stdio.h>

#include "report/report.h"

void mw_json_string(FILE *out, const char *s)
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
