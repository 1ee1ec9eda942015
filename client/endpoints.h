/* Where the ranks are: endpoint lines (docs/protocol.md) from a port file,
 * from standard input, or from the command line. */
#ifndef MWC_ENDPOINTS_H
#define MWC_ENDPOINTS_H

#include <stddef.h>
#include <stdio.h>

/* MWC_VIA: a rank watched through its node leader's connection (no endpoint of its own). */
enum { MWC_TCP, MWC_MPI, MWC_VIA };

typedef struct {
    int rank, size;      /* -1 for a tcp:// URL, which does not say */
    int transport;
    char *host;          /* tcp */
    char port[6];        /* tcp, as text for getaddrinfo */
    char token[33];
    char *port_name;     /* mpi: the rest of the line */
    int node;            /* tcp: a node leader, whose stream is its node's ranks' in FORWARD frames */
    int via;             /* MWC_VIA: the leader's rank */
    char *desc;          /* "tcp://HOST:PORT", "mpi:PORT_NAME", "node tcp://HOST:PORT" or
                            "via rank L", for messages */
} mwc_endpoint;

typedef struct {
    size_t n, cap;
    mwc_endpoint *v;
    int size;            /* SIZE of the lines read; -1 before the first */
} mwc_endpoints;

void mwc_endpoints_init(mwc_endpoints *l);
void mwc_endpoints_free(mwc_endpoints *l);

/* Parse one endpoint line (trailing spaces and CR already removed or not).
 * 0 ok; -1 with err. */
int mwc_endpoint_parse_line(const char *line, mwc_endpoint *ep, char *err, size_t errlen);
/* tcp://HOST:PORT/TOKEN (HOST may be [IPv6]). */
int mwc_endpoint_parse_url(const char *url, mwc_endpoint *ep, char *err, size_t errlen);
/* Add to the list: same SIZE as the others, rank not seen before. Takes
 * ownership of ep's strings either way. */
int mwc_endpoints_add(mwc_endpoints *l, mwc_endpoint *ep, char *err, size_t errlen);

/* Parse a port file's content. 1: complete (SIZE lines); 0: not yet (a line
 * unfinished or missing, a hole of NULs from a rank yet to write); -1: a bad
 * line (err = "NAME:LINE: why"). l is reset first. */
int mwc_endpoints_from_text(const char *text, size_t n, const char *name, mwc_endpoints *l,
                            char *err, size_t errlen);

/* Wait up to wait_s seconds for a port file to be complete. A bad line is
 * reported only once the file stops changing (a rank may be mid-write).
 * 0 ok; -1 with the error printed on stderr. */
int mwc_endpoints_from_file(const char *path, double wait_s, int quiet, mwc_endpoints *l);

/* Standard input: endpoint lines among the job's other output. Lines that do
 * not start with "mpiwatch-endpoint " are copied to `forward` (the job's
 * output is not lost); the reader keeps draining so the job never blocks on
 * a full pipe. */
typedef struct {
    int fd;
    char *buf;
    size_t len, cap;
    unsigned long line;
    int eof;
    FILE *forward;
} mwc_linereader;

void mwc_linereader_init(mwc_linereader *r, int fd, FILE *forward);
void mwc_linereader_free(mwc_linereader *r);
/* Read what is available (fd is non-blocking); endpoint lines go to l while
 * l is incomplete, later ones are ignored. 0 ok, -1 a bad endpoint line (err). */
int mwc_linereader_pump(mwc_linereader *r, mwc_endpoints *l, char *err, size_t errlen);
int mwc_endpoints_complete(const mwc_endpoints *l);
/* Wait for SIZE endpoint lines on the reader's fd. 0 ok, -1 printed. */
int mwc_endpoints_from_stdin(mwc_linereader *r, double wait_s, int quiet, mwc_endpoints *l);

#endif
