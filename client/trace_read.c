/* The trace files' reader (client/trace_read.h). */
#include "trace_read.h"
#include "trace_requests.h"

#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "mpiwatch_trace.h"

typedef struct {
    const unsigned char *p, *end;
    int bad;                   /* a read ran past the end */
} cursor;

static uint64_t get_varint(cursor *c)
{
    uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
        if (c->p >= c->end) {
            c->bad = 1;
            return 0;
        }
        unsigned char b = *c->p++;
        v |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80))
            return v;
    }
    c->bad = 1;   /* more than ten bytes: not a varint of ours */
    return 0;
}

static int64_t unzigzag(uint64_t v)
{
    return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}

static int64_t get_signed(cursor *c)
{
    return unzigzag(get_varint(c));
}

/* A value that must fit an int (peer, tag, comm). */
static int get_int(cursor *c)
{
    int64_t v = get_signed(c);
    if (v < -2147483648LL || v > 2147483647LL)
        c->bad = 1;
    return (int)v;
}

static void say(char *err, size_t size, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, size, fmt, ap);
    va_end(ap);
}

static int add_call(mwc_trace_rank *r, const mwc_trace_call *call)
{
    if (r->ncalls == r->cap) {
        size_t cap = r->cap ? r->cap * 2 : 4096;
        mwc_trace_call *more = realloc(r->calls, cap * sizeof *more);
        if (more == NULL)
            return -1;
        r->calls = more;
        r->cap = cap;
    }
    r->calls[r->ncalls++] = *call;
    return 0;
}

static int add_done(mwc_trace_rank *r, const mwc_trace_done *d)
{
    if (r->ndone == r->done_cap) {
        size_t cap = r->done_cap ? r->done_cap * 2 : 1024;
        mwc_trace_done *more = realloc(r->done, cap * sizeof *more);
        if (more == NULL)
            return -1;
        r->done = more;
        r->done_cap = cap;
    }
    r->done[r->ndone++] = *d;
    return 0;
}

static int read_header(cursor *c, mwc_trace_rank *r, char *err, size_t errsize)
{
    if (c->end - c->p < MWT_MAGIC_SIZE + 4 || memcmp(c->p, MWT_MAGIC, MWT_MAGIC_SIZE) != 0) {
        say(err, errsize, "%s: not an mpiwatch trace file (no MWTRACE magic)", r->path);
        return -1;
    }
    c->p += MWT_MAGIC_SIZE;
    uint32_t version = (uint32_t)c->p[0] | (uint32_t)c->p[1] << 8 | (uint32_t)c->p[2] << 16 |
                       (uint32_t)c->p[3] << 24;
    c->p += 4;
    if (version != MWT_VERSION) {
        say(err, errsize, "%s: trace format version %u, this mpiwatch reads version %u", r->path,
            version, MWT_VERSION);
        return -1;
    }
    uint64_t rank = get_varint(c), ranks = get_varint(c);
    if (c->end - c->p < 8) {
        c->bad = 1;
    } else {
        uint64_t bits = 0;
        for (int i = 0; i < 8; i++)
            bits |= (uint64_t)c->p[i] << (8 * i);
        memcpy(&r->per_second, &bits, sizeof bits);
        c->p += 8;
    }
    r->origin = get_varint(c);
    r->wall_ns = get_varint(c);
    if (c->bad || ranks == 0 || ranks > 1u << 30 || rank >= ranks ||
        !(r->per_second > 0 && r->per_second < 1e15)) {
        say(err, errsize, "%s: the header is cut short or damaged", r->path);
        return -1;
    }
    r->rank = (int)rank;
    r->ranks = (int)ranks;
    return 0;
}

/* Function ids are below this (a build wraps under a thousand functions). */
#define MAX_FUNCTIONS (1 << 16)
#define MAX_REGIONS (1 << 16)

/* One MWT_FUNCTIONS block, after its marker: 0; 1 when it is cut short (the
 * end of a killed job's file); -1 with err set when it is damaged. */
/* An MWT_FUNCTIONS or MWT_REGIONS block, after its marker, into *names
 * (*count of them, by id, at most max; what: "function", "region"): 0; 1
 * when it is cut short; -1 with err set when it is damaged. */
