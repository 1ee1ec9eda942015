/* JSON output: string escaping (quotes, controls, valid and invalid UTF-8)
 * and the exact lines of the JSON view for one scripted rank. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "frames.h"
#include "session.h"
#include "view_json.h"

static void esc(const char *in, size_t n, const char *want)
{
    char *out = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&out, &len);
    mwc_json_string(f, in, n);
    fclose(f);
    CHECK(strcmp(out, want) == 0, "got %s, want %s", out, want);
    free(out);
}

static void test_escape(void)
{
    esc("MPI_Send", 8, "\"MPI_Send\"");
    esc("", 0, "\"\"");
    esc("a\"b\\c/d", 7, "\"a\\\"b\\\\c/d\"");
    esc("\n\r\t\b\f\x01\x1f\x7f", 8, "\"\\n\\r\\t\\b\\f\\u0001\\u001f\\u007f\"");
    esc("nul\0in", 6, "\"nul\\u0000in\"");
    esc("h\xc3\xa9llo \xe2\x82\xac \xf0\x9f\x98\x80", 15, "\"h\xc3\xa9llo \xe2\x82\xac \xf0\x9f\x98\x80\"");
    esc("\xff", 1, "\"\\ufffd\"");
    esc("\xc3", 1, "\"\\ufffd\"");                 /* cut sequence */
    esc("\xc0\xaf", 2, "\"\\ufffd\\ufffd\"");       /* overlong '/' */
    esc("\xed\xa0\x80", 3, "\"\\ufffd\\ufffd\\ufffd\""); /* a surrogate */
    esc("\xf4\x90\x80\x80", 4, "\"\\ufffd\\ufffd\\ufffd\\ufffd\""); /* above U+10FFFF */
    esc("a\xe2\x82", 3, "\"a\\ufffd\\ufffd\"");
}

static const char *want_lines =
    "{\"type\":\"hello\",\"rank\":1,\"size\":2,\"pid\":4001,\"host\":\"fakehost\",\"program\":\"fake \\\"app\\\"\","
    "\"timer\":\"clock_gettime(CLOCK_MONOTONIC)\",\"mpi\":\"Fake MPI 1.0, MPI 4.1\",\"epoch\":1700000000.123456789,\"functions\":5}\n"
    "{\"type\":\"event\",\"rank\":1,\"function\":\"MPI_Send\",\"thread\":0,\"t_in\":0.000001000,\"t_out\":0.000001400,"
    "\"peer\":0,\"tag\":7,\"comm\":0,\"bytes_sent\":16,\"bytes_recv\":0}\n"
    "{\"type\":\"event\",\"rank\":1,\"function\":\"MPI_Recv\",\"thread\":1,\"t_in\":0.000002000,\"t_out\":0.000002300,"
    "\"peer\":0,\"tag\":7,\"comm\":0,\"bytes_sent\":0,\"bytes_recv\":16}\n"
    "{\"type\":\"event\",\"rank\":1,\"function\":\"MPI_Barrier\",\"thread\":0,\"t_in\":0.000003000,\"t_out\":0.000003250,"
    "\"peer\":-1,\"tag\":-1,\"comm\":0,\"bytes_sent\":0,\"bytes_recv\":0}\n"
    "{\"type\":\"snapshot\",\"rank\":1,\"t\":1.000000000,\"events_sent\":3,\"dropped\":0,\"unwatched\":5,\"functions\":{"
    "\"MPI_Init\":{\"calls\":1,\"time\":0.002000000,\"bytes_sent\":0,\"bytes_recv\":0},"
    "\"MPI_Send\":{\"calls\":1,\"time\":0.000000400,\"bytes_sent\":16,\"bytes_recv\":0}}}\n"
    "{\"type\":\"lost\",\"rank\":1,\"endpoint\":\"tcp://h:1\",\"reason\":\"the rank closed the connection, without GOODBYE\"}\n"
    "{\"type\":\"totals\",\"ranks\":1,\"finished\":0,\"lost\":[1],\"functions\":{"
    "\"MPI_Init\":{\"calls\":1,\"time\":0.002000000,\"bytes_sent\":0,\"bytes_recv\":0},"
    "\"MPI_Send\":{\"calls\":1,\"time\":0.000000400,\"bytes_sent\":16,\"bytes_recv\":0}},"
    "\"events\":{\"received\":3,\"dropped\":0,\"unwatched\":5}}\n";

static void test_view(void)
{
    char *out = NULL;
    size_t len = 0;
    mwc_json_state st = { .out = open_memstream(&out, &len), .events = 1 };
    int ranks[1] = { 1 };
    char *descs[1] = { "tcp://h:1" };
    mwc_session s;
    mwc_session_init(&s, 1, ranks, descs, mwc_view_json(&st), NULL);
    mwt_buf b = { 0 };
    mwt_script(&b, 1, 2, 1);
    CHECK(mwc_session_data(&s, 0, b.p, b.len) == 0, "data");
    mwc_session_closed(&s, 0, "the rank closed the connection");
    mwc_session_finish(&s);
    fclose(st.out);
    CHECK(strcmp(out, want_lines) == 0, "JSON lines differ:\n%s\nwant:\n%s", out, want_lines);
    mwc_session_free(&s);
    free(out);
    free(b.p);
}

int main(void)
{
    test_escape();
    test_view();
    return CHECK_DONE("test_json");
}
