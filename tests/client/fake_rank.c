/* A fake rank for the client's tests (no MPI): listens on 127.0.0.1,
 * publishes its endpoint line in a port file as the runtime does (padded
 * lines, each rank writing its own block), checks the client's token and
 * sends a scripted stream (frames.c) in small uneven chunks.
 *
 *   fake_rank RANK SIZE PORT_FILE [options]
 *     --scenario normal|lost|refuse|silent|mute|drip
 *                                     lost: stops without GOODBYE;
 *                                     refuse: closes after the token;
 *                                     silent: takes the token, sends nothing;
 *                                     mute: sends HELLO, then nothing;
 *                                     drip: HELLO, then one byte every 0.5 s;
 *                                     evil: HELLO whose host, program and
 *                                     function name hold terminal escape
 *                                     sequences, then GOODBYE
 *                                     (the silent three hold the connection
 *                                     for 30 s)
 *     --listen-delay SECONDS          publish at once, listen() only later
 *                                     (the client sees connection refused)
 *     --publish-token HEX             publish this token, expect the real one
 *   fake_rank --dump RANK SIZE normal|lost     the stream on stdout (corpus)
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

int main(int argc, char **argv)
{
    signal(SIGPIPE, SIG_IGN);
    if (argc == 5 && strcmp(argv[1], "--dump") == 0) {
        mwt_buf b = { 0 };
        mwt_script(&b, (uint32_t)atoi(argv[2]), (uint32_t)atoi(argv[3]), strcmp(argv[4], "lost") == 0);
        return fwrite(b.p, 1, b.len, stdout) == b.len ? 0 : 1;
    }
    if (argc < 4) {
        fputs("usage: fake_rank RANK SIZE PORT_FILE [--scenario S] [--listen-delay S] "
              "[--publish-token HEX] | --dump RANK SIZE normal|lost\n", stderr);
        return 1;
    }
    int rank = atoi(argv[1]), size = atoi(argv[2]);
    const char *file = argv[3], *scenario = "normal", *published = NULL;
    double delay = 0;
    for (int i = 4; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--scenario") == 0)
            scenario = argv[i + 1];
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
