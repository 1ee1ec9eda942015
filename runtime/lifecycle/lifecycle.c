/* The runtime's life: load-time set-up, MPI_Init, MPI_Pcontrol, and the
 * report at MPI_Finalize (built before PMPI_Finalize, while MPI still works). */
#define _GNU_SOURCE   /* RTLD_DEFAULT */
#include <dlfcn.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/mode.h"
#include "lifecycle/partial_dumper.h"
#include "lifecycle/peer_dumps.h"
#include "lifecycle/settings_agreement.h"
#include "monitor/monitor.h"
#include "report/phases.h"
#include "report/report.h"
#include "core/state.h"
#include "mw_wrap.h"
#include "core/warn.h"
#include "trace/otf2_archive.h"
#include "trace/limits.h"
#include "trace/trace.h"
#include "mpiwatch_trace.h"

/* Runs when the library is loaded: configuration and clock, no MPI. */
__attribute__((constructor)) static void mw_load(void)
{
    mw_config_load(&mw_state.config, 0);
    mw_level = mw_state.config.initial_level;
    mw_clock_init(mw_state.config.timer);
    mw_state.start_ticks = mw_now();
    mw_state.start_wall = (long long)time(NULL);
    mw_mode_update();
}

/* The launcher's rank of this process, before or without MPI; -1 unknown. */
static int launcher_rank(void)
{
    static const char *const vars[] = {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK"};
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
        const char *v = getenv(vars[i]);
        if (v != NULL && *v != '\0')
            return atoi(v);
    }
    return -1;
}

/* Runs when the process ends. A Fortran program whose MPI binding calls
 * PMPI_X (Open MPI's) never reaches libmpiwatch's MPI_Init when
 * libmpiwatch_f is not loaded: MPI ran, mpiwatch never started, and there
 * is no report. Say so once (on rank 0), and what to do. */
__attribute__((destructor)) static void mw_unload(void)
{
    int initialized = 0, finalized = 0;
    if (mw_state.started || mw_fortran_layers != NULL)
        return;
    if (dlsym(RTLD_DEFAULT, "mpi_init_") == NULL && dlsym(RTLD_DEFAULT, "mpi_init_f08_") == NULL)
        return;   /* not a Fortran program */
    if (PMPI_Initialized(&initialized) != MPI_SUCCESS || PMPI_Finalized(&finalized) != MPI_SUCCESS ||
        !(initialized || finalized) || launcher_rank() > 0)
        return;
    mw_warn("this Fortran program's MPI calls went past libmpiwatch (its MPI's Fortran binding "
            "calls PMPI_ functions), so nothing was profiled and no report was written: load "
            "libmpiwatch_f.so too (LD_PRELOAD=.../libmpiwatch.so:.../libmpiwatch_f.so, or link "
            "-lmpiwatch_f -lmpiwatch)");
}

/* At exit without MPI_Finalize: no job report (that needs every rank in
 * MPI), but this rank's partial profile, for `mpiwatch --merge`. */
static pid_t init_pid;   /* a child forked by the program exits as itself, not as the rank */

static void dump_if_unfinished(void)
{
    if (!mw_state.started || mw_state.finished || getpid() != init_pid)
        return;
    /* The launcher's signals that follow (Open MPI's CONT, TERM) must not
     * replace the profile taken here: it stays the rank's last. */
    mw_dumper_stop();
    if (mw_partial_write("exit without MPI_Finalize") != 0) {
        mw_warn("the program ended without calling MPI_Finalize; no report was written");
        return;
    }
    mw_warn("the program ended without calling MPI_Finalize; no job report was written, "
            "this rank's partial profile is %s (mpiwatch --merge %s combines the ranks')",
            mw_partial_path(), mw_state.config.outdir);
    /* Open MPI's launcher ends the job once a rank has exited without
     * MPI_Finalize: give the node's other ranks, ending too, their dump. */
    mw_dumper_wait_for_node(5);
}

void mw_on_abort(int errorcode)
{
    static char reason[64];
    static int once;   /* the Fortran MPI_ABORT may reach the C one */
    if (!mw_state.started || mw_state.finished || getpid() != init_pid || once++)
        return;
    /* The launcher's signals that follow end this rank: the profile taken
     * here, at the call, stays the rank's last. */
    mw_dumper_stop();
    snprintf(reason, sizeof reason, "MPI_Abort (error code %d)", errorcode);
    if (mw_partial_write(reason) == 0)
        mw_warn("MPI_Abort: no job report; this rank's partial profile is %s (mpiwatch --merge "
                "%s combines the ranks')", mw_partial_path(), mw_state.config.outdir);
    /* MPICH's Hydra SIGKILLs the other ranks once this one is gone: ask
     * them for their profiles first (a bounded wait). */
    mw_peer_dumps_request(reason);
}

/* mpiwatch --dump asked the live monitor for this rank's partial profile. */
static const char *dump_for_client(void)
{
    return mw_partial_write("mpiwatch --dump") == 0 ? mw_partial_path() : NULL;
}

/* The executable's base name, reduced to characters safe in a file name. */
static void program_name(char *out, size_t size)
{
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    const char *base = "program";
    if (n > 0) {
        exe[n] = '\0';
        base = strrchr(exe, '/') ? strrchr(exe, '/') + 1 : exe;
    }
    size_t i = 0;
    for (; base[i] && i + 1 < size; i++) {
        char c = base[i];
        int safe = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                   c == '.' || c == '_' || c == '-';
        out[i] = safe ? c : '_';
    }
    out[i] = '\0';
}

