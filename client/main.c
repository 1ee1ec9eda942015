/* mpiwatch: the live monitor's client (docs/client.md, docs/protocol.md).
 * Reads where the ranks are, attaches to each, and shows what they send,
 * as a live table or JSON lines; or replays a recording the same way.
 * Exit status: 0 every rank said goodbye, 1 some rank was lost or never
 * reached (or an input was unreadable), 2 usage error. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "conn_mpi.h"
#include "mpiwatch_protocol.h"
#include "conn_tcp.h"
#include "endpoints.h"
#include "html_report.h"
#include "dump_request.h"
#include "merge.h"
#include "options.h"
#include "priority.h"
#include "python_mode.h"
#include "record.h"
#include "session.h"
#include "trace_otf2.h"
#include "timeline.h"
#include "trace_perfetto.h"
#include "wait_report.h"
#include "matrix_file.h"
#include "util.h"
#include "view_json.h"
#include "view_tty.h"
#include "view_web.h"
#include "web_state.h"
#include "web_server.h"
#include "mpiwatch_viewer.h"

static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
    (void)sig;
    interrupted = 1;
}

/* SIGINT/SIGTERM end the watch with a final summary; no SA_RESTART, so a
 * waiting poll() returns at once. A rank closing on us must not kill us. */
static void signals(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
}

typedef struct {
    mwc_json_state json;
    mwc_tty_state tty;
    mwc_web_view_state web;
    mwc_view view;
    int is_tty;
} views;

static void make_view(views *v, const mwc_options *o, mwc_web *server)
{
    memset(v, 0, sizeof *v);
    if (o->html) {
        /* --replay --html: no view; the page is written at the end. */
    } else if (o->json) {
        v->json.out = stdout;
        v->json.events = o->events;
        v->json.stuck_s = o->stuck_s;
        v->view = mwc_view_json(&v->json);
    } else {
        v->view = mwc_view_tty(&v->tty, stdout);
        v->tty.stuck_s = o->stuck_s;
        v->tty.rank = o->rank;
        v->tty.matrix = o->matrix;
        v->is_tty = 1;
    }
    if (server != NULL) {
        v->web.inner = v->view;
        v->web.server = server;
        v->web.stuck_s = o->stuck_s;
        v->web.recording = o->replay != NULL;
        v->view = mwc_view_web(&v->web);
    }
}

/* --web: the server, before anything is watched; NULL with a message. */
static mwc_web *start_web(const mwc_options *o)
{
    if (mw_viewer_unavailable[0] != '\0') {
        fprintf(stderr, "mpiwatch: --web: %s\n", mw_viewer_unavailable);
        return NULL;
    }
    char err[300];
    mwc_web *w = mwc_web_start(o->web, err, sizeof err);
    if (w == NULL) {
        fprintf(stderr, "mpiwatch: %s\n", err);
        return NULL;
    }
    /* Always said, even with -q: without it a port of 0 could not be found. */
    fprintf(stderr, "mpiwatch: the live page is at %s (state: %sapi/state)\n", mwc_web_url(w),
            mwc_web_url(w));
    return w;
}

/* After the watch: the page keeps the last state until we are interrupted. */
static void linger(mwc_web *w, int quiet)
{
    if (!quiet)
        fprintf(stderr, "mpiwatch: the job is over; %s shows its last state until mpiwatch "
                        "is interrupted (Ctrl-C)\n", mwc_web_url(w));
    while (!interrupted)
        mwc_sleep(0.2);
}

static int exit_status(const mwc_session *s)
{
    mwc_summary sum = mwc_model_summary(&s->model);
    return sum.finished == s->model.n ? 0 : 1;
}

