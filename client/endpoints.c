#include "endpoints.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mpiwatch_protocol.h"
#include "util.h"

#define PREFIX MWP_ENDPOINT_PREFIX
#define MAX_RANKS (1 << 24)

void mwc_endpoints_init(mwc_endpoints *l)
{
    memset(l, 0, sizeof *l);
    l->size = -1;
}

static void endpoint_free(mwc_endpoint *ep)
{
    free(ep->host);
    free(ep->port_name);
    free(ep->desc);
    memset(ep, 0, sizeof *ep);
}

void mwc_endpoints_free(mwc_endpoints *l)
{
    for (size_t i = 0; i < l->n; i++)
        endpoint_free(&l->v[i]);
    free(l->v);
    mwc_endpoints_init(l);
}

static int failf(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    mwc_printable(err);   /* it quotes the file: no escape sequence reaches a terminal */
    return -1;
}

/* A decimal number in [lo, hi], nothing else: no sign, no spaces. */
static int number(const char *s, size_t n, long lo, long hi, long *out)
{
    if (n == 0 || n > 9)
        return -1;
    long v = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -1;
        v = v * 10 + (s[i] - '0');
    }
    if (v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

static int token_ok(const char *s, size_t n)
{
    if (n != MWP_TOKEN_HEX)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
            return 0;
    return 1;
}

static void describe(mwc_endpoint *ep)
{
    size_t n = (ep->host ? strlen(ep->host) : 0) + (ep->port_name ? strlen(ep->port_name) : 0) + 32;
    ep->desc = mwc_malloc(n);
    if (ep->transport == MWC_TCP)
        snprintf(ep->desc, n, strchr(ep->host, ':') ? "%stcp://[%s]:%s" : "%stcp://%s:%s",
                 ep->node ? MWP_ENDPOINT_NODE " " : "", ep->host, ep->port);
    else if (ep->transport == MWC_VIA)
        snprintf(ep->desc, n, MWP_ENDPOINT_VIA " rank %d", ep->via);
    else
        snprintf(ep->desc, n, "mpi:%s", ep->port_name);
}

int mwc_endpoint_parse_line(const char *line, mwc_endpoint *ep, char *err, size_t errlen)
{
    memset(ep, 0, sizeof *ep);
    size_t len = strlen(line);
    while (len > 0 && (line[len - 1] == ' ' || line[len - 1] == '\r' || line[len - 1] == '\n'))
        len--;
    if (len < strlen(PREFIX) || memcmp(line, PREFIX, strlen(PREFIX)) != 0)
        return failf(err, errlen, "not an endpoint line (it must start with \"" PREFIX "\")");
    /* Fields: version rank size transport, then the transport's own. */
    const char *f[8];
    size_t fl[8];
    size_t nf = 0, i = strlen(PREFIX);
    while (i <= len && nf < 8) {
        size_t j = i;
        /* The mpi PORT_NAME is the rest of the line, spaces and all. */
        int rest = nf == 5 && fl[3] == 3 && memcmp(f[3], "mpi", 3) == 0;
        while (j < len && (rest || line[j] != ' '))
            j++;
        f[nf] = line + i;
        fl[nf] = j - i;
        nf++;
        i = j + 1;
    }
    long version, rank, size, port;
    if (nf < 4 || number(f[0], fl[0], 0, 999999, &version) != 0)
        return failf(err, errlen, "no protocol version after \"" PREFIX "\"");
    if (version != MWP_VERSION)
        return failf(err, errlen, "protocol version %ld; this client speaks version %d", version,
                     MWP_VERSION);
    if (number(f[2], fl[2], 1, MAX_RANKS, &size) != 0)
        return failf(err, errlen, "SIZE \"%.*s\" is not a number of ranks", (int)fl[2], f[2]);
    if (number(f[1], fl[1], 0, size - 1, &rank) != 0)
        return failf(err, errlen, "RANK \"%.*s\" is not a rank below SIZE %ld", (int)fl[1], f[1], size);
    ep->rank = (int)rank;
    ep->size = (int)size;
    int node = fl[3] == strlen(MWP_ENDPOINT_NODE) && memcmp(f[3], MWP_ENDPOINT_NODE, fl[3]) == 0;
    long via;
    if ((fl[3] == 3 && memcmp(f[3], "tcp", 3) == 0) || node) {
        if (nf != 7)
            return failf(err, errlen, "a %s endpoint needs HOST PORT TOKEN after it",
                         node ? MWP_ENDPOINT_NODE : "tcp");
        if (fl[4] == 0 || fl[4] > 255)
            return failf(err, errlen, "empty or overlong HOST");
        if (number(f[5], fl[5], 1, 65535, &port) != 0)
            return failf(err, errlen, "PORT \"%.*s\" is not a port number", (int)fl[5], f[5]);
        if (!token_ok(f[6], fl[6]))
            return failf(err, errlen, "TOKEN \"%.*s\" is not 32 lowercase hexadecimal digits",
                         (int)fl[6], f[6]);
        ep->transport = MWC_TCP;
        ep->node = node;
        ep->host = mwc_strndup(f[4], fl[4]);
        snprintf(ep->port, sizeof ep->port, "%ld", port);
        memcpy(ep->token, f[6], MWP_TOKEN_HEX);
    } else if (fl[3] == 3 && memcmp(f[3], "mpi", 3) == 0) {
        if (nf != 6 || fl[5] == 0)
            return failf(err, errlen, "an mpi endpoint needs TOKEN PORT_NAME after \"mpi\"");
        if (!token_ok(f[4], fl[4]))
            return failf(err, errlen, "TOKEN \"%.*s\" is not 32 lowercase hexadecimal digits",
                         (int)fl[4], f[4]);
        ep->transport = MWC_MPI;
        memcpy(ep->token, f[4], MWP_TOKEN_HEX);
        ep->port_name = mwc_strndup(f[5], fl[5]);
    } else if (fl[3] == strlen(MWP_ENDPOINT_VIA) && memcmp(f[3], MWP_ENDPOINT_VIA, fl[3]) == 0) {
        if (nf != 5 || number(f[4], fl[4], 0, size - 1, &via) != 0 || via == rank)
            return failf(err, errlen, "a via endpoint needs its leader's RANK, another rank below "
                         "SIZE %ld", size);
        ep->transport = MWC_VIA;
        ep->via = (int)via;
    } else {
        return failf(err, errlen, "unknown transport \"%.*s\" (tcp, mpi, node or via)",
                     (int)fl[3], f[3]);
    }
    describe(ep);
    return 0;
}

int mwc_endpoint_parse_url(const char *url, mwc_endpoint *ep, char *err, size_t errlen)
{
    memset(ep, 0, sizeof *ep);
    if (strncmp(url, "tcp://", 6) != 0)
        return failf(err, errlen, "\"%s\" is neither tcp://HOST:PORT/TOKEN nor an endpoint line", url);
    const char *h = url + 6, *he, *p;
    if (*h == '[') { /* [IPv6]:PORT */
        he = strchr(h, ']');
        if (!he || he[1] != ':')
            return failf(err, errlen, "\"%s\": an IPv6 HOST is written [ADDRESS]:PORT", url);
        h++;
        p = he + 2;
    } else {
        he = strchr(h, ':');
        if (!he)
            return failf(err, errlen, "\"%s\": no :PORT after the host", url);
        p = he + 1;
    }
    const char *slash = strchr(p, '/');
    long port;
    if (he == h || he - h > 255)
        return failf(err, errlen, "\"%s\": empty or overlong HOST", url);
    if (!slash || number(p, (size_t)(slash - p), 1, 65535, &port) != 0)
        return failf(err, errlen, "\"%s\": PORT must be a number followed by /TOKEN", url);
    if (!token_ok(slash + 1, strlen(slash + 1)))
        return failf(err, errlen, "\"%s\": TOKEN is not 32 lowercase hexadecimal digits", url);
    ep->rank = -1;
    ep->size = -1;
    ep->transport = MWC_TCP;
    ep->host = mwc_strndup(h, (size_t)(he - h));
    snprintf(ep->port, sizeof ep->port, "%ld", port);
    memcpy(ep->token, slash + 1, MWP_TOKEN_HEX);
    describe(ep);
    return 0;
}

int mwc_endpoints_add(mwc_endpoints *l, mwc_endpoint *ep, char *err, size_t errlen)
{
    if (ep->size >= 0) {
        if (l->size >= 0 && ep->size != l->size) {
            int size = ep->size;
            endpoint_free(ep);
            return failf(err, errlen, "SIZE %d differs from the %d of the lines before", size,
                         l->size);
        }
        for (size_t i = 0; i < l->n; i++)
            if (l->v[i].rank == ep->rank) {
                int r = ep->rank;
                endpoint_free(ep);
                return failf(err, errlen, "a second endpoint for rank %d", r);
            }
        l->size = ep->size;
    }
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 8;
        l->v = mwc_realloc(l->v, l->cap * sizeof *l->v);
    }
    l->v[l->n++] = *ep;
    memset(ep, 0, sizeof *ep);
    return 0;
}