static int read_names(cursor *c, mwc_trace_rank *r, char ***names_, int *count, uint64_t max,
                      const char *what, char *err, size_t errsize, long offset)
{
    uint64_t n = get_varint(c);
    for (uint64_t k = 0; k < n && !c->bad; k++) {
        uint64_t id = get_varint(c), len = get_varint(c);
        if (c->bad || (uint64_t)(c->end - c->p) < len)
            return 1;
        if (id >= max || len == 0 || len > 256) {
            say(err, errsize, "%s: damaged %s names at offset %ld", r->path, what, offset);
            return -1;
        }
        if (id >= (uint64_t)*count) {
            char **more = realloc(*names_, (size_t)(id + 1) * sizeof *more);
            if (more == NULL)
                return say(err, errsize, "%s: out of memory", r->path), -1;
            memset(more + *count, 0, (size_t)(id + 1 - (uint64_t)*count) * sizeof *more);
            *names_ = more;
            *count = (int)id + 1;
        }
        char **names = *names_;
        char *name = strndup((const char *)c->p, (size_t)len);
        if (name == NULL)
            return say(err, errsize, "%s: out of memory", r->path), -1;
        c->p += len;
        if (names[id] != NULL && strcmp(names[id], name) != 0) {
            say(err, errsize, "%s: %s %llu named both %s and %s (offset %ld)", r->path, what,
                (unsigned long long)id, names[id], name, offset);
            free(name);
            return -1;
        }
        free(names[id]);
        names[id] = name;
    }
    return c->bad ? 1 : 0;
}

/* One MWT_COMM block, after its marker: 0; 1 when it is cut short; -1 with
 * err set when it is damaged. */
static int read_comm(cursor *c, mwc_trace_rank *r, char *err, size_t errsize, long offset)
{
    mwc_trace_comm m = {0};
    m.handle = get_int(c);
    m.t = get_varint(c);
    m.before = get_varint(c);
    uint64_t nruns = get_varint(c);
    if (c->bad)
        return 1;
    if (nruns == 0 || nruns > (uint64_t)r->ranks)
        goto damaged;
    int64_t end = 0;
    for (uint64_t k = 0; k < nruns; k++) {
        int64_t first = end + get_signed(c);
        uint64_t length = get_varint(c);
        if (c->bad) {
            free(m.members);
            return 1;
        }
        if (first < 0 || length == 0 || length > (uint64_t)r->ranks - (uint64_t)m.size ||
            (uint64_t)first + length > (uint64_t)r->ranks)
            goto damaged;
        int *more = realloc(m.members, (size_t)(m.size + (int)length) * sizeof *more);
        if (more == NULL) {
            free(m.members);
            return say(err, errsize, "%s: out of memory", r->path), -1;
        }
        m.members = more;
        for (uint64_t i = 0; i < length; i++)
            m.members[m.size++] = (int)(first + (int64_t)i);
        end = first + (int64_t)length;
    }
    mwc_trace_comm *more = realloc(r->comms, (r->ncomms + 1) * sizeof *more);
    if (more == NULL) {
        free(m.members);
        return say(err, errsize, "%s: out of memory", r->path), -1;
    }
    r->comms = more;
    r->comms[r->ncomms++] = m;
    return 0;
damaged:
    free(m.members);
    say(err, errsize, "%s: a damaged communicator at offset %ld", r->path, offset);
    return -1;
}

/* A communicator (mpiwatch_trace.h): none, or relative to the chunk's
 * previous one. */
static int64_t get_relative(cursor *c, int64_t none, int64_t *last)
{
    uint64_t v = get_varint(c);
    if (v == 0)
        return none;
    *last += unzigzag(v - 1);
    return *last;
}