static int replay(const mwc_options *o, views *v)
{
    FILE *f = fopen(o->replay, "rb");
    if (!f) {
        perror(o->replay);
        return 1;
    }
    mwc_replay r;
    if (mwc_replay_open(&r, f, o->replay) != 0) {
        fprintf(stderr, "mpiwatch: %s\n", r.error);
        mwc_replay_close(&r);
        fclose(f);
        return 1;
    }
    mwc_session s;
    mwc_session_init(&s, r.slots, r.ranks, r.descs, v->view, NULL);
    double start = mwc_now();
    mwc_rec rec;
    int rc;
    unsigned long k = 0;
    while (!interrupted && (rc = mwc_replay_next(&r, &rec)) == 1) {
        if (o->replay_speed > 0)
            mwc_sleep(start + (double)rec.t * 1e-9 / o->replay_speed - mwc_now());
        if (rec.kind == MWC_REC_DATA) {
            mwc_session_data(&s, rec.slot, rec.data, rec.len);
        } else {
            char *why = mwc_strndup((const char *)rec.data, rec.len);
            mwc_session_closed(&s, rec.slot, why);
            free(why);
        }
        if (o->replay_speed > 0 || ++k % 4096 == 0)
            mwc_session_tick(&s);
    }
    int corrupt = !interrupted && rc < 0;
    if (corrupt)
        fprintf(stderr, "mpiwatch: %s\n", r.error);
    for (size_t i = 0; i < s.model.n; i++)
        mwc_session_closed(&s, i, interrupted ? "the client was interrupted"
                                  : corrupt ? "the recording is corrupt here"
                                  : "the recording ends here");
    if (v->is_tty)
        mwc_tty_restore(&v->tty);
    mwc_session_finish(&s);
    int status = corrupt ? 1 : exit_status(&s);
    if (o->html) {
        size_t len = 0;
        char *state = mwc_web_state(&s.model, mwc_now(), mwc_now() - s.t0, o->stuck_s, 1, &len);
        if (state == NULL) {
            fprintf(stderr, "mpiwatch: --html: out of memory\n");
            status = 1;
        } else {
            /* The page shows lost ranks; the status says whether it was written. */
            status = mwc_html_write_file(o->html, state, len, o->quiet) != 0 || corrupt;
        }
        free(state);
    }
    mwc_session_free(&s);
    mwc_replay_close(&r);
    fclose(f);
    return status;
}

/* Every rank refused: nothing listens where the port file says, so the file
 * most likely outlived its job (a job removes it at MPI_Finalize, unless it
 * was killed). Say so, with the file's age. */
static void stale_hint(const char *path)
{
    struct stat st;
    char age[64] = "";
    if (stat(path, &st) == 0) {
        double s = difftime(time(NULL), st.st_mtime);
        if (s < 120)
            snprintf(age, sizeof age, " (written %.0f s ago)", s);
        else if (s < 7200)
            snprintf(age, sizeof age, " (written %.0f minutes ago)", s / 60);
        else
            snprintf(age, sizeof age, " (written %.1f hours ago)", s / 3600);
    }
    fprintf(stderr, "mpiwatch: every rank refused the connection: the port file %s looks stale%s; "
                    "its job has probably ended or was killed\n", path, age);
}

/* Endpoints from the source the options name. 0 ok, else the exit status. */
static int read_endpoints(const mwc_options *o, mwc_endpoints *l, mwc_linereader *in)
{
    if (o->port_file)
        return mwc_endpoints_from_file(o->port_file, o->wait_s, o->quiet, l) == 0 ? 0 : 1;
    if (o->use_stdin)
        return mwc_endpoints_from_stdin(in, o->wait_s, o->quiet, l) == 0 ? 0 : 1;
    for (int i = 0; i < o->nargs; i++) {
        mwc_endpoint ep;
        char err[300];
        const char *a = o->args[i];
        int rc = strncmp(a, MWP_ENDPOINT_PREFIX, strlen(MWP_ENDPOINT_PREFIX)) == 0
                     ? mwc_endpoint_parse_line(a, &ep, err, sizeof err)
                     : mwc_endpoint_parse_url(a, &ep, err, sizeof err);
        if (rc == 0)
            rc = mwc_endpoints_add(l, &ep, err, sizeof err);
        if (rc != 0) {
            fprintf(stderr, "mpiwatch: argument %d: %s\n", i + 1, err);
            return 2;
        }
    }
    return 0;
}

/* mpiwatch --dump: every rank's partial profile, now. */
static int dump(const mwc_options *o)
{
    mwc_endpoints l;
    mwc_linereader in;
    mwc_endpoints_init(&l);
    mwc_linereader_init(&in, o->use_stdin ? STDIN_FILENO : -1, stderr);
    int rc = read_endpoints(o, &l, &in);
    if (rc == 0)
        rc = mwc_dump_request(&l, o->wait_s, o->quiet);
    mwc_endpoints_free(&l);
    mwc_linereader_free(&in);
    return rc;
}

