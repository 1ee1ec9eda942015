/* Which MPI function plays which part in matching messages and in the
 * wait states (client/wait_functions.h). */
#include "wait_functions.h"

#include <stddef.h>
#include <string.h>

#include "wait_states.h"

/* The name without a large-count suffix: MPI_Send_c counts as MPI_Send. */
static int named(const char *name, const char *const *list)
{
    size_t n = strlen(name);
    if (n > 2 && strcmp(name + n - 2, "_c") == 0)
        n -= 2;
    for (int i = 0; list[i] != NULL; i++)
        if (strlen(list[i]) == n && strncmp(name, list[i], n) == 0)
            return 1;
    return 0;
}

static const char *const sends[] = {"MPI_Send", "MPI_Ssend", "MPI_Bsend", "MPI_Rsend",
                                    "MPI_Isend", "MPI_Issend", "MPI_Ibsend", "MPI_Irsend", NULL};
static const char *const synchronous_sends[] = {"MPI_Ssend", "MPI_Issend", NULL};
static const char *const standard_sends[] = {"MPI_Send", "MPI_Isend", NULL};
static const char *const nonblocking_sends[] = {"MPI_Isend", "MPI_Issend", "MPI_Ibsend",
                                                "MPI_Irsend", NULL};
static const char *const blocking_receives[] = {"MPI_Recv", NULL};
static const char *const nonblocking_receives[] = {"MPI_Irecv", NULL};
static const char *const blocking_completions[] = {"MPI_Wait", "MPI_Waitall", "MPI_Waitany",
                                                   "MPI_Waitsome", NULL};
static const char *const send_receives[] = {"MPI_Sendrecv", "MPI_Sendrecv_replace", NULL};
static const char *const nxn[] = {"MPI_Allreduce", "MPI_Allgather", "MPI_Allgatherv",
                                  "MPI_Alltoall", "MPI_Alltoallv", "MPI_Alltoallw",
                                  "MPI_Reduce_scatter", "MPI_Reduce_scatter_block", NULL};
static const char *const barriers[] = {"MPI_Barrier", NULL};
/* Not MPI time, as in the report's rank_times (docs/report-format.md). */
static const char *const outside_mpi_time[] = {"MPI_Init", "MPI_Init_thread", "MPI_Finalize", NULL};
static const char *const one_to_all[] = {"MPI_Bcast", "MPI_Scatter", "MPI_Scatterv", NULL};
static const char *const all_to_one[] = {"MPI_Reduce", "MPI_Gather", "MPI_Gatherv", NULL};

int mww_fn_other_receive(const char *name)
{
    static const char *const starts[] = {"MPI_Start", "MPI_Startall", NULL};
    return (strstr(name, "recv") != NULL || named(name, starts)) &&
           !named(name, blocking_receives);
}

int mww_fn_collective_pattern(const char *name)
{
    if (named(name, nxn))
        return MWW_WAIT_NXN;
    if (named(name, barriers))
        return MWW_WAIT_BARRIER;
    if (named(name, one_to_all))
        return MWW_LATE_BROADCAST;
    if (named(name, all_to_one))
        return MWW_EARLY_REDUCE;
    return -1;
}

int mww_root_role(const char *function)
{
    return named(function, one_to_all) ? MWW_ROOT_SENDER
           : named(function, all_to_one) ? MWW_ROOT_RECEIVER
                                         : 0;
}

int mww_fn_send(const char *name)
{
    return named(name, sends);
}

/* A send-receive's send half is a standard send: rendezvous-sized, it
 * waits for its receive as MPI_Send does. */
int mww_fn_waits_for_receive(const char *name, uint64_t bytes, uint64_t rendezvous_bytes)
{
    return named(name, synchronous_sends) ||
           (rendezvous_bytes > 0 && (named(name, standard_sends) || named(name, send_receives)) &&
            bytes >= rendezvous_bytes);
}

int mww_fn_nonblocking_send(const char *name)
{
    return named(name, nonblocking_sends);
}

int mww_fn_blocking_receive(const char *name)
{
    return named(name, blocking_receives);
}

int mww_fn_nonblocking_receive(const char *name)
{
    return named(name, nonblocking_receives);
}

int mww_fn_blocking_completion(const char *name)
{
    return named(name, blocking_completions);
}

int mww_fn_send_receive(const char *name)
{
    return named(name, send_receives);
}

int mww_fn_mpi_time(const char *name)
{
    return !named(name, outside_mpi_time);
}