int mwc_endpoints_complete(const mwc_endpoints *l)
{
    return l->size > 0 && l->n == (size_t)l->size;
}

int mwc_endpoints_from_text(const char *text, size_t n, const char *name, mwc_endpoints *l,
                            char *err, size_t errlen)
{
    mwc_endpoints_free(l);
    size_t i = 0;
    unsigned long line = 0;
    while (i < n) {
        const char *nl = memchr(text + i, '\n', n - i);
        line++;
        if (!nl || memchr(text + i, '\0', (size_t)(nl - (text + i))))
            return 0; /* unfinished, or a rank's block not written yet */
        size_t len = (size_t)(nl - (text + i));
        char *s = mwc_strndup(text + i, len);
        i += len + 1;
        size_t k = len;
        while (k > 0 && (s[k - 1] == ' ' || s[k - 1] == '\r'))
            s[--k] = '\0';
        if (k == 0) { /* blank lines are harmless */
            free(s);
            continue;
        }
        mwc_endpoint ep;
        char why[200];
        int rc = mwc_endpoint_parse_line(s, &ep, why, sizeof why);
        free(s);
        if (rc == 0 && mwc_endpoints_complete(l)) {
            free(ep.host), free(ep.port_name), free(ep.desc);
            return failf(err, errlen, "%s:%lu: more endpoint lines than SIZE %d", name, line, l->size);
        }
        if (rc == 0)
            rc = mwc_endpoints_add(l, &ep, why, sizeof why);
        if (rc != 0)
            return failf(err, errlen, "%s:%lu: %s", name, line, why);
    }
    return mwc_endpoints_complete(l) ? 1 : 0;
}