/* One chunk's records; 0, or -1 with err set for a damaged chunk. */
static int read_records(cursor *c, mwc_trace_rank *r, uint32_t thread, uint64_t first_t,
                        char *err, size_t errsize, long offset)
{
    uint64_t last_t = first_t, last_site = 0;
    int64_t last_comm = 0;
    mwt_recent recent = {{0}, 0};
    mwc_trace_call *last = NULL;   /* the call the kinds 4, 5, 6 and 8 add to */
    while (c->p < c->end) {
        int kind = *c->p++;
        if (kind == MWT_DROPPED) {
            uint64_t n = get_varint(c);
            if (!c->bad)
                r->dropped += n;
            continue;
        }
        if (kind == MWT_REQUEST || kind == MWT_ROOT || kind == MWT_DONE ||
            kind == MWT_DONE_BARE) {
            mwc_trace_done d = {0, -1, -1, 0};
            uint64_t request = 0;
            int root = -1;
            if (kind == MWT_REQUEST) {
                uint64_t code = get_varint(c);
                request = code ? mwt_recent_handle(&recent, code) : 0;
            } else if (kind == MWT_ROOT) {
                root = get_int(c);
            } else {
                uint64_t code = get_varint(c);
                d.request = code ? mwt_recent_handle(&recent, code) : 0;
                if (code != 0 && d.request == 0)
                    c->bad = 1;
                if (kind == MWT_DONE) {
                    d.source = get_int(c);
                    d.tag = get_int(c);
                    d.bytes = get_varint(c);
                }
            }
            if (c->bad || last == NULL || (kind == MWT_REQUEST && request == 0)) {
                say(err, errsize, "%s: a damaged record in the chunk at offset %ld", r->path,
                    offset);
                return -1;
            }
            if (kind == MWT_REQUEST) {
                last->request = request;
            } else if (kind == MWT_ROOT) {
                last->root = root;
            } else {
                if (last->ndone == 0)
                    last->first_done = r->ndone;
                last->ndone++;
                if (add_done(r, &d) != 0)
                    return say(err, errsize, "%s: out of memory", r->path), -1;
            }
            continue;
        }
        if (kind == MWT_MARK) {
            mwc_trace_mark m = {0, thread, (int)get_varint(c), 0};
            uint64_t value = get_varint(c);
            last_t += get_varint(c);
            m.t = last_t;
            m.value = (int)value;
            if (c->bad || value > INT32_MAX || m.what < MWT_MARK_BEGIN || m.what > MWT_MARK_PCONTROL ||
                (m.what != MWT_MARK_PCONTROL &&
                 (value >= (uint64_t)r->nregions || r->regions[value] == NULL))) {
                say(err, errsize, "%s: a damaged mark in the chunk at offset %ld", r->path, offset);
                return -1;
            }
            if (r->nmarks == r->marks_cap) {
                size_t cap = r->marks_cap ? 2 * r->marks_cap : 64;
                mwc_trace_mark *more = realloc(r->marks, cap * sizeof *more);
                if (more == NULL)
                    return say(err, errsize, "%s: out of memory", r->path), -1;
                r->marks = more;
                r->marks_cap = cap;
            }
            r->marks[r->nmarks++] = m;
            continue;
        }
        if (kind != MWT_CALL && kind != MWT_XFER && kind != MWT_POLLS) {
            say(err, errsize, "%s: unknown record kind %d in the chunk at offset %ld", r->path,
                kind, offset);
            return -1;
        }
        mwc_trace_call call = {0};
        uint64_t fn = get_varint(c);
        last_site += (uint64_t)get_signed(c);
        last_t += get_varint(c);
        uint64_t dur = get_varint(c);
        call.thread = thread;
        call.site = last_site;
        call.t_in = last_t;
        call.t_out = last_t + dur;
        call.traffic = kind == MWT_XFER;
        call.peer = call.tag = call.comm = call.root = -1;
        call.count = 1;
        if (call.traffic) {
            call.peer = get_int(c);
            call.tag = get_int(c);
            int64_t comm = get_relative(c, -1, &last_comm);
            if (comm < -2147483648LL || comm > 2147483647LL)
                c->bad = 1;
            call.comm = (int)comm;
            call.sent = get_varint(c);
            call.recv = get_varint(c);
        }
        if (kind == MWT_POLLS)
            call.count = get_varint(c);
        if (c->bad || fn >= (uint64_t)r->nnames || r->names[fn] == NULL ||
            call.t_out < call.t_in || call.count == 0) {
            say(err, errsize, "%s: a damaged record in the chunk at offset %ld", r->path, offset);
            return -1;
        }
        call.fn = (int)fn;
        if (add_call(r, &call) != 0)
            return say(err, errsize, "%s: out of memory", r->path), -1;
        last = &r->calls[r->ncalls - 1];
    }
    return 0;
}

static unsigned char *slurp(const char *path, size_t *size, char *err, size_t errsize)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        say(err, errsize, "%s: %s", path, strerror(errno));
        return NULL;
    }
    size_t cap = 1 << 20, n = 0;
    unsigned char *buf = malloc(cap);
    while (buf != NULL) {
        n += fread(buf + n, 1, cap - n, f);
        if (n < cap)
            break;
        unsigned char *more = realloc(buf, cap *= 2);
        if (more == NULL)
            free(buf);
        buf = more;
    }
    int failed = ferror(f);
    fclose(f);
    if (buf == NULL || failed) {
        free(buf);
        say(err, errsize, "%s: %s", path, buf == NULL ? "out of memory" : "read error");
        return NULL;
    }
    *size = n;
    return buf;
}