static int watch(const mwc_options *o, views *v, int *argc, char ***argv)
{
    mwc_priority priority;
    mwc_priority_init(&priority, o->nice, o->quiet);
    mwc_endpoints l;
    mwc_linereader in;
    mwc_endpoints_init(&l);
    mwc_linereader_init(&in, o->use_stdin ? STDIN_FILENO : -1, stderr);
    int rc = read_endpoints(o, &l, &in);
    if (rc != 0 || interrupted) {
        mwc_endpoints_free(&l);
        mwc_linereader_free(&in);
        return rc ? rc : 1;
    }
    if (!o->quiet)
        fprintf(stderr, "mpiwatch: attaching to %zu rank(s)\n", l.n);
    int *ranks = mwc_calloc(l.n, sizeof *ranks);
    char **descs = mwc_calloc(l.n, sizeof *descs);
    for (size_t i = 0; i < l.n; i++) {
        ranks[i] = l.v[i].rank;
        descs[i] = l.v[i].desc;
    }
    mwc_recorder recorder, *rec = NULL;
    if (o->record) {
        if (mwc_record_open(&recorder, o->record, (uint32_t)l.n, ranks, descs) != 0)
            return 1;
        rec = &recorder;
    }
    mwc_session s;
    mwc_session_init(&s, l.n, ranks, descs, v->view, rec);
    mwc_mpi mpi;
    int status = 1;
    if (mwc_mpi_init(&mpi, &s, &l, o->wait_s, argc, argv) == 0) {
        mwc_mpi_connect(&mpi);
        mwc_tcp tcp;
        mwc_tcp_init(&tcp, &s, &l, o->wait_s, o->stall_s);
        int in_fd = o->use_stdin ? in.fd : -1;
        while (!interrupted && (mwc_tcp_busy(&tcp) || mwc_mpi_busy(&mpi))) {
            int ready = 0;
            if (in.eof)
                in_fd = -1;
            mwc_tcp_step(&tcp, mwc_mpi_busy(&mpi) ? 5 : 100, in_fd, &ready);
            if (ready) {
                char err[300];
                mwc_linereader_pump(&in, &l, err, sizeof err); /* only forwards now */
            }
            mwc_mpi_step(&mpi);
            mwc_session_tick(&s);
            mwc_priority_step(&priority, tcp.full_reads);
        }
        int stale = !interrupted && o->port_file && mwc_tcp_all_refused(&tcp);
        mwc_tcp_close_all(&tcp);
        mwc_tcp_free(&tcp);
        /* Whatever is still open was interrupted; recorded like any close. */
        for (size_t i = 0; i < l.n; i++)
            mwc_session_closed(&s, i, "the client was interrupted");
        if (v->is_tty)
            mwc_tty_restore(&v->tty);
        mwc_session_finish(&s);
        if (stale)
            stale_hint(o->port_file);
        status = exit_status(&s);
        mwc_mpi_finalize(&mpi);
    }
    if (rec && mwc_record_close(rec) != 0)
        status = 1;
    mwc_session_free(&s);
    free(ranks);
    free(descs);
    mwc_endpoints_free(&l);
    mwc_linereader_free(&in);
    return status;
}

int main(int argc, char **argv)
{
    /* --diff and --hatchet: the Python package's (python_mode.h). */
    if (mwc_python_mode(argc, argv))
        return mwc_python_exec(argc, argv);
    mwc_options o;
    int rc = mwc_options_parse(&o, argc, argv);
    if (rc != 0)
        return rc == 1 ? 0 : 2;
    if (o.report)
        return mwc_html_report(o.report, o.html, o.quiet);
    if (o.trace && o.analyze)
        return mwc_wait_report(o.trace, o.exe, o.json, o.quiet);
    if (o.trace && o.html)
        return mwc_timeline_page(o.trace, o.html, o.exe, &o.select, o.quiet);
    if (o.trace) {
        int status = o.perfetto ? mwc_trace_perfetto(o.trace, o.perfetto, &o.select, o.quiet) : 0;
        return o.otf2 ? mwc_trace_otf2(o.trace, o.otf2, o.exe, o.quiet) | status : status;
    }
    if (o.matrix_file)
        return mwc_matrix_file_print(o.matrix_file, stdout);
    if (o.merge)
        return mwc_merge(o.merge, o.quiet);
    if (o.dump)
        return dump(&o);
    signals();
    mwc_web *server = NULL;
    if (o.web && (server = start_web(&o)) == NULL)
        return 1;
    views v;
    make_view(&v, &o, server);
    if (server != NULL)
        mwc_web_view_publish(&v.web, &(mwc_model){0, NULL, 0}, 0);
    int status = o.replay ? replay(&o, &v) : watch(&o, &v, &argc, &argv);
    if (server != NULL) {
        linger(server, o.quiet);
        mwc_web_stop(server);
    }
    return status;
}