/* A port file has one line of at most a few hundred bytes per rank: a file
 * (or a device: -f /dev/zero) beyond these bounds is not one. */
#define MAX_FILE (64u << 20)
#define MAX_FIRST_LINE 4096

/* The file's contents; -1 with errno (EFBIG or EINVAL: not a port file). */
static int read_all(const char *path, char **text, size_t *n)
{
    int fd = open(path, O_RDONLY | O_NONBLOCK);
    if (fd < 0)
        return -1;
    size_t cap = 4096, len = 0;
    char *buf = mwc_malloc(cap);
    int bad = 0;
    for (;;) {
        if (len == cap) {
            cap *= 2;
            buf = mwc_realloc(buf, cap);
        }
        ssize_t k = read(fd, buf + len, cap - len);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            break;
        len += (size_t)k;
        if (len > MAX_FILE)
            bad = EFBIG;
        else if (len > MAX_FIRST_LINE && memchr(buf, '\n', MAX_FIRST_LINE) == NULL)
            bad = EINVAL;
        if (bad)
            break;
    }
    close(fd);
    if (bad) {
        free(buf);
        errno = bad;
        return -1;
    }
    *text = buf;
    *n = len;
    return 0;
}

int mwc_endpoints_from_file(const char *path, double wait_s, int quiet, mwc_endpoints *l)
{
    double start = mwc_now(), next_note = start + 2;
    char *prev = NULL;
    size_t prev_n = 0;
    char err[400] = "";
    int rc;
    for (;;) {
        char *text = NULL;
        size_t n = 0;
        int exists = read_all(path, &text, &n) == 0;
        if (!exists && (errno == EFBIG || errno == EINVAL)) {
            char shown[512];
            snprintf(shown, sizeof shown, "%s", path);
            fprintf(stderr, "mpiwatch: %s is not a port file: %s\n", mwc_printable(shown),
                    errno == EFBIG ? "larger than 64 MiB" : "no line ends within 4096 bytes");
            free(prev);
            return -1;
        }
        if (!exists && errno != ENOENT) {
            fprintf(stderr, "mpiwatch: %s: %s\n", path, strerror(errno));
            free(prev);
            return -1;
        }
        rc = exists ? mwc_endpoints_from_text(text, n, path, l, err, sizeof err) : 0;
        /* A bad line counts only if the file did not change since the last
         * look: otherwise a rank may still be writing it. */
        int stable = exists && prev && prev_n == n && memcmp(prev, text, n) == 0;
        free(prev);
        prev = text;
        prev_n = n;
        if (rc == 1 || (rc < 0 && stable))
            break;
        double now = mwc_now();
        if (now - start >= wait_s) {
            if (rc < 0)
                break;
            if (!exists)
                fprintf(stderr, "mpiwatch: %s does not exist after %g s (--wait)\n", path, wait_s);
            else
                fprintf(stderr, "mpiwatch: %s holds %zu complete endpoint line(s) of %d after %g s (--wait)\n",
                        path, l->n, l->size, wait_s);
            free(prev);
            return -1;
        }
        if (!quiet && now >= next_note) {
            if (!exists)
                fprintf(stderr, "mpiwatch: waiting for %s to appear (%.0f s left)\n", path,
                        wait_s - (now - start));
            else
                fprintf(stderr, "mpiwatch: waiting for %s: %zu of %s endpoint lines (%.0f s left)\n",
                        path, l->n, l->size > 0 ? "SIZE" : "the", wait_s - (now - start));
            next_note = now + 5;
        }
        mwc_sleep(0.2);
    }
    free(prev);
    if (rc < 0) {
        fprintf(stderr, "mpiwatch: %s\n", err);
        return -1;
    }
    return 0;
}