int mwc_trace_read_file(const char *path, mwc_trace_rank *r, char *err, size_t errsize)
{
    memset(r, 0, sizeof *r);
    r->path = strdup(path);
    size_t size = 0;
    unsigned char *buf = r->path ? slurp(path, &size, err, errsize) : NULL;
    if (buf == NULL)
        return -1;
    cursor c = {buf, buf + size, 0};
    if (read_header(&c, r, err, errsize) != 0) {
        free(buf);
        return -1;
    }
    err[0] = '\0';
    while (c.p < c.end) {
        long offset = (long)(c.p - buf);
        if (*c.p == MWT_SYNC) {
            c.p++;
            mwt_sync_point p = {get_varint(&c), get_varint(&c)};
            if (c.bad) {
                r->truncated = 1;
                break;
            }
            r->sync[r->nsync < 2 ? r->nsync++ : 1] = p;
            continue;
        }
        if (*c.p == MWT_LIMITS && r->limits == NULL) {
            c.p++;
            uint64_t length = get_varint(&c);
            if (c.bad || length > (uint64_t)(c.end - c.p)) {
                r->truncated = 1;
                break;
            }
            if ((r->limits = strndup((const char *)c.p, (size_t)length)) == NULL) {
                say(err, errsize, "%s: out of memory", path);
                break;
            }
            c.p += length;
            continue;
        }
        if (*c.p == MWT_FUNCTIONS || *c.p == MWT_COMM || *c.p == MWT_REGIONS) {
            int block = *c.p++;
            int rc = block == MWT_COMM ? read_comm(&c, r, err, errsize, offset)
                     : block == MWT_REGIONS
                         ? read_names(&c, r, &r->regions, &r->nregions, MAX_REGIONS, "region",
                                      err, errsize, offset)
                         : read_names(&c, r, &r->names, &r->nnames, MAX_FUNCTIONS, "function",
                                      err, errsize, offset);
            if (rc > 0)
                r->truncated = 1;
            if (rc != 0)
                break;
            continue;
        }
        if (*c.p++ != MWT_CHUNK) {
            say(err, errsize, "%s: no chunk at offset %ld; the rest of the file is skipped",
                path, offset);
            break;
        }
        uint64_t thread = get_varint(&c), length = get_varint(&c), first_t = get_varint(&c);
        if (c.bad || length > (uint64_t)(c.end - c.p)) {
            r->truncated = 1;   /* the writer was cut off mid-chunk */
            break;
        }
        cursor records = {c.p, c.p + length, 0};
        c.p += length;
        if (thread > UINT32_MAX ||
            read_records(&records, r, (uint32_t)thread, first_t, err, errsize, offset) != 0)
            break;
    }
    free(buf);
    if (mwc_trace_match_requests(r) != 0 && err[0] == '\0')
        say(err, errsize, "%s: out of memory matching requests", path);
    return 0;
}

void mwc_trace_rank_free(mwc_trace_rank *r)
{
    for (int i = 0; i < r->nnames; i++)
        free(r->names[i]);
    free(r->names);
    for (int i = 0; i < r->nregions; i++)
        free(r->regions[i]);
    free(r->regions);
    free(r->marks);
    free(r->calls);
    free(r->done);
    free(r->path);
    free(r->limits);
    for (size_t i = 0; i < r->ncomms; i++)
        free(r->comms[i].members);
    free(r->comms);
    memset(r, 0, sizeof *r);
}

