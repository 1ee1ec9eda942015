/* A fake rank for the client's tests (no MPI): listens on 127.0.0.1,
 * publishes its endpoint line in a port file as the runtime does (padded
 * lines, each rank writing its own block), checks the client's token and
 * sends a scripted stream (frames.c) in small uneven chunks.
 *
 *   fake_rank RANK SIZE PORT_FILE [options]
 *     --scenario normal|lost|refuse|silent|mute|drip|flood|inflight|rates
 *                                     lost: stops without GOODBYE;
 *                                     refuse: closes after the token;
 *                                     silent: takes the token, sends nothing;
 *                                     mute: sends HELLO, then nothing;
 *                                     drip: HELLO, then one byte every 0.5 s;
 *                                     evil: HELLO whose host, program and
 *                                     function name hold terminal escape
 *                                     sequences, then GOODBYE
 *                                     (the silent three hold the connection
 *                                     for 30 s);
 *                                     inflight: HELLO, SNAPSHOT, then an
 *                                     INFLIGHT frame every 0.5 s with the
 *                                     --call's for --hold seconds, then
 *                                     INFLIGHT with none, SNAPSHOT, GOODBYE;
 *                                     inflight-lost: the same, but it closes
 *                                     without GOODBYE after --hold;
 *                                     flood: HELLO, then EVENTS frames as
 *                                     fast as the client reads them for
 *                                     --hold seconds, then GOODBYE;
 *                                     rates: HELLO, SNAPSHOT and PAIRS at
 *                                     1.0 s, the same 0.5 s later (at 1.5 s
 *                                     on the rank's clock too), GOODBYE:
 *                                     see rates_script() for the figures
 *     --call "FUNCTION PEER TAG FLAGS [ROOT COMM COMM_SIZE]"
 *                                     a call in progress (repeat: one per
 *                                     thread); numbers as docs/protocol.md's
 *                                     INFLIGHT (-1 none, -2 any; FLAGS 1 sends,
 *                                     2 receives, 4 collective, 8 world, 16 wait)
 *     --call-age SECONDS              how long the calls have been running
 *                                     when the client attaches (default 1)
 *     --hold SECONDS                  (default 3)
 *     --listen-delay SECONDS          publish at once, listen() only later
 *                                     (the client sees connection refused)
 *     --publish-token HEX             publish this token, expect the real one
 *   fake_rank --dump RANK SIZE normal|lost|inflight|rates   the stream on stdout (corpus)
 * Exit: 0 served, 3 wrong token, 1 other errors. */
#ifndef _DEFAULT_SOURCE
#define _DEFAULT_SOURCE
#endif
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "frames.h"

#define LINE_LEN 100 /* every published line is padded to this, newline included */

static void die(const char *what)
{
    perror(what);
    exit(1);
}

static void nap(double s)
{
    struct timespec ts = { (time_t)s, (long)((s - (double)(time_t)s) * 1e9) };
    nanosleep(&ts, NULL);
}

static void random_token(char out[33])
{
    unsigned char b[16];
    FILE *f = fopen("/dev/urandom", "rb");
    if (!f || fread(b, 1, 16, f) != 16)
        die("/dev/urandom");
    fclose(f);
    for (int i = 0; i < 16; i++)
        sprintf(out + 2 * i, "%02x", b[i]);
}

/* --call's: the calls in progress of the inflight scenarios, with the
 * function names their HELLO gives (MPI_Init first, then one per call). */
#define MAX_CALLS 8
typedef struct {
    int n;
    char name[MAX_CALLS][64];
    mwc_inflight c[MAX_CALLS];
} calls;

static void add_call(calls *cs, const char *spec)
{
    if (cs->n == MAX_CALLS) {
        fprintf(stderr, "fake_rank: at most %d --call\n", MAX_CALLS);
        exit(1);
    }
    mwc_inflight *c = &cs->c[cs->n];
    int peer, tag, root = -1, comm = 0, comm_size = 0;
    unsigned flags;
    if (sscanf(spec, "%63s %d %d %u %d %d %d", cs->name[cs->n], &peer, &tag, &flags, &root, &comm,
               &comm_size) < 4) {
        fprintf(stderr, "fake_rank: --call \"%s\": give FUNCTION PEER TAG FLAGS [ROOT COMM SIZE]\n",
                spec);
        exit(1);
    }
    *c = (mwc_inflight){ (uint32_t)cs->n + 1, (uint32_t)cs->n, 0, peer, tag, root, comm, comm_size,
                         flags };
    cs->n++;
}

