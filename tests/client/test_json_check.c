/* The JSON syntax check behind mpiwatch --report --html (client/json_check.c):
 * valid documents of every kind, the top-level "schema", and each error with
 * its line and column; deep nesting is refused, not a stack overflow; and the
 * page writer escapes every '<' of the report. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "html_report.h"
#include "json_check.h"
#include "mpiwatch_viewer.h"

static int check(const char *text, mwc_json_check *r)
{
    return mwc_json_check_text(text, strlen(text), r);
}

static void valid(void)
{
    static const char *const docs[] = {
        "{}", " [ ] ", "0", "-0.5e+10", "1E3", "\"a\\u00e9\\n\\\"\"", "true", "false", "null",
        "{\"a\": [1, 2, {\"b\": null}], \"c\": \"\\/\"}", "\n{\"x\":\t[]}\r\n",
    };
    mwc_json_check r;
    for (size_t i = 0; i < sizeof docs / sizeof docs[0]; i++)
        CHECK(check(docs[i], &r) == 0, "'%s' is valid, got %s", docs[i], r.error);
    CHECK(check("{\"schema\": \"mpiwatch-report/1\", \"ranks\": 4}", &r) == 0 && r.is_object &&
              strcmp(r.schema, "mpiwatch-report/1") == 0, "schema '%s'", r.schema);
    CHECK(check("{\"a\": {\"schema\": \"inner\"}}", &r) == 0 && r.schema[0] == '\0',
          "only the top level's schema counts, got '%s'", r.schema);
    CHECK(check("[{\"schema\": \"x\"}]", &r) == 0 && !r.is_object, "an array is no object");
}

static void invalid(void)
{
    static const struct { const char *text; size_t line, column; const char *error; } bad[] = {
        {"", 1, 1, "ends where a value"},
        {"{", 1, 2, "expected a key"},
        {"[1, 2,]", 1, 7, "expected a value"},
        {"{\"a\" 1}", 1, 6, "expected ':'"},
        {"{\"a\": 1,\n \"b\": tru}", 2, 7, "expected a value"},
        {"\"abc", 1, 5, "not closed"},
        {"\"a\tb\"", 1, 3, "control character"},
        {"\"\\x\"", 1, 3, "invalid escape"},
        {"\"\\u12g4\"", 1, 6, "hex digits"},
        {"01", 1, 2, "more text"},
        {"1.", 1, 3, "expected a digit"},
        {"{} {}", 1, 4, "more text"},
        {"[1 2]", 1, 4, "expected ',' or ']'"},
        {"nul", 1, 1, "expected a value"},
        {"{\"a\": 1 \"b\": 2}", 1, 9, "expected ',' or '}'"},
    };
    mwc_json_check r;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        int rc = check(bad[i].text, &r);
        CHECK(rc == -1 && r.line == bad[i].line && r.column == bad[i].column &&
                  strstr(r.error, bad[i].error) != NULL,
              "'%s': rc %d at %zu:%zu '%s', expected %zu:%zu '%s'", bad[i].text, rc, r.line,
              r.column, r.error, bad[i].line, bad[i].column, bad[i].error);
    }
    /* A NUL inside the text is no white space and no value. */
    CHECK(mwc_json_check_text("{}\0", 3, &r) == -1, "a NUL after the value is refused");
}

static void deep(void)
{
    size_t n = 100000;
    char *s = malloc(2 * n + 1);
    memset(s, '[', n);
    memset(s + n, ']', n);
    s[2 * n] = '\0';
    mwc_json_check r;
    CHECK(check(s, &r) == -1 && strstr(r.error, "512 levels") != NULL, "deep nesting: %s", r.error);
    free(s);
}

static void escaped(void)
{
    if (mw_viewer_unavailable[0] != '\0')
        return;   /* a build without Chart.js writes no page */
    const char *json = "{\"program\": \"</script><b>x</b>\"}";
    char *page = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&page, &len);
    CHECK(f != NULL && mwc_html_write(f, json, strlen(json)) == 0, "the page is written");
    fclose(f);
    const char *data = strstr(page, "<script id=\"mw-data\" type=\"application/json\">");
    CHECK(data != NULL, "the page has its data element");
    if (data) {
        data += strlen("<script id=\"mw-data\" type=\"application/json\">");
        const char *want = "{\"program\": \"\\u003c/script>\\u003cb>x\\u003c/b>\"}</script>";
        CHECK(strncmp(data, want, strlen(want)) == 0, "every '<' of the report is \\u003c: %.80s", data);
    }
    free(page);
}

int main(void)
{
    valid();
    invalid();
    deep();
    escaped();
    return CHECK_DONE("test_json_check");
}