int mwc_trace_completions(const mwc_trace_rank *r, size_t **completer, size_t **done_of)
{
    size_t n = r->ncalls ? r->ncalls : 1;
    uint64_t most = 0;
    *completer = malloc(n * sizeof **completer);
    *done_of = malloc(n * sizeof **done_of);
    /* Request ids are numbered from 1 on each rank, so they stay below the
     * number of calls (but for dropped calls); larger ones (a damaged file)
     * are not looked up. */
    uint64_t bound = 4 * (uint64_t)r->ncalls + 1024;
    for (size_t i = 0; i < r->ncalls; i++)
        if (r->calls[i].request > most && r->calls[i].request <= bound)
            most = r->calls[i].request;
    size_t *start = malloc((size_t)(most + 1) * sizeof *start);   /* the call that started each */
    if (*completer == NULL || *done_of == NULL || start == NULL) {
        free(*completer);
        free(*done_of);
        free(start);
        *completer = *done_of = NULL;
        return -1;
    }
    for (uint64_t id = 0; id <= most; id++)
        start[id] = SIZE_MAX;
    for (size_t i = 0; i < r->ncalls; i++) {
        (*completer)[i] = (*done_of)[i] = SIZE_MAX;
        if (r->calls[i].request != 0 && r->calls[i].request <= most)
            start[r->calls[i].request] = i;
    }
    for (size_t i = 0; i < r->ncalls; i++)
        for (uint32_t d = 0; d < r->calls[i].ndone; d++) {
            size_t at = r->calls[i].first_done + d;
            uint64_t id = r->done[at].request;
            if (id != 0 && id <= most && start[id] != SIZE_MAX &&
                (*completer)[start[id]] == SIZE_MAX) {
                (*completer)[start[id]] = i;
                (*done_of)[start[id]] = at;
            }
        }
    free(start);
    return 0;
}

const mwc_trace_done *mwc_trace_own_receive(const mwc_trace_rank *r, const mwc_trace_call *c)
{
    for (uint32_t d = 0; d < c->ndone; d++)
        if (r->done[c->first_done + d].request == 0)
            return &r->done[c->first_done + d];
    return NULL;
}

/* name ends in ".trace.N": the length of its prefix, or 0. */
static size_t trace_prefix(const char *name)
{
    const char *dot = strrchr(name, '.');
    if (dot == NULL || dot[1] == '\0' || strspn(dot + 1, "0123456789") != strlen(dot + 1))
        return 0;
    size_t n = (size_t)(dot - name);
    return n > 6 && strncmp(dot - 6, ".trace", 6) == 0 ? n - 6 : 0;
}

static int add_path(char ***paths, int *n, const char *dir, const char *name)
{
    char **more = realloc(*paths, (size_t)(*n + 1) * sizeof **paths);
    if (more == NULL)
        return -1;
    *paths = more;
    size_t len = strlen(dir) + strlen(name) + 2;
    if ((more[*n] = malloc(len)) == NULL)
        return -1;
    snprintf(more[*n], len, "%s/%s", dir, name);
    (*n)++;
    return 0;
}

int mwc_trace_find(const char *spec, char ***paths, char *err, size_t errsize)
{
    struct stat st;
    char dir[4096], want[1024] = "";
    *paths = NULL;
    if (stat(spec, &st) == 0 && S_ISDIR(st.st_mode)) {
        snprintf(dir, sizeof dir, "%s", spec);
    } else {
        const char *slash = strrchr(spec, '/');
        snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - spec) : 1, slash ? spec : ".");
        snprintf(want, sizeof want, "%s", slash ? slash + 1 : spec);
    }
    DIR *d = opendir(dir);
    if (d == NULL) {
        say(err, errsize, "--trace %s: %s", spec, strerror(errno));
        return -1;
    }
    int n = 0, runs = 0;
    char first[1024] = "", other[1024] = "";
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        size_t p = trace_prefix(e->d_name);
        if (p == 0 || p >= sizeof first)
            continue;
        if (*want ? strlen(want) != p || strncmp(e->d_name, want, p) != 0 : 0)
            continue;
        if (runs == 0) {
            snprintf(first, sizeof first, "%.*s", (int)p, e->d_name);
            runs = 1;
        } else if (strlen(first) != p || strncmp(first, e->d_name, p) != 0) {
            snprintf(other, sizeof other, "%.*s", (int)p, e->d_name);
            runs = 2;
            continue;
        }
        if (add_path(paths, &n, dir, e->d_name) != 0) {
            closedir(d);
            say(err, errsize, "--trace %s: out of memory", spec);
            return -1;
        }
    }
    closedir(d);
    if (runs == 2) {
        for (int i = 0; i < n; i++)
            free((*paths)[i]);
        free(*paths);
        *paths = NULL;
        say(err, errsize, "--trace %s holds the traces of several runs (%s and %s at least): "
            "name one, as --trace %s/%s", spec, first, other, dir, first);
        return -1;
    }
    if (n == 0) {
        say(err, errsize, "--trace %s: no trace files (NAME.trace.RANK) there", spec);
        return -1;
    }
    return n;
}
