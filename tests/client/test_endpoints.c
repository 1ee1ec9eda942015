/* Endpoint lines, URLs and port-file contents: what is accepted, and the
 * file:line of what is not. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "endpoints.h"

#define TOK "0123456789abcdef0123456789abcdef"

static void ok_line(const char *line, int rank, int size, int transport, const char *desc)
{
    mwc_endpoint ep;
    char err[200] = "";
    int rc = mwc_endpoint_parse_line(line, &ep, err, sizeof err);
    CHECK(rc == 0, "\"%s\": %s", line, err);
    if (rc != 0)
        return;
    CHECK(ep.rank == rank && ep.size == size && ep.transport == transport, "\"%s\": %d %d %d", line,
          ep.rank, ep.size, ep.transport);
    CHECK(strcmp(ep.desc, desc) == 0, "desc %s", ep.desc);
    CHECK(strcmp(ep.token, TOK) == 0, "token %s", ep.token);
    free(ep.host), free(ep.port_name), free(ep.desc);
}

static void bad_line(const char *line, const char *want)
{
    mwc_endpoint ep;
    char err[200] = "";
    int rc = mwc_endpoint_parse_line(line, &ep, err, sizeof err);
    CHECK(rc == -1, "\"%s\" accepted", line);
    CHECK(strstr(err, want) != NULL, "\"%s\": \"%s\" lacks \"%s\"", line, err, want);
    free(ep.host), free(ep.port_name), free(ep.desc);
}

static void test_lines(void)
{
    ok_line("mpiwatch-endpoint 1 0 4 tcp node1 5000 " TOK, 0, 4, MWC_TCP, "tcp://node1:5000");
    ok_line("mpiwatch-endpoint 1 3 4 tcp node1 65535 " TOK "      \n", 3, 4, MWC_TCP,
            "tcp://node1:65535");
    ok_line("mpiwatch-endpoint 1 0 1 tcp ::1 80 " TOK, 0, 1, MWC_TCP, "tcp://[::1]:80");
    ok_line("mpiwatch-endpoint 1 1 2 mpi " TOK " 4006739969.0:1421497238   ", 1, 2, MWC_MPI,
            "mpi:4006739969.0:1421497238");
    ok_line("mpiwatch-endpoint 1 1 2 mpi " TOK " port with spaces; x", 1, 2, MWC_MPI,
            "mpi:port with spaces; x");
    bad_line("mpiwatch-endpoint 2 0 1 tcp h 1 " TOK, "protocol version 2");
    bad_line("mpiwatch-endpoint x 0 1 tcp h 1 " TOK, "no protocol version");
    bad_line("mpiwatch-endpoint 1 1 1 tcp h 1 " TOK, "RANK \"1\" is not a rank below SIZE 1");
    bad_line("mpiwatch-endpoint 1 -1 2 tcp h 1 " TOK, "RANK \"-1\"");
    bad_line("mpiwatch-endpoint 1 0 0 tcp h 1 " TOK, "SIZE \"0\"");
    bad_line("mpiwatch-endpoint 1 0 1 udp h 1 " TOK, "unknown transport \"udp\"");
    bad_line("mpiwatch-endpoint 1 0 1 tcp h 0 " TOK, "PORT \"0\"");
    bad_line("mpiwatch-endpoint 1 0 1 tcp h 65536 " TOK, "PORT \"65536\"");
    bad_line("mpiwatch-endpoint 1 0 1 tcp h 1 0123456789ABCDEF0123456789abcdef", "TOKEN");
    bad_line("mpiwatch-endpoint 1 0 1 tcp h 1 " TOK "0", "TOKEN");
    bad_line("mpiwatch-endpoint 1 0 1 tcp h 1", "needs HOST PORT TOKEN");
    bad_line("mpiwatch-endpoint 1 0 1 tcp h 1 " TOK " extra", "needs HOST PORT TOKEN");
    bad_line("mpiwatch-endpoint 1 0 1 tcp  1 " TOK, "HOST");
    bad_line("mpiwatch-endpoint 1 0 1 mpi " TOK, "needs TOKEN PORT_NAME");
    bad_line("hello world", "not an endpoint line");

    /* Node leaders: a leader's node line, and the via lines of its node. */
    ok_line("mpiwatch-endpoint 1 4 8 node n1 5000 " TOK, 4, 8, MWC_TCP, "node tcp://n1:5000");
    mwc_endpoint ep;
    char err[200] = "";
    CHECK(mwc_endpoint_parse_line("mpiwatch-endpoint 1 5 8 via 4   ", &ep, err, sizeof err) == 0 &&
              ep.transport == MWC_VIA && ep.via == 4 && ep.rank == 5 && !ep.node &&
              strcmp(ep.desc, "via rank 4") == 0,
          "via line: %s", err);
    free(ep.host), free(ep.port_name), free(ep.desc);
    CHECK(mwc_endpoint_parse_line("mpiwatch-endpoint 1 4 8 node n1 5000 " TOK, &ep, err,
                                  sizeof err) == 0 && ep.node, "node flag");
    free(ep.host), free(ep.port_name), free(ep.desc);
    bad_line("mpiwatch-endpoint 1 5 8 via 5", "needs its leader's RANK");
    bad_line("mpiwatch-endpoint 1 5 8 via 8", "another rank below SIZE 8");
    bad_line("mpiwatch-endpoint 1 5 8 via", "needs its leader's RANK");
    bad_line("mpiwatch-endpoint 1 5 8 via 4 4", "needs its leader's RANK");
    bad_line("mpiwatch-endpoint 1 5 8 via x", "needs its leader's RANK");
    bad_line("mpiwatch-endpoint 1 4 8 node n1 5000", "a node endpoint needs HOST PORT TOKEN");
}

