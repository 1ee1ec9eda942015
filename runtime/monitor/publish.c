/* Publishing the endpoint lines (docs/protocol.md): one line per rank on
 * standard output or standard error, or a port file written collectively
 * with MPI-IO on the private communicator. In the file every line is padded
 * with spaces to the longest one, so that rank r writes its own block at
 * r * width. The file is created by rank 0 with mode 0600 under a temporary
 * name, written by every rank, checked (each rank's count, the file's size)
 * and renamed when complete, so a client never reads half of it; rank 0
 * removes it at MPI_Finalize. A failure is a warning; the job goes on. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/yielding_collectives.h"
#include "monitor/monitor.h"
#include "core/state.h"
#include "core/warn.h"

static void mpi_error(char *out, size_t size, int rc)
{
    char text[MPI_MAX_ERROR_STRING];
    int len = 0;
    if (PMPI_Error_string(rc, text, &len) != MPI_SUCCESS)
        snprintf(text, sizeof text, "MPI error %d", rc);
    snprintf(out, size, "%s", text);
}

/* Rank 0 creates tmp (owner-only); every rank learns whether it could. */
static int create_file(const char *tmp, char *why, size_t size, MPI_Comm comm)
{
    int ok = 1, all = 0;
    if (mw_state.world_rank == 0) {
        unlink(tmp);
        int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
        if (fd < 0 || fchmod(fd, 0600) != 0) {
            snprintf(why, size, "%s", strerror(errno));
            ok = 0;
        }
        if (fd >= 0)
            close(fd);
    }
    if (mw_allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, comm) != MPI_SUCCESS)
        return 0;
    return all;
}

/* The port file rank 0 published, removed at MPI_Finalize. */
static char published[4096];

static int publish_file(const char *line, const char *path)
{
    MPI_Comm comm = mw_private_comm();
    char tmp[4200], why[MPI_MAX_ERROR_STRING + 64] = "";
    int width = (int)strlen(line) + 1, max = 0, ok = 0, all = 0, rc;

    if (comm == MPI_COMM_NULL) {
        mw_warn("no private communicator; the monitor's port file %s is not written", path);
        return -1;
    }
    snprintf(tmp, sizeof tmp, "%s.mpiwatch-tmp", path);
    if ((rc = mw_allreduce(&width, &max, 1, MPI_INT, MPI_MAX, comm)) != MPI_SUCCESS) {
        mpi_error(why, sizeof why, rc);
        if (mw_state.world_rank == 0)
            mw_warn("cannot write the monitor's port file %s: %s", path, why);
        return -1;
    }
    char *block = malloc((size_t)max);
    if (block != NULL) {
        memset(block, ' ', (size_t)max);
        memcpy(block, line, strlen(line));
        block[max - 1] = '\n';
    }
    if (create_file(tmp, why, sizeof why, comm)) {
        MPI_File fh;
        MPI_Status status;
        rc = PMPI_File_open(comm, tmp, MPI_MODE_WRONLY, MPI_INFO_NULL, &fh);
        if (rc == MPI_SUCCESS) {
            MPI_Offset at = (MPI_Offset)mw_state.world_rank * max;
            int written = 0;
            if (block != NULL)
                rc = PMPI_File_write_at_all(fh, at, block, max, MPI_CHAR, &status);
            else   /* still take part in the collective write */
                rc = PMPI_File_write_at_all(fh, at, NULL, 0, MPI_CHAR, &status);
            if (rc == MPI_SUCCESS && block != NULL &&
                (PMPI_Get_count(&status, MPI_CHAR, &written) != MPI_SUCCESS || written != max))
                snprintf(why, sizeof why, "%d of %d bytes written (is the file system full?)",
                         written, max);
            int rc2 = PMPI_File_close(&fh);
            if (rc == MPI_SUCCESS)
                rc = rc2;
        }
        if (rc != MPI_SUCCESS)
            mpi_error(why, sizeof why, rc);
        else if (block == NULL)
            snprintf(why, sizeof why, "out of memory");
        else if (why[0] == '\0')
            ok = 1;
        if (mw_allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, comm) != MPI_SUCCESS)
            all = 0;
        if (!ok)
            mw_warn("cannot write this rank's line into the monitor's port file %s: %s", path, why);
        if (mw_state.world_rank == 0) {
            /* The file's size proves every line landed: a full file system may
             * report success and keep nothing. */
            struct stat st;
            long long want = (long long)max * mw_state.world_size;
            if (all && (stat(tmp, &st) != 0 || (long long)st.st_size != want)) {
                mw_warn("the monitor's port file %s would be incomplete (%lld of %lld bytes; is "
                        "the file system full?); no port file is published", path,
                        (long long)(stat(tmp, &st) == 0 ? st.st_size : 0), want);
                all = 0;
            }
            if (all && rename(tmp, path) != 0) {
                mw_warn("cannot rename %s to %s: %s", tmp, path, strerror(errno));
                all = 0;
            }
            if (!all)
                unlink(tmp);
        }
    } else if (mw_state.world_rank == 0) {
        mw_warn("cannot create the monitor's port file %s: %s", tmp, why[0] ? why : "MPI error");
    }
    free(block);
    if (all && mw_state.world_rank == 0)
        snprintf(published, sizeof published, "%s", path);
    return all ? 0 : -1;
}