static void calls_hello(mwt_buf *b, uint32_t rank, uint32_t size, const calls *cs)
{
    const char *names[MAX_CALLS + 1] = { "MPI_Init" };
    for (int i = 0; i < cs->n; i++)
        names[i + 1] = cs->name[i];
    mwt_hello(b, rank, size, 4000 + rank, 1700000000000000000ull, "fakehost", "hung",
              (uint32_t)cs->n + 1, names);
    mwc_entry init = { 0, 1, 1000000, 0, 0 };
    mwt_snapshot(b, 1000000, 0, 0, 1, 1, &init);
}

/* The calls' INFLIGHT frame at the rank's time t (ns), entered at t_in. */
static void calls_frame(mwt_buf *b, const calls *cs, uint64_t t, uint64_t t_in)
{
    mwc_inflight c[MAX_CALLS];
    for (int i = 0; i < cs->n; i++) {
        c[i] = cs->c[i];
        c[i].t_in = t_in;
    }
    mwt_inflight(b, t, (uint32_t)cs->n, c);
}

static void dump_inflight(mwt_buf *b, uint32_t rank, uint32_t size)
{
    calls cs = { .n = 0 };
    add_call(&cs, "MPI_Recv 0 99 2 -1 0 2");
    add_call(&cs, "MPI_Barrier -1 -1 12 -1 0 2");
    add_call(&cs, "MPI_Bcast -1 -1 4 0 3 -1");
    calls_hello(b, rank, size, &cs);
    calls_frame(b, &cs, 3000000000ull, 1000000000ull);
    mwt_inflight(b, 3500000000ull, 0, NULL);
    calls_frame(b, &cs, 9000000000ull, 1000000000ull);
}

/* The rates scenario, written from docs/protocol.md's SNAPSHOT and PAIRS.
 * Rank r (k = r + 1) of SIZE, functions MPI_Init, MPI_Send, MPI_Recv,
 * MPI_Allreduce. Between the snapshots at 1.0 s and 1.5 s it makes 50k
 * MPI_Send calls (50k ms, 8000k bytes) and 25k MPI_Recv calls (100 ms,
 * 8000k bytes): per second 100k and 50k calls, time shares 0.1k and 0.2,
 * 16000k bytes/s each way; MPI_Init and MPI_Allreduce do nothing. Its rows:
 * to r + 1 (mod SIZE) 1000k bytes in 10k messages, then 9000k in 60k; to
 * r + 2 three empty messages; and a destination outside the job (SIZE + 5)
 * that the client must ignore. part 1: up to the first PAIRS; 2: the rest. */
static void rates_script(mwt_buf *b, uint32_t rank, uint32_t size, int part)
{
    static const char *const names[] = { "MPI_Init", "MPI_Send", "MPI_Recv", "MPI_Allreduce" };
    uint64_t k = rank + 1;
    uint32_t next = (rank + 1) % size, after = (rank + 2) % size;
    if (part == 1) {
        mwt_hello(b, rank, size, 4000 + rank, 1700000000000000000ull, "fakehost", "rates", 4, names);
        mwc_entry e[4] = { { 0, 1, 2000000, 0, 0 },
                           { 1, 10 * k, 10000000 * k, 1000 * k, 0 },
                           { 2, 10 * k, 20000000, 0, 1000 * k },
                           { 3, 5, 5000000, 40, 40 } };
        mwt_snapshot(b, 1000000000ull, 0, 0, 10, 4, e);
        mwc_pair p[3] = { { next, 1000 * k, 10 * k }, { after, 0, 3 }, { size + 5, 77, 1 } };
        mwt_pairs(b, 1000000000ull, size > 2 ? 3 : 1, p);
        return;
    }
    mwc_entry e[4] = { { 0, 1, 2000000, 0, 0 },
                       { 1, 60 * k, 60000000 * k, 9000 * k, 0 },
                       { 2, 35 * k, 120000000, 0, 9000 * k },
                       { 3, 5, 5000000, 40, 40 } };
    mwt_snapshot(b, 1500000000ull, 0, 0, 10, 4, e);
    mwc_pair p[3] = { { size + 5, 77, 1 }, { next, 9000 * k, 60 * k }, { after, 0, 3 } };
    mwt_pairs(b, 1500000000ull, size > 2 ? 3 : 2, p);
    mwt_goodbye(b, 1500000001ull, 0, 0);
}

