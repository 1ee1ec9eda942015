#include "options.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"
#include "web_addr.h"

#ifndef PACKAGE_VERSION
#define PACKAGE_VERSION "unknown"
#endif
#ifndef MW_DOCDIR
#define MW_DOCDIR "docs"   /* a build without the install layout: the source tree's */
#endif

static const char usage[] =
    "usage: mpiwatch [OPTIONS] -f PORT_FILE\n"
    "       mpiwatch [OPTIONS] --stdin          (e.g. mpirun ... ./app --port-in-stdout | mpiwatch --stdin)\n"
    "       mpiwatch [OPTIONS] ENDPOINT...      (tcp://HOST:PORT/TOKEN, or a whole endpoint line)\n"
    "       mpiwatch [OPTIONS] --replay FILE\n"
    "       mpiwatch --report REPORT.json --html OUT.html\n"
    "       mpiwatch --replay FILE --html OUT.html\n"
    "       mpiwatch --trace DIR --perfetto OUT.json [--ranks LIST] [--window START:END]\n"
    "       mpiwatch --diff A.json B.json [--json] [--html OUT.html] [--fail-if EXPR]...\n"
    "       mpiwatch --report REPORT.json --hatchet OUT.json\n"
    "       mpiwatch --trace DIR --analyze [--json] [--exe PROGRAM]\n"
    "       mpiwatch --matrix-file REPORT.matrix\n"
    "       mpiwatch --dump -f PORT_FILE     (or --stdin, ENDPOINT...)\n"
    "       mpiwatch --merge DIR\n"
    "       mpiwatch --trace DIR --otf2 OUT [--exe PROGRAM]\n"
    "       mpiwatch --trace DIR --html OUT.html [--ranks LIST] [--window START:END]\n"
    "                [--exe PROGRAM]\n"
    "\n"
    "Watches a job profiled by mpiwatch while it runs (man mpiwatch; the guide:\n"
    MW_DOCDIR "/client.md).\n"
    "\n"
    "  -f, --port-file FILE   read the endpoints from FILE (MPIWATCH_MONITOR=file:FILE),\n"
    "                         waiting until it holds one line per rank\n"
    "  -s, --stdin            read the endpoints from standard input; other lines are\n"
    "                         copied to standard error\n"
    "  -w, --wait SECONDS     how long to wait for the endpoints and for ranks that are\n"
    "                         not listening yet (default 60)\n"
    "      --stall SECONDS    a rank that sends no HELLO within SECONDS of the connection,\n"
    "                         then no whole frame for SECONDS, or leaves a frame unfinished\n"
    "                         that long, is reported lost and the watch goes on (default\n"
    "                         60; keep it above the ranks' MPIWATCH_MONITOR_INTERVAL)\n"
    "      --stuck SECONDS    a rank inside the same MPI call for longer is stuck: it\n"
    "                         is marked, and who waits for whom is shown (default 5)\n"
    "      --rank R           add a panel with rank R by function: calls/s, share of\n"
    "                         the time, bytes/s over the last interval, and totals\n"
    "      --matrix           add a panel with the communication matrix: bytes sent\n"
    "                         between ranks so far (ranks in blocks when they do not fit)\n"
    "  -j, --json             one JSON object per line on standard output (with the\n"
    "                         rates of each rank and the matrix: no --rank or --matrix)\n"
    "      --no-events        with --json: leave out the per-call event lines\n"
    "  -r, --record FILE      also write everything received to FILE\n"
    "      --replay FILE      show a recording instead of watching a job\n"
    "      --replay-speed X   replay X times as fast as recorded (default: at once)\n"
    "      --nice N           once the client is busy (over 5% of a core, or events\n"
    "                         coming faster than it decodes them), lower its CPU\n"
    "                         priority by N, 0 to 19 (default 19), so that, run on\n"
    "                         the job's nodes, it takes little CPU time from the\n"
    "                         ranks; 0 keeps the priority\n"
    "      --web [ADDR:]PORT  also serve the live page over HTTP on ADDR, an IPv4\n"
    "                         address or an IPv6 one in brackets ([::1]:8080;\n"
    "                         default 127.0.0.1; reach it with ssh -L): / is the\n"
    "                         page, /api/state the job's state as JSON, /api/stream\n"
    "                         the same as Server-Sent Events (the page's source);\n"
    "                         after the job it keeps the last state until\n"
    "                         mpiwatch is interrupted\n"
    "      --trace DIR        with --perfetto, --otf2, --analyze or --html: the per-rank\n"
    "                         files of a run traced with MPIWATCH_TRACE=1, in DIR (or\n"
    "                         DIR/NAME, the path up to .trace., when DIR holds several\n"
    "                         runs)\n"
    "      --perfetto OUT     write the trace as Chrome trace-event JSON to OUT, for\n"
    "                         ui.perfetto.dev or chrome://tracing: a process per rank,\n"
    "                         a thread per thread, a slice per call, an arrow per\n"
    "                         message (docs/trace.md)\n"
    "      --analyze          print the trace's wait states, \"Waiting, and what caused\n"
    "                         it\": who made whom wait, charged to the late rank's call\n"
    "                         site and the work before it, largest first; with --json\n"
    "                         as one JSON object (docs/wait-states.md)\n"
    "      --exe PROGRAM      with --analyze, --trace --html or --otf2: the traced\n"
    "                         program, to name its call sites file:line (a program\n"
    "                         linked without PIE); in an OTF2 archive, as source code\n"
    "                         locations\n"
    "      --trace DIR --html OUT  write the trace's timeline as one self-contained page:\n"
    "                         ranks as rows, calls as spans, messages as lines, the\n"
    "                         waiting marked, and the wait states' table (wheel: zoom,\n"
    "                         drag: pan; at most 200,000 calls, the rest said)\n"
    "      --ranks LIST       with --trace --html or --perfetto: only these ranks (0-3,8)\n"
    "      --window START:END with --trace --html or --perfetto: only the calls in this\n"
    "                         interval, seconds from the trace's first call (:2.5, 1:)\n"
    "      --matrix-file FILE print the exact communication matrix a job wrote beside\n"
    "                         its report (NAME.matrix): a line per pair of ranks,\n"
    "                         FROM TO BYTES MESSAGES\n"
    "      --dump             ask every rank (over TCP, with its token) to write its\n"
    "                         partial profile now, a rank stuck inside MPI too; prints\n"
    "                         each rank's file; --wait bounds each rank's answer;\n"
    "                         node leaders ask their node's ranks\n"
    "      --merge DIR        combine the ranks' partial profiles in DIR (a job ended\n"
    "                         before MPI_Finalize) into the job report, text, JSON and\n"
    "                         HTML, written into DIR as <name>-merged.*: which ranks\n"
    "                         are missing, when and why each rank's data was taken\n"
    "                         (docs/partial-reports.md)\n"
    "      --otf2 OUT         write the trace as an OTF2 archive in the folder OUT\n"
    "                         (OUT/traces.otf2, for Vampir, Scalasca, otf2-print):\n"
    "                         locations per rank and thread, MPI events\n"
    "      --report FILE      with --html: a JSON report written by mpiwatch (its\n"
    "                         matrix file beside it, NAME.matrix, is drawn too)\n"
    "      --html OUT         write the report (or, with --replay, the recording's\n"
    "                         last state) as one self-contained HTML page to OUT\n"
    "                         (charts, tables and the matrix; it opens from disk)\n"
    "      --diff A B         compare two JSON reports (A before, B after): per\n"
    "                         function, call site and region, the change in MPI time,\n"
    "                         calls, bytes and share of the run, largest first; as\n"
    "                         text, or JSON with --json; --html OUT also writes a page\n"
    "                         with both runs side by side (" MW_DOCDIR "/python.md)\n"
    "      --fail-if EXPR     with --diff: exit with status 3 when the change crosses\n"
    "                         EXPR (mpi_time>+10%, site_time>+50ms,\n"
    "                         function:MPI_Allreduce.time>+20%; the grammar is in\n"
    "                         " MW_DOCDIR "/python.md); may be given several times\n"
    "      --hatchet OUT      with --report FILE: write the report as a Hatchet\n"
    "                         literal graph (GraphFrame.from_literal) to OUT\n"
    "  -q, --quiet            no progress messages on standard error\n"
    "  -h, --help             this help\n"
    "      --version          the version\n"
    "\n"
    "Exit status: 0 every rank said goodbye (or the page was written); 1 some rank was\n"
    "lost or not reached, or an input could not be read or written; 2 usage error;\n"
    "3 (--diff) a --fail-if threshold was crossed.\n";

