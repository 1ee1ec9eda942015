# Starting MPI jobs the same way with Open MPI and MPICH. Source it; POSIX sh.
# Needs MPIRUN (the launcher; it may carry arguments) and MPI_FLAVOR
# (openmpi or mpich) in the environment, as tests/lib/env.sh sets them.

# mw_launch NP [VAR=VALUE ...] -- PROGRAM [ARGS...]
# Runs PROGRAM on NP ranks with the given variables set in every rank (a
# VALUE may hold blanks), under a time limit (MW_TIMEOUT seconds, default
# 120; killed MW_KILL_AFTER seconds, default 10, later if it ignores the
# TERM) so that a hung job fails
# the test instead of CI. MW_MPIRUN_ARGS: more options for mpirun (e.g.
# Open MPI's --ompi-server). As root, Open MPI is allowed to run.
mw_launch() {
    _mw_np=$1
    shift
    # Rotate the arguments once: each VAR=VALUE becomes the launcher's option,
    # the rest is kept as it is.
    _mw_left=$#
    _mw_envs=1
    while [ "$_mw_left" -gt 0 ]; do
        _mw_a=$1
        shift
        _mw_left=$((_mw_left - 1))
        if [ "$_mw_envs" = 1 ]; then
            if [ "$_mw_a" = -- ]; then
                _mw_envs=0
            elif [ "$MPI_FLAVOR" = openmpi ]; then
                set -- "$@" -x "$_mw_a"
            else
                set -- "$@" -genv "${_mw_a%%=*}" "${_mw_a#*=}"
            fi
        else
            set -- "$@" "$_mw_a"
        fi
    done
    case "$MPI_FLAVOR" in
        openmpi)
            OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
                timeout -k "${MW_KILL_AFTER:-10}" "${MW_TIMEOUT:-120}" $MPIRUN --oversubscribe ${MW_MPIRUN_ARGS:-} \
                -np "$_mw_np" "$@" ;;
        *)
            timeout -k "${MW_KILL_AFTER:-10}" "${MW_TIMEOUT:-120}" $MPIRUN ${MW_MPIRUN_ARGS:-} -n "$_mw_np" "$@" ;;
    esac
    _mw_rc=$?
    # The limit in force here, on the job's stderr: the caller's MW_TIMEOUT
    # may differ when it describes the status (describe_rc).
    if [ "$_mw_rc" -eq 124 ] || [ "$_mw_rc" -eq 137 ]; then
        echo "mw_launch: the job was stopped by its time limit of ${MW_TIMEOUT:-120} s (MW_TIMEOUT)" >&2
    fi
    return "$_mw_rc"
}

# describe_rc RC: a run's status in words (124 and 137: mw_launch's time limit,
# which the job's stderr names).
describe_rc() {
    if [ "$1" -eq 124 ] || [ "$1" -eq 137 ]; then
        echo "timed out (status $1: the run's time limit, named at the end of its stderr)"
    else
        echo "status $1"
    fi
}
