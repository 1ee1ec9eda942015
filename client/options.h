/* The command line (mpiwatch --help prints the same). */
#ifndef MWC_OPTIONS_H
#define MWC_OPTIONS_H

#include "timeline_select.h"

typedef struct {
    const char *port_file;   /* -f FILE */
    int use_stdin;           /* --stdin */
    char **args;             /* endpoints given as arguments */
    int nargs;
    int json, events;        /* --json; events unless --no-events */
    double wait_s;           /* --wait */
    double stall_s;          /* --stall */
    double stuck_s;          /* --stuck: a call lasting longer is stuck */
    const char *record;      /* --record FILE */
    const char *replay;      /* --replay FILE */
    double replay_speed;     /* --replay-speed X; 0: as fast as possible */
    int quiet;
    int nice;                /* --nice N: added to our nice value while watching */
    int rank;                /* --rank R: the terminal's by-function panel; -1 none */
    int matrix;              /* --matrix: the terminal's communication matrix panel */
    const char *report;      /* --report FILE: a JSON report to turn into a page */
    const char *html;        /* --html OUT: the HTML report to write */
    const char *web;         /* --web [ADDR:]PORT: serve the live page */
    const char *trace;       /* --trace DIR: a run's per-rank trace files */
    const char *perfetto;    /* --perfetto OUT: the trace as Chrome trace-event JSON */
    int analyze;             /* --analyze: the trace's wait states */
    const char *exe;         /* --exe PROGRAM: names the analysed sites file:line */
    const char *matrix_file; /* --matrix-file FILE: print the pairs of a job's matrix file */
    const char *merge;       /* --merge DIR: the ranks' partial profiles into a job report */
    int dump;                /* --dump: ask every rank for its partial profile now */
    const char *otf2;        /* --otf2 OUT: the trace as an OTF2 archive in the folder OUT */
    int ranks, window;       /* --ranks LIST, --window START:END were given (--trace --html) */
    mwc_timeline_select select; /* their values */
} mwc_options;

/* 0: run; 1: --help or --version was printed (exit 0); 2: usage error
 * (printed). */
int mwc_options_parse(mwc_options *o, int argc, char **argv);

#endif
