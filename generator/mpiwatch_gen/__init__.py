"""mpiwatch_gen: generate an MPI profiling layer from mpi.h and the MPI standard.

Stages: probe (read the installed header and libraries), spec (the standard's
function list with parameter roles), reconcile (header x spec), render (Jinja2
templates and user hooks into C).
"""

__version__ = "0.1.0"
