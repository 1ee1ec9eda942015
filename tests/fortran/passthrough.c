/* passthrough.c: stands in for the MPI's Fortran profiling entry points in
 * passthrough.f90, and checks what mpiwatch's Fortran entry points forward:
 * the same addresses the program passed, and the hidden string lengths.
 * Linked into the program and exported (-rdynamic), so that mpiwatch's
 * calls to pmpi_x_ land here instead of in the MPI. */
#include <stdio.h>
#include <string.h>

static const void *expected[16];
static long expected_len[16];
static int checks, failures;

void mw_expect_(const int *slot, const long long *addr, const int *len)
{
    expected[*slot] = (const void *)(long)*addr;
    expected_len[*slot] = *len;
}

static void check(const char *what, int ok)
{
    checks++;
    if (!ok)
        failures++;
    printf("%-58s %s\n", what, ok ? "ok" : "FAILED");
}

static void check_sentinel(const char *what, int slot, const void *got)
{
    char line[128];
    snprintf(line, sizeof line, "%s reaches the MPI unchanged", what);
    check(line, expected[slot] != NULL && got == expected[slot]);
}

static void done(int *ierror)
{
    *ierror = 0;
}

void pmpi_allreduce_(void *sendbuf, void *recvbuf, int *count, int *type, int *op, int *comm,
                     int *ierror)
{
    (void)recvbuf, (void)count, (void)type, (void)op, (void)comm;
    check_sentinel("MPI_ALLREDUCE: MPI_IN_PLACE", 1, sendbuf);
    done(ierror);
}

void pmpi_bcast_(void *buffer, int *count, int *type, int *root, int *comm, int *ierror)
{
    (void)count, (void)type, (void)root, (void)comm;
    check_sentinel("MPI_BCAST: MPI_BOTTOM", 2, buffer);
    done(ierror);
}

void pmpi_recv_(void *buf, int *count, int *type, int *source, int *tag, int *comm,
                int *status, int *ierror)
{
    (void)buf, (void)count, (void)type, (void)source, (void)tag, (void)comm;
    check_sentinel("MPI_RECV: MPI_STATUS_IGNORE", 3, status);
    done(ierror);
}

void pmpi_waitall_(int *count, int *requests, int *statuses, int *ierror)
{
    (void)count, (void)requests;
    check_sentinel("MPI_WAITALL: MPI_STATUSES_IGNORE", 4, statuses);
    done(ierror);
}

void pmpi_comm_spawn_(char *command, char *argv, int *maxprocs, int *info, int *root,
                      int *comm, int *intercomm, int *errcodes, int *ierror,
                      size_t command_len, size_t argv_len)
{
    (void)maxprocs, (void)info, (void)root, (void)comm, (void)intercomm;
    check_sentinel("MPI_COMM_SPAWN: MPI_ARGV_NULL", 5, argv);
    check_sentinel("MPI_COMM_SPAWN: MPI_ERRCODES_IGNORE", 6, errcodes);
    check("MPI_COMM_SPAWN: command and its hidden length",
          command_len == 8 && memcmp(command, "mw_child", 8) == 0);
    check("MPI_COMM_SPAWN: the hidden length of MPI_ARGV_NULL",
          (long)argv_len == expected_len[5]);
    *intercomm = 0;
    done(ierror);
}

void pmpi_comm_spawn_multiple_(int *count, char *commands, char *argvs, int *maxprocs,
                               int *infos, int *root, int *comm, int *intercomm,
                               int *errcodes, int *ierror, size_t commands_len,
                               size_t argvs_len)
{
    (void)count, (void)maxprocs, (void)infos, (void)root, (void)comm, (void)intercomm;
    check_sentinel("MPI_COMM_SPAWN_MULTIPLE: MPI_ARGVS_NULL", 7, argvs);
    check_sentinel("MPI_COMM_SPAWN_MULTIPLE: MPI_ERRCODES_IGNORE", 6, errcodes);
    check("MPI_COMM_SPAWN_MULTIPLE: the commands' hidden length",
          commands_len == 11 && memcmp(commands, "mw_child   ", 11) == 0);
    check("MPI_COMM_SPAWN_MULTIPLE: the hidden length of MPI_ARGVS_NULL",
          (long)argvs_len == expected_len[7]);
    *intercomm = 0;
    done(ierror);
}

void pmpi_dist_graph_create_adjacent_(int *comm, int *indegree, int *sources,
                                      int *sourceweights, int *outdegree,
                                      int *destinations, int *destweights, int *info,
                                      int *reorder, int *graph, int *ierror)
{
    (void)comm, (void)indegree, (void)sources, (void)outdegree, (void)destinations;
    (void)info;
    check_sentinel("MPI_DIST_GRAPH_CREATE_ADJACENT: MPI_UNWEIGHTED (sources)", 8,
                   sourceweights);
    check_sentinel("MPI_DIST_GRAPH_CREATE_ADJACENT: MPI_UNWEIGHTED (dests)", 8,
                   destweights);
    check("MPI_DIST_GRAPH_CREATE_ADJACENT: the LOGICAL .true.", *reorder != 0);
    *graph = 0;
    done(ierror);
}

void pmpi_info_set_(int *info, char *key, char *value, int *ierror, size_t key_len,
                    size_t value_len)
{
    (void)info;
    check("MPI_INFO_SET: key and its hidden length",
          key_len == 6 && memcmp(key, "mw_key", 6) == 0);
    check("MPI_INFO_SET: value and its hidden length",
          value_len == 14 && memcmp(value, "a longer value", 14) == 0);
    done(ierror);
}

void mw_passthrough_report_(void)
{
    printf("%d checks, %d failed\n", checks, failures);
}