static int bad(const char *fmt, const char *arg)
{
    fputs("mpiwatch: ", stderr);
    fprintf(stderr, fmt, arg);
    fputs("\n(mpiwatch --help lists the options)\n", stderr);
    return 2;
}

static int positive(const char *s, double *out)
{
    char *end;
    double v = strtod(s, &end);
    if (end == s || *end || !(v > 0) || v > 1e9)
        return -1;
    *out = v;
    return 0;
}

int mwc_options_parse(mwc_options *o, int argc, char **argv)
{
    enum { O_NO_EVENTS = 256, O_REPLAY, O_SPEED, O_NICE, O_VERSION, O_STALL, O_STUCK, O_RANK,
           O_MATRIX, O_REPORT, O_HTML, O_WEB, O_TRACE, O_PERFETTO, O_ANALYZE, O_EXE,
           O_MATRIX_FILE, O_MERGE, O_DUMP, O_OTF2, O_RANKS,
           O_WINDOW };
    static const struct option longs[] = {
        { "port-file", required_argument, NULL, 'f' },
        { "stdin", no_argument, NULL, 's' },
        { "wait", required_argument, NULL, 'w' },
        { "stall", required_argument, NULL, O_STALL },
        { "stuck", required_argument, NULL, O_STUCK },
        { "rank", required_argument, NULL, O_RANK },
        { "matrix", no_argument, NULL, O_MATRIX },
        { "json", no_argument, NULL, 'j' },
        { "no-events", no_argument, NULL, O_NO_EVENTS },
        { "record", required_argument, NULL, 'r' },
        { "replay", required_argument, NULL, O_REPLAY },
        { "replay-speed", required_argument, NULL, O_SPEED },
        { "nice", required_argument, NULL, O_NICE },
        { "report", required_argument, NULL, O_REPORT },
        { "html", required_argument, NULL, O_HTML },
        { "web", required_argument, NULL, O_WEB },
        { "trace", required_argument, NULL, O_TRACE },
        { "perfetto", required_argument, NULL, O_PERFETTO },
        { "analyze", no_argument, NULL, O_ANALYZE },
        { "exe", required_argument, NULL, O_EXE },
        { "matrix-file", required_argument, NULL, O_MATRIX_FILE },
        { "merge", required_argument, NULL, O_MERGE },
        { "dump", no_argument, NULL, O_DUMP },
        { "otf2", required_argument, NULL, O_OTF2 },
        { "ranks", required_argument, NULL, O_RANKS },
        { "window", required_argument, NULL, O_WINDOW },
        { "quiet", no_argument, NULL, 'q' },
        { "help", no_argument, NULL, 'h' },
        { "version", no_argument, NULL, O_VERSION },
        { NULL, 0, NULL, 0 },
    };
    memset(o, 0, sizeof *o);
    o->events = 1;
    o->wait_s = 60;
    o->stall_s = 60;
    o->stuck_s = MWC_STUCK_DEFAULT_S;
    o->nice = 19;
    o->rank = -1;
    opterr = 0;
    int c;
    /* "+": stop at the first endpoint, so an endpoint line is never parsed
     * as options. */
    while ((c = getopt_long(argc, argv, "+:f:sw:jr:qh", longs, NULL)) != -1) {
        switch (c) {
        case 'f': o->port_file = optarg; break;
        case 's': o->use_stdin = 1; break;
        case 'w':
            if (positive(optarg, &o->wait_s) != 0)
                return bad("--wait %s: give a number of seconds above 0", optarg);
            break;
        case O_STALL:
            if (positive(optarg, &o->stall_s) != 0)
                return bad("--stall %s: give a number of seconds above 0", optarg);
            break;
        case O_STUCK:
            if (positive(optarg, &o->stuck_s) != 0)
                return bad("--stuck %s: give a number of seconds above 0", optarg);
            break;
        case O_RANK: {
            char *end;
            long n = strtol(optarg, &end, 10);
            if (end == optarg || *end || n < 0 || n > 2147483647L)
                return bad("--rank %s: give a rank, a whole number from 0", optarg);
            o->rank = (int)n;
            break;
        }
        case O_MATRIX: o->matrix = 1; break;
        case 'j': o->json = 1; break;
        case O_NO_EVENTS: o->events = 0; break;
        case 'r': o->record = optarg; break;
        case O_REPLAY: o->replay = optarg; break;
        case O_SPEED:
            if (positive(optarg, &o->replay_speed) != 0)
                return bad("--replay-speed %s: give a factor above 0", optarg);
            break;
        case O_NICE: {
            char *end;
            long n = strtol(optarg, &end, 10);
            if (end == optarg || *end || n < 0 || n > 19)
                return bad("--nice %s: give a whole number from 0 to 19", optarg);
            o->nice = (int)n;
            break;
        }
        case O_REPORT: o->report = optarg; break;
        case O_HTML: o->html = optarg; break;
        case O_TRACE: o->trace = optarg; break;
        case O_PERFETTO: o->perfetto = optarg; break;
        case O_ANALYZE: o->analyze = 1; break;
        case O_EXE: o->exe = optarg; break;
        case O_MATRIX_FILE: o->matrix_file = optarg; break;
        case O_MERGE: o->merge = optarg; break;
        case O_DUMP: o->dump = 1; break;
        case O_OTF2: o->otf2 = optarg; break;
        case O_RANKS: {
            char err[300];
            if (mwc_ranks_parse(optarg, &o->select, err, sizeof err) != 0) {
                char said[700];
                snprintf(said, sizeof said, "--ranks %.300s: %s", optarg, err);
                return bad("%s", said);
            }
            o->ranks = 1;
            break;
        }
        case O_WINDOW: {
            char err[300];
            if (mwc_window_parse(optarg, &o->select, err, sizeof err) != 0) {
                char said[700];
                snprintf(said, sizeof said, "--window %.300s: %s", optarg, err);
                return bad("%s", said);
            }
            o->window = 1;
            break;
        }
        case O_WEB: {
            mwc_web_addr a;
            char err[300];
            if (mwc_web_addr_parse(optarg, &a, err, sizeof err) != 0)
                return bad("%s", err);
            o->web = optarg;
            break;
        }
        case 'q': o->quiet = 1; break;
        case 'h': fputs(usage, stdout); return 1;
        case O_VERSION: puts("mpiwatch " PACKAGE_VERSION " (monitor protocol 1)"); return 1;
        case ':': return bad("%s needs a value", argv[optind - 1]);
        default: return bad("unknown option %s", argv[optind - 1]);
        }
    }
    o->args = argv + optind;
    o->nargs = argc - optind;
    if (o->nargs == 1 && strcmp(o->args[0], "-") == 0) { /* "-" means standard input */
        o->use_stdin = 1;
        o->nargs = 0;
    }
    if (o->matrix_file) {
        if (o->port_file || o->use_stdin || o->nargs > 0 || o->replay || o->report || o->html ||
            o->json || o->record || o->rank >= 0 || o->matrix || o->web || o->trace || o->perfetto ||
            o->merge || o->dump)
            return bad("%s--matrix-file prints a file's pairs: no other option but --quiet", "");
        return 0;
    }
    if (o->merge) {
        if (o->port_file || o->use_stdin || o->nargs > 0 || o->replay || o->report || o->html ||
            o->json || o->record || o->rank >= 0 || o->matrix || o->web || o->trace ||
            o->perfetto || o->dump || o->matrix_file || o->analyze)
            return bad("%s--merge DIR writes a report: no other option but --quiet", "");
        return 0;
    }
    if (o->dump) {
        int sources = (o->port_file != NULL) + o->use_stdin + (o->nargs > 0);
        if (sources != 1)
            return bad("%s--dump needs the endpoints: one of -f PORT_FILE, --stdin or "
                       "ENDPOINT...", "");
        if (o->replay || o->report || o->html || o->json || o->record || o->rank >= 0 ||
            o->matrix || o->web || o->trace || o->perfetto || o->matrix_file || o->analyze)
            return bad("%s--dump asks for partial profiles: no other option but --wait and "
                       "--quiet", "");
        return 0;
    }
    if ((o->perfetto || o->otf2) && !o->trace)
        return bad("%s--perfetto and --otf2 go with --trace DIR", "");
    if (o->analyze && !o->trace)
        return bad("%s--analyze goes with --trace DIR", "");
    if ((o->ranks || o->window) && o->otf2)
        return bad("%s--ranks and --window do not go with --otf2 (the archive holds every "
                   "call)", "");
    if ((o->ranks || o->window) && !(o->trace && (o->html || o->perfetto)))
        return bad("%s--ranks and --window go with --trace DIR --html OUT.html or --perfetto "
                   "OUT.json", "");
    if (o->exe && !o->analyze && !(o->trace && (o->html || o->otf2)))
        return bad("%s--exe goes with --trace DIR --analyze, --html OUT.html or --otf2 OUT", "");
    if (o->trace) {
        int converts = o->perfetto || o->otf2;
        if (converts + o->analyze + !!o->html == 0)
            return bad("%s--trace DIR goes with --perfetto OUT.json, --otf2 OUT, --analyze or "
                       "--html OUT.html", "");
        if (converts + o->analyze + !!o->html > 1)
            return bad("%sgive one of --analyze, --html, and --perfetto or --otf2 (or both)", "");
        if (o->port_file || o->use_stdin || o->nargs > 0 || o->replay || o->report ||
            o->record || o->rank >= 0 || o->matrix || o->web || (o->json && !o->analyze))
            return bad(converts ? "%s--trace converts a trace (--perfetto, --otf2): no other "
                                  "option but --exe (with --otf2), --ranks and --window (with "
                                  "--perfetto) and --quiet"
                       : o->html ? "%s--trace --html writes the timeline: no other option but "
                                   "--ranks, --window, --exe and --quiet"
                                 : "%s--trace --analyze prints the wait states: no other option "
                                   "but --json, --exe and --quiet", "");
        return 0;
    }
    int sources = (o->port_file != NULL) + o->use_stdin + (o->nargs > 0) + (o->replay != NULL) +
                  (o->report != NULL);
    if (sources == 0)
        return bad("%sgive the endpoints: -f PORT_FILE, --stdin, ENDPOINT... or --replay FILE "
                   "(or --report FILE --html OUT)", "");
    if (sources > 1)
        return bad("%sgive only one of -f, --stdin, endpoint arguments, --replay and --report", "");
    if (o->report && !o->html)
        return bad("%s--report goes with --html OUT.html", "");
    if (o->html && !o->report && !o->replay)
        return bad("%s--html goes with --report FILE.json (a JSON report written by mpiwatch) "
                   "or --replay FILE", "");
    if (o->html && o->replay && (o->json || o->rank >= 0 || o->matrix || o->web || o->replay_speed > 0))
        return bad("%s--replay --html writes a page: no --json, --rank, --matrix, --web or --replay-speed", "");
    if (o->report && (o->json || o->record || o->rank >= 0 || o->matrix || o->web))
        return bad("%s--report --html writes a page: no --json, --record, --rank, --matrix or --web", "");
    if (!o->json && !o->events)
        return bad("%s--no-events goes with --json", "");
    /* The panels are the terminal's; JSON has every rank's rates and the
     * matrix in its own lines. */
    if (o->json && o->rank >= 0)
        return bad("%s--rank goes with the terminal view (--json prints every rank's rates lines)", "");
    if (o->json && o->matrix)
        return bad("%s--matrix goes with the terminal view (--json prints matrix lines)", "");
    if (o->replay_speed > 0 && !o->replay)
        return bad("%s--replay-speed goes with --replay", "");
    if (o->replay && o->record)
        return bad("%s--record cannot record a --replay", "");
    return 0;
}
