# Shell helpers to start MPI jobs the same way with Open MPI and MPICH.
# Source it; needs MPIRUN and MPI_FLAVOR (openmpi or mpich) in the environment.

# mw_launch NP [VAR=VALUE ...] -- PROGRAM [ARGS...]
# Runs PROGRAM on NP ranks with the given variables set in every rank,
# under a time limit so that a hung job fails the test instead of CI.
# MW_MPIRUN_ARGS: more options for mpirun (e.g. Open MPI's --ompi-server).
mw_launch() {
    np=$1; shift
    envs=""
    while [ "$#" -gt 0 ] && [ "$1" != "--" ]; do
        envs="$envs $1"; shift
    done
    [ "$#" -gt 0 ] && shift
    case "$MPI_FLAVOR" in
        openmpi)
            set -- --oversubscribe ${MW_MPIRUN_ARGS:-} -np "$np" $(for e in $envs; do printf -- '-x %s ' "$e"; done) "$@"
            OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
                timeout "${MW_TIMEOUT:-120}" "$MPIRUN" "$@" ;;
        *)
            set -- ${MW_MPIRUN_ARGS:-} -n "$np" $(for e in $envs; do printf -- '-genv %s %s ' "${e%%=*}" "${e#*=}"; done) "$@"
            timeout "${MW_TIMEOUT:-120}" "$MPIRUN" "$@" ;;
    esac
}