static void test_urls(void)
{
    mwc_endpoint ep;
    char err[200] = "";
    CHECK(mwc_endpoint_parse_url("tcp://127.0.0.1:4242/" TOK, &ep, err, sizeof err) == 0, "%s", err);
    CHECK(ep.rank == -1 && strcmp(ep.host, "127.0.0.1") == 0 && strcmp(ep.port, "4242") == 0,
          "%s %s", ep.host, ep.port);
    free(ep.host), free(ep.desc);
    CHECK(mwc_endpoint_parse_url("tcp://[fe80::1]:9/" TOK, &ep, err, sizeof err) == 0, "%s", err);
    CHECK(strcmp(ep.host, "fe80::1") == 0 && strcmp(ep.desc, "tcp://[fe80::1]:9") == 0, "%s", ep.desc);
    free(ep.host), free(ep.desc);
    const char *bad[] = { "udp://h:1/" TOK, "tcp://h/" TOK, "tcp://h:x/" TOK, "tcp://h:1/abc",
                          "tcp://:1/" TOK, "tcp://[::1/" TOK, "tcp://h:1" };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        memset(&ep, 0, sizeof ep);
        CHECK(mwc_endpoint_parse_url(bad[i], &ep, err, sizeof err) == -1, "%s accepted", bad[i]);
        free(ep.host), free(ep.desc);
    }
}

/* Port-file contents: padded lines in rank order, blocks not yet written
 * (NULs), unfinished lines, and bad lines named by file:line. */