static double mono(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The inflight scenarios. The rank's clock starts 100 s before now, so that
 * the calls can have been entered `age` seconds before the client came. */
static int serve_inflight(int c, uint32_t rank, uint32_t size, const calls *cs, double age,
                          double hold, int lost)
{
    double start = mono();
    uint64_t t_in = (uint64_t)((100 - age) * 1e9);
    mwt_buf b = { 0 };
    calls_hello(&b, rank, size, cs);
    while (mono() - start < hold) {
        calls_frame(&b, cs, (uint64_t)((100 + mono() - start) * 1e9), t_in);
        if (write(c, b.p, b.len) != (ssize_t)b.len)
            return 1;
        b.len = 0;
        nap(0.5);
    }
    if (!lost) {
        uint64_t t = (uint64_t)((100 + mono() - start) * 1e9);
        mwt_inflight(&b, t, 0, NULL);
        mwc_entry init = { 0, 1, 1000000, 0, 0 };
        mwt_snapshot(&b, t, 0, 0, 1, 1, &init);
        mwt_goodbye(&b, t + 1, 0, 0);
        if (write(c, b.p, b.len) != (ssize_t)b.len)
            return 1;
    }
    close(c);
    free(b.p);
    return 0;
}

/* The flood scenario: a client decoding events as fast as they come is
 * busy, and must lower its priority (client/priority.h). */
static int serve_flood(int c, uint32_t rank, uint32_t size, double hold)
{
    static const char *const names[] = { "MPI_Send" };
    mwt_buf b = { 0 };
    mwt_hello(&b, rank, size, 4242, 1, "fakehost", "flood", 1, names);
    if (write(c, b.p, b.len) != (ssize_t)b.len)
        return 1;
    b.len = 0;
    mwc_event ev[256];
    for (int i = 0; i < 256; i++)
        ev[i] = (mwc_event){ 0, 0, 1000u * (uint64_t)i, 1000u * (uint64_t)i + 500,
                             (int32_t)((rank + 1) % size), 7, 0, 1, 8, 0 };
    for (int i = 0; i < 64; i++)
        mwt_events(&b, 256, ev);
    double start = mono();
    while (mono() - start < hold)
        if (write(c, b.p, b.len) != (ssize_t)b.len)
            return 1;
    b.len = 0;
    mwt_goodbye(&b, 1, 0, 0);
    int rc = write(c, b.p, b.len) != (ssize_t)b.len;
    close(c);
    free(b.p);
    return rc;
}

int main(int argc, char **argv)
{
    signal(SIGPIPE, SIG_IGN);
    if (argc == 5 && strcmp(argv[1], "--dump") == 0) {
        mwt_buf b = { 0 };
        if (strcmp(argv[4], "inflight") == 0)
            dump_inflight(&b, (uint32_t)atoi(argv[2]), (uint32_t)atoi(argv[3]));
        else if (strcmp(argv[4], "rates") == 0) {
            rates_script(&b, (uint32_t)atoi(argv[2]), (uint32_t)atoi(argv[3]), 1);
            rates_script(&b, (uint32_t)atoi(argv[2]), (uint32_t)atoi(argv[3]), 2);
        }
        else
            mwt_script(&b, (uint32_t)atoi(argv[2]), (uint32_t)atoi(argv[3]),
                       strcmp(argv[4], "lost") == 0);
        return fwrite(b.p, 1, b.len, stdout) == b.len ? 0 : 1;
    }
    if (argc < 4) {
        fputs("usage: fake_rank RANK SIZE PORT_FILE [--scenario S] [--listen-delay S] "
              "[--publish-token HEX] | --dump RANK SIZE normal|lost\n", stderr);
        return 1;
    }
    int rank = atoi(argv[1]), size = atoi(argv[2]);
    const char *file = argv[3], *scenario = "normal", *published = NULL;
    double delay = 0, age = 1, hold = 3;
    calls cs = { .n = 0 };
    for (int i = 4; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--scenario") == 0)
            scenario = argv[i + 1];
        else if (strcmp(argv[i], "--call") == 0)
            add_call(&cs, argv[i + 1]);
        else if (strcmp(argv[i], "--call-age") == 0)
            age = atof(argv[i + 1]);
        else if (strcmp(argv[i], "--hold") == 0)
            hold = atof(argv[i + 1]);
        else if (strcmp(argv[i], "--listen-delay") == 0)
            delay = atof(argv[i + 1]);
        else if (strcmp(argv[i], "--publish-token") == 0)
            published = argv[i + 1];
    }
    char token[33];
    random_token(token);
    int s = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t alen = sizeof a;
    if (s < 0 || bind(s, (struct sockaddr *)&a, sizeof a) != 0 ||
        getsockname(s, (struct sockaddr *)&a, &alen) != 0)
        die("bind");
    char line[LINE_LEN + 1];
    int n = snprintf(line, sizeof line, "mpiwatch-endpoint 1 %d %d tcp 127.0.0.1 %d %s", rank, size,
                     ntohs(a.sin_port), published ? published : token);
    memset(line + n, ' ', (size_t)(LINE_LEN - 1 - n));
    line[LINE_LEN - 1] = '\n';
    int fd = open(file, O_WRONLY | O_CREAT, 0600);
    if (fd < 0 || pwrite(fd, line, LINE_LEN, (off_t)rank * LINE_LEN) != LINE_LEN)
        die(file);
    close(fd);
    if (delay > 0)
        nap(delay);
    if (listen(s, 4) != 0)
        die("listen");
    alarm(60); /* never outlive a broken test */
    int c = accept(s, NULL, NULL);
    if (c < 0)
        die("accept");
    char got[80];
    size_t k = 0;
    while (k < sizeof got - 1) {
        ssize_t r = read(c, got + k, 1);
        if (r <= 0 || got[k] == '\n')
            break;
        k++;
    }
    got[k] = '\0';
    char want[80];
    snprintf(want, sizeof want, "MPIWATCH 1 %s", token);
    if (strcmp(got, want) != 0) {
        fprintf(stderr, "fake_rank %d: wrong token from the client: \"%s\"\n", rank, got);
        close(c);
        return 3;
    }
    if (strcmp(scenario, "refuse") == 0) {
        close(c);
        return 0;
    }
    if (strcmp(scenario, "evil") == 0) {
        static const char *const names[] = { "MPI_\033[2JSend" };
        mwt_buf h = { 0 };
        mwt_hello(&h, (uint32_t)rank, (uint32_t)size, 4242, 1, "\033]0;pwned\007host",
                  "\033[2J\033[Hprog\x9b" "31m", 1, names);
        mwc_entry e = { 0, 3, 1000, 24, 0 };
        mwt_snapshot(&h, 10, 0, 0, 0, 1, &e);
        mwt_goodbye(&h, 11, 0, 0);
        if (write(c, h.p, h.len) != (ssize_t)h.len)
            die("write");
        close(c);
        return 0;
    }
    if (strcmp(scenario, "silent") == 0 || strcmp(scenario, "mute") == 0 ||
        strcmp(scenario, "drip") == 0) {
        static const char *const names[] = { "MPI_Send" };
        mwt_buf h = { 0 };
        if (strcmp(scenario, "silent") != 0) {
            mwt_hello(&h, (uint32_t)rank, (uint32_t)size, 4242, 1, "fakehost", "fake", 1, names);
            if (write(c, h.p, h.len) != (ssize_t)h.len)
                die("write");
        }
        mwt_buf s = { 0 };
        mwt_level(&s, 5, 1);
        for (int i = 0; i < 60; i++) {
            if (strcmp(scenario, "drip") == 0 && (size_t)i < s.len - 1 &&
                write(c, s.p + i, 1) != 1)
                break;   /* the client has gone */
            nap(0.5);
        }
        close(c);
        return 0;
    }
    if (strncmp(scenario, "inflight", 8) == 0)
        return serve_inflight(c, (uint32_t)rank, (uint32_t)size, &cs, age, hold,
                              strcmp(scenario, "inflight-lost") == 0);
    if (strcmp(scenario, "flood") == 0)
        return serve_flood(c, (uint32_t)rank, (uint32_t)size, hold);
    if (strcmp(scenario, "rates") == 0) {
        mwt_buf r = { 0 };
        for (int part = 1; part <= 2; part++) {
            r.len = 0;
            rates_script(&r, (uint32_t)rank, (uint32_t)size, part);
            if (write(c, r.p, r.len) != (ssize_t)r.len)
                die("write");
            if (part == 1)
                nap(0.5); /* as the rank's clock says */
        }
        close(c);
        free(r.p);
        return 0;
    }
    mwt_buf b = { 0 };
    mwt_script(&b, (uint32_t)rank, (uint32_t)size, strcmp(scenario, "lost") == 0);
    /* Uneven chunks with pauses: frames arrive split across reads. */
    size_t off = 0, chunk = 1;
    while (off < b.len) {
        size_t m = b.len - off < chunk ? b.len - off : chunk;
        if (write(c, b.p + off, m) != (ssize_t)m)
            die("write");
        off += m;
        chunk = chunk * 3 % 97 + 1;
        if (off % 5 == 0)
            nap(0.002);
    }
    close(c);
    return 0;
}
