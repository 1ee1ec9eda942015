/* The default view. On a terminal: a live table redrawn about once a second
 * with plain ANSI escapes (no curses, fine over ssh), cut to the terminal's
 * size. Otherwise: a plain summary every few seconds. Both end with a final
 * summary of every function and rank. */
#ifndef MWC_VIEW_TTY_H
#define MWC_VIEW_TTY_H

#include <stdio.h>

#include "view.h"

typedef struct {
    FILE *out;
    int live;            /* redraw in place (out is a terminal) */
    int screen;          /* the alternate screen is in use */
    double period;       /* seconds between draws */
    double next;         /* elapsed time of the next draw */
    int rows, cols;      /* of this draw */
    int row;             /* lines written in this draw */
    double stuck_s;      /* --stuck; 0: the default, 5 s */
    int rank;            /* --rank: the rank broken down by function; -1 none */
    int matrix;          /* --matrix: show the communication matrix */
} mwc_tty_state;

/* Resets *st (then set stuck_s, rank and matrix). */
mwc_view mwc_view_tty(mwc_tty_state *st, FILE *out);
/* Leave the alternate screen (also on interruption). */
void mwc_tty_restore(mwc_tty_state *st);

#endif