void mw_on_init(void)
{
    if (mw_state.started)
        return;
    mw_state.started = 1;
    PMPI_Comm_rank(MPI_COMM_WORLD, &mw_state.world_rank);
    PMPI_Comm_size(MPI_COMM_WORLD, &mw_state.world_size);
    mw_config_load(&mw_state.config, mw_state.world_rank == 0);
    /* The trace's window and function list: the trace layer's, read as the rest. */
    mw_trace_limits_load(mw_state.world_rank == 0);
    program_name(mw_state.program, sizeof mw_state.program);
    /* Translating ranks to world ranks needs the world group: made once here,
     * before any thread can ask for it. */
    if (PMPI_Comm_group(MPI_COMM_WORLD, &mw_state.world_group) != MPI_SUCCESS)
        mw_state.world_group = MPI_GROUP_NULL;
    init_pid = getpid();
    mw_monitor_options_load(NULL, NULL);   /* loaded before MPI_Init's PMPI_Init, or now (Fortran) */
    mw_settings_agree();   /* collective: the trace and the monitor only if every rank asks */
    atexit(dump_if_unfinished);
    mw_monitor_on_dump(dump_for_client);
    mw_monitor_start();   /* the live monitor, if asked for (may wait for a client) */
    mw_state.app_start_ticks = mw_now();   /* so MPI_Init and the wait are not application time */
    mw_mode_update();   /* Fortran handles convert from now on (core/mode.h) */
    mw_dumper_start();   /* partial profiles on signals and timers */
    mw_trace_start();   /* if asked for: collective (the files' name) */
    /* The trace's clock sync answers the ranks one after the other, which
     * would release them from MPI_Init up to tens of ms apart (under load)
     * and show at the program's first synchronization as waiting that no
     * work of its caused (docs/wait-states.md, "Balanced programs"). */
    if (mw_state.config.trace && mw_private_comm() != MPI_COMM_NULL)
        PMPI_Barrier(mw_private_comm());
}

void mw_on_finalize(void)
{
    static mw_job_summary job;
    static mw_fn_stats local[MW_FN_COUNT];
    int initialized = 0;

    if (mw_state.finished)
        return;
    mw_dumper_stop();   /* no partial profile from now on: the report is due */
    mw_state.finished = 1;
    mw_phase_begin();
    mw_mode_update();   /* no more Fortran handle conversions (core/mode.h) */
    mw_trace_finish();   /* MPI_Finalize's own call is in it: the totals are final */
    mw_handles_forget();   /* the caches' facts do not outlive MPI: later look-ups miss */
    if (!mw_state.started && PMPI_Initialized(&initialized) == MPI_SUCCESS && initialized)
        mw_on_init();   /* MPI was initialised behind our back (e.g. from Fortran) */
    mw_phase_mark("trace_finish");
    if (mw_private_comm() == MPI_COMM_NULL) {
        mw_warn("no private communicator; no report is written");
        return;
    }
    mw_phase_mark("private_comm");
    double app_time = mw_clock_seconds(mw_now() - mw_app_start());
    /* One merge for both: the monitor's final SNAPSHOT and the report. */
    mw_stats_merge(local);
    mw_monitor_finish(local);
    mw_phase_mark("merge_threads");
    int rc = mw_report_reduce(app_time, local, &job);
    if (rc == MPI_SUCCESS) {
        job.program = mw_state.program;
        job.timer = mw_clock_name();
        mw_report_matrix_file(&job, mw_private_comm());
        mw_phase_mark("matrix_file");
    }
    if (rc != MPI_SUCCESS) {
        mw_warn("gathering the profile failed (MPI error %d); no report is written", rc);
    } else if (mw_state.world_rank == 0) {
        mw_report_write(&job, mw_state.config.outdir);
        mw_phase_mark("write");
    }
    mw_trace_otf2_archive(rc == MPI_SUCCESS, job.trace_ranks);   /* every file is closed */
    mw_phase_mark("trace_otf2");
    if (rc == MPI_SUCCESS)
        mw_partial_remove();   /* the job's report supersedes the rank's partial files */
    mw_report_free(&job);
    PMPI_Comm_free(&mw_state.comm);
    mw_phase_mark("comm_free");
    mw_phase_print();
    if (mw_state.world_group != MPI_GROUP_NULL)
        PMPI_Group_free(&mw_state.world_group);
}

void mw_on_pcontrol(int level)
{
    /* 0 off, 1 on, 2 on and flush (a snapshot of this rank's profile); the
     * standard leaves other levels to the tool: mpiwatch treats them as 1. */
    if (level == 0)   /* the pause said in the trace before it takes effect */
        mw_trace_mark(MWT_MARK_PCONTROL, level, mw_now());
    __atomic_store_n(&mw_level, level != 0, __ATOMIC_RELAXED);
    mw_mode_update();
    if (level != 0)   /* and the resumption once it has */
        mw_trace_mark(MWT_MARK_PCONTROL, level, mw_now());
    mw_monitor_pcontrol(level);
    if (level == 2)
        mw_snapshot();
}