void mwc_linereader_init(mwc_linereader *r, int fd, FILE *forward)
{
    memset(r, 0, sizeof *r);
    r->fd = fd;
    r->forward = forward;
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
}

void mwc_linereader_free(mwc_linereader *r)
{
    free(r->buf);
    r->buf = NULL;
}

/* One complete line (without its newline). */
static int take_line(mwc_linereader *r, const char *s, size_t n, mwc_endpoints *l, char *err,
                     size_t errlen)
{
    r->line++;
    size_t plen = strlen(PREFIX);
    if (n < plen || memcmp(s, PREFIX, plen) != 0) {
        if (r->forward) {
            fwrite(s, 1, n, r->forward);
            putc('\n', r->forward);
        }
        return 0;
    }
    if (mwc_endpoints_complete(l))
        return 0; /* a later job's, or a repeat: not ours to judge */
    char *line = mwc_strndup(s, n);
    mwc_endpoint ep;
    char why[200];
    int rc = mwc_endpoint_parse_line(line, &ep, why, sizeof why);
    free(line);
    if (rc == 0)
        rc = mwc_endpoints_add(l, &ep, why, sizeof why);
    if (rc != 0)
        return failf(err, errlen, "<stdin>:%lu: %s", r->line, why);
    return 0;
}

int mwc_linereader_pump(mwc_linereader *r, mwc_endpoints *l, char *err, size_t errlen)
{
    while (!r->eof) {
        if (r->cap - r->len < 4096) {
            r->cap = r->cap ? 2 * r->cap : 65536;
            r->buf = mwc_realloc(r->buf, r->cap);
        }
        ssize_t k = read(r->fd, r->buf + r->len, r->cap - r->len);
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0)
            break; /* EAGAIN: nothing more for now */
        if (k == 0)
            r->eof = 1;
        r->len += (size_t)k;
        size_t start = 0;
        for (;;) {
            char *nl = memchr(r->buf + start, '\n', r->len - start);
            /* A very long line without a newline is passed on in pieces, so
             * the buffer stays bounded. */
            if (!nl && (r->eof || r->len - start >= 1 << 20) && r->len > start)
                nl = r->buf + r->len;
            if (!nl)
                break;
            int rc = take_line(r, r->buf + start, (size_t)(nl - (r->buf + start)), l, err, errlen);
            start = (size_t)(nl - r->buf) + (nl < r->buf + r->len);
            if (rc != 0)
                return -1;
        }
        memmove(r->buf, r->buf + start, r->len - start);
        r->len -= start;
    }
    if (r->forward)
        fflush(r->forward);
    return 0;
}

int mwc_endpoints_from_stdin(mwc_linereader *r, double wait_s, int quiet, mwc_endpoints *l)
{
    double start = mwc_now(), next_note = start + 2;
    char err[400];
    while (!mwc_endpoints_complete(l)) {
        if (mwc_linereader_pump(r, l, err, sizeof err) != 0) {
            fprintf(stderr, "mpiwatch: %s\n", err);
            return -1;
        }
        if (mwc_endpoints_complete(l))
            break;
        double now = mwc_now();
        if (r->eof || now - start >= wait_s) {
            if (l->n == 0)
                fprintf(stderr, "mpiwatch: no endpoint line on standard input %s\n",
                        r->eof ? "before it ended" : "within --wait");
            else
                fprintf(stderr, "mpiwatch: %zu of %d endpoint lines on standard input %s\n",
                        l->n, l->size, r->eof ? "before it ended" : "within --wait");
            return -1;
        }
        if (!quiet && now >= next_note) {
            fprintf(stderr, "mpiwatch: waiting for endpoint lines on standard input: %zu so far (%.0f s left)\n",
                    l->n, wait_s - (now - start));
            next_note = now + 5;
        }
        struct pollfd p = { r->fd, POLLIN, 0 };
        poll(&p, 1, 200);
    }
    return 0;
}
