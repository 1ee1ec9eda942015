/* mpiwatch --diff and mpiwatch --report R --hatchet OUT: run by the Python
 * package (python/mpiwatch/, docs/python.md), so that the command and
 * mpiwatch.diff() in Python are one piece of code. */
#ifndef MWC_PYTHON_MODE_H
#define MWC_PYTHON_MODE_H

/* 1 if argv asks for a mode the Python package runs (--diff, --hatchet), or
 * has one of its options (--fail-if: the package says what it goes with). */
int mwc_python_mode(int argc, char **argv);

/* Replaces this process by the configured Python running mpiwatch.cli with
 * argv[1..]; returns only when that cannot start: 1, with a message. */
int mwc_python_exec(int argc, char **argv);

#endif