void mw_monitor_unpublish(void)
{
    /* A port file that outlives its job would send the next client to
     * ports nobody listens on. */
    if (published[0] != '\0' && unlink(published) != 0 && errno != ENOENT)
        mw_warn("cannot remove the monitor's port file %s: %s", published, strerror(errno));
    published[0] = '\0';
}

/* Tokens in a job's output file that others can read: anyone who reads it
 * can watch the job (docs/protocol.md, threat model). Rank 0 says so once. */
static void warn_if_exposed(FILE *out, const char *name)
{
    struct stat st;
    if (mw_state.world_rank == 0 && fstat(fileno(out), &st) == 0 && S_ISREG(st.st_mode) &&
        (st.st_mode & (S_IRGRP | S_IROTH)))
        mw_warn("the monitor's endpoints, with their tokens, go to standard %s, a file others "
                "can read (mode %03o): anyone who reads it can watch this job; use "
                "--port-in-file on a shared system", name, (unsigned)(st.st_mode & 0777));
}

/* A job started by MPI_Comm_spawn inherits MPIWATCH_MONITOR=file:PATH: it
 * publishes to PATH.spawnN (the first N free), never over its parent's file,
 * and rank 0 says where. Every rank learns the name from rank 0. */
static const char *spawned_path(const char *path)
{
    static char own[4200];
    MPI_Comm parent = MPI_COMM_NULL;
    if (PMPI_Comm_get_parent(&parent) != MPI_SUCCESS || parent == MPI_COMM_NULL ||
        mw_private_comm() == MPI_COMM_NULL)
        return path;
    if (mw_state.world_rank == 0) {
        struct stat st;
        for (int n = 1; n <= 1000; n++) {
            char tmp[4300];
            snprintf(own, sizeof own, "%s.spawn%d", path, n);
            snprintf(tmp, sizeof tmp, "%s.mpiwatch-tmp", own);
            if (stat(own, &st) != 0 && stat(tmp, &st) != 0)
                break;
        }
    }
    if (PMPI_Bcast(own, (int)sizeof own, MPI_CHAR, 0, mw_private_comm()) != MPI_SUCCESS)
        return path;
    own[sizeof own - 1] = '\0';
    if (mw_state.world_rank == 0)
        mw_warn("this job was started by MPI_Comm_spawn: its monitor endpoints are in %s "
                "(mpiwatch -f %s), not in its parent's %s", own, own, path);
    return own;
}

int mw_monitor_publish(const char *line)
{
    switch (mw_monitor_opts.publish) {
    case MW_PUBLISH_STDOUT:
        warn_if_exposed(stdout, "output");
        fprintf(stdout, "%s\n", line);
        fflush(stdout);
        return 0;
    case MW_PUBLISH_STDERR:
        warn_if_exposed(stderr, "error");
        fprintf(stderr, "%s\n", line);
        fflush(stderr);
        return 0;
    case MW_PUBLISH_FILE:
        return publish_file(line, spawned_path(mw_monitor_opts.file));
    default:
        return 0;
    }
}