static void test_text(void)
{
    mwc_endpoints l;
    mwc_endpoints_init(&l);
    char err[300] = "";
    const char *l0 = "mpiwatch-endpoint 1 0 2 tcp h 1000 " TOK "          \n";
    const char *l1 = "mpiwatch-endpoint 1 1 2 tcp h 1001 " TOK "          \n";
    char text[512];
    snprintf(text, sizeof text, "%s%s", l0, l1);
    CHECK(mwc_endpoints_from_text(text, strlen(text), "f", &l, err, sizeof err) == 1, "%s", err);
    CHECK(l.n == 2 && l.v[1].rank == 1 && strcmp(l.v[1].port, "1001") == 0, "%zu", l.n);
    /* Rank 0's block not written yet: a hole of NULs. */
    char hole[512];
    size_t n0 = strlen(l0), n1 = strlen(l1);
    memset(hole, 0, n0);
    memcpy(hole + n0, l1, n1);
    CHECK(mwc_endpoints_from_text(hole, n0 + n1, "f", &l, err, sizeof err) == 0, "hole accepted");
    CHECK(mwc_endpoints_from_text(text, strlen(text) - 5, "f", &l, err, sizeof err) == 0,
          "unfinished line accepted");
    CHECK(mwc_endpoints_from_text(l0, n0, "f", &l, err, sizeof err) == 0, "one of two accepted");
    snprintf(text, sizeof text, "%s\nmpiwatch-endpoint 1 1 2 tcp h 1001 nottoken\n", l0);
    CHECK(mwc_endpoints_from_text(text, strlen(text), "ports.txt", &l, err, sizeof err) == -1 &&
              strstr(err, "ports.txt:3: TOKEN"), "%s", err);
    snprintf(text, sizeof text, "%s%s", l0, l0);
    CHECK(mwc_endpoints_from_text(text, strlen(text), "p", &l, err, sizeof err) == -1 &&
              strstr(err, "p:2: a second endpoint for rank 0"), "%s", err);
    snprintf(text, sizeof text, "%smpiwatch-endpoint 1 1 3 tcp h 1001 " TOK "\n", l0);
    CHECK(mwc_endpoints_from_text(text, strlen(text), "p", &l, err, sizeof err) == -1 &&
              strstr(err, "p:2: SIZE 3 differs from the 2"), "%s", err);
    snprintf(text, sizeof text, "%s%s%s", l0, l1, l1);
    CHECK(mwc_endpoints_from_text(text, strlen(text), "p", &l, err, sizeof err) == -1 &&
              strstr(err, "p:3: more endpoint lines than SIZE 2"), "%s", err);
    snprintf(text, sizeof text, "garbage\n%s", l0);
    CHECK(mwc_endpoints_from_text(text, strlen(text), "p", &l, err, sizeof err) == -1 &&
              strstr(err, "p:1: not an endpoint line"), "%s", err);
    mwc_endpoints_free(&l);
}

/* Standard input: endpoint lines among other output, the rest forwarded. */
static void test_stdin(void)
{
    int fds[2];
    CHECK(pipe(fds) == 0, "pipe");
    const char *in = "program says hi\n"
                     "mpiwatch-endpoint 1 1 2 tcp h 1001 " TOK "\n"
                     "[1] tagged line\n"
                     "mpiwatch-endpoint 1 0 2 mpi " TOK " port 0\n"
                     "mpiwatch-endpoint 1 0 2 tcp later 1 " TOK "\n"
                     "no newline at the end";
    CHECK(write(fds[1], in, strlen(in)) == (ssize_t)strlen(in), "write");
    close(fds[1]);
    char *fwd = NULL;
    size_t fwdn = 0;
    FILE *f = open_memstream(&fwd, &fwdn);
    mwc_linereader r;
    mwc_linereader_init(&r, fds[0], f);
    mwc_endpoints l;
    mwc_endpoints_init(&l);
    CHECK(mwc_endpoints_from_stdin(&r, 5, 1, &l) == 0, "stdin endpoints");
    char err[300];
    while (!r.eof)
        mwc_linereader_pump(&r, &l, err, sizeof err);
    fclose(f);
    CHECK(l.n == 2 && l.v[0].rank == 1 && l.v[1].transport == MWC_MPI &&
              strcmp(l.v[1].port_name, "port 0") == 0, "%zu", l.n);
    CHECK(fwd && strcmp(fwd, "program says hi\n[1] tagged line\nno newline at the end\n") == 0,
          "forwarded: \"%s\"", fwd ? fwd : "");
    free(fwd);
    mwc_linereader_free(&r);
    mwc_endpoints_free(&l);
    close(fds[0]);

    CHECK(pipe(fds) == 0, "pipe");
    in = "x\nmpiwatch-endpoint 1 0 2 tcp h 99999 " TOK "\n";
    CHECK(write(fds[1], in, strlen(in)) == (ssize_t)strlen(in), "write");
    close(fds[1]);
    mwc_linereader_init(&r, fds[0], NULL);
    mwc_endpoints_init(&l);
    CHECK(mwc_linereader_pump(&r, &l, err, sizeof err) == -1 && strstr(err, "<stdin>:2: PORT"),
          "%s", err);
    mwc_linereader_free(&r);
    mwc_endpoints_free(&l);
    close(fds[0]);
}

int main(void)
{
    test_lines();
    test_urls();
    test_text();
    test_stdin();
    return CHECK_DONE("test_endpoints");
}
