#!/usr/bin/env bash
# The monitor's options, with args.c (prints its arguments after MPI_Init)
# linked with libmpiwatch on 2 ranks:
# - --port-in-stdout, --port-in-stderr and --port-in-file FILE are taken out
#   of argv, through MPI_Init and MPI_Init_thread; --help, the others and
#   everything after "--" stay;
# - --port-in-stdout/stderr publish one endpoint line per rank there, and
#   --port-in-file in the file, which rank 0 removes at MPI_Finalize;
# - --help prints mpiwatch's options once (rank 0) and the program runs on,
#   seeing --help itself (so it prints its own help too);
# - a port file on a full file system: none is published, one warning;
# - a job started by MPI_Comm_spawn publishes to PATH.spawn1, not over its
#   parent's PATH, and the client can watch it there;
# - endpoints published into an output file that others can read: one
#   warning (a singleton, whose standard output is the file itself);
# - MPIWATCH_TRANSPORT=mpi (whose ports need MPI_THREAD_MULTIPLE) leaves the
#   program the thread level it asked for, in provided and MPI_Query_thread;
# - --port-in-file without FILE, and bad MPIWATCH_MONITOR, _TRANSPORT,
#   _WAIT, _MONITOR_BUFFER, _MONITOR_INTERVAL, _MONITOR_NICE values: one
#   warning naming the flag or variable and the value; the program runs as
#   usual;
# - priority: while MPIWATCH_WAIT holds MPI_Init, each rank's monitor thread
#   runs 19 nice steps lower (the default MPIWATCH_MONITOR_NICE; at most
#   19), or 5 when asked, and the program's own thread keeps its nice value.
name=monitor-options
. "$(dirname "$0")/../lib/harness.sh"

NP=2
mon_dir="$top_srcdir/tests/monitor"
build "$mon_dir/args.c" "$work/args" linked

# case NAME WANT_STDOUT_FIRST_LINE [VAR=VALUE...] -- ARGS...
check_args() {
    local case=$1 want=$2 dir="$work/$1"
    shift 2
    run "$dir" "$NP" linked "$@"
    local rc got
    rc=$(rc_of "$dir")
    got=$(grep '^argc' "$dir/stdout")
    if [ "$rc" -ne 0 ]; then
        fail "$case" "$(describe_rc "$rc")" "$dir/stdout" "$dir/stderr"
        return 1
    elif [ "$got" != "$want" ]; then
        fail "$case" "the program saw '$got', expected '$want'" "$dir/stdout"
        return 1
    fi
    pass "$case: the program sees '$want'"
}

for init in init thread; do
    extra=()
    [ "$init" = thread ] && extra=(MW_ARGS_THREAD=1)
    if check_args "stdout-$init" "argc 3: [a] [b]" ${extra[@]+"${extra[@]}"} -- "$work/args" a --port-in-stdout b; then
        n=$(grep -c '^mpiwatch-endpoint 1 [01] 2 tcp [^ ]* [0-9]* [0-9a-f]\{32\}$' "$work/stdout-$init/stdout")
        if [ "$n" -eq "$NP" ]; then pass "stdout-$init: one endpoint line per rank on stdout"
        else fail "stdout-$init: endpoint lines" "$n lines, expected $NP" "$work/stdout-$init/stdout"; fi
    fi
done
if check_args stderr "argc 2: [x]" -- "$work/args" --port-in-stderr x; then
    n=$(grep -c '^mpiwatch-endpoint 1 ' "$work/stderr/stderr")
    if [ "$n" -eq "$NP" ]; then pass "stderr: one endpoint line per rank on stderr"
    else fail "stderr: endpoint lines" "$n lines, expected $NP" "$work/stderr/stderr"; fi
fi
# MPIWATCH_WAIT holds MPI_Init 3 s for a client, so the file can be seen
# before rank 0 removes it at MPI_Finalize.
keep_copy "$work/ports" "$work/ports.seen"
if check_args file "argc 3: [--] [--port-in-stdout]" MPIWATCH_WAIT=3 -- "$work/args" --port-in-file "$work/ports" -- --port-in-stdout; then
    wait "$keep_pid"
    if [ "$(grep -c '^mpiwatch-endpoint' "$work/ports.seen" 2>/dev/null)" -eq "$NP" ] &&
       ! grep -q mpiwatch-endpoint "$work/file/stdout"; then
        pass "file: the endpoints are in the file only; flags after -- are left alone"
    else
        fail "file: port file" "expected $NP lines in the file and none on stdout" "$work/file/stdout"
    fi
    if [ -e "$work/ports" ]; then
        fail "file: removed" "the port file is still there after the job" "$work/ports"
    else
        pass "file: rank 0 removed the port file at MPI_Finalize"
    fi
fi
if check_args help "argc 3: [--help] [y]" -- "$work/args" --help y; then
    n=$(grep -c '^mpiwatch options' "$work/help/stdout")
    if [ "$n" -eq 1 ] && grep -q -- '--port-in-file FILE' "$work/help/stdout"; then
        pass "help: the options are printed once"
    else
        fail "help: output" "$n help texts" "$work/help/stdout"
    fi
fi

# The thread level with MPI ports, which mpiwatch needs at MULTIPLE (3): the
# program sees what it would see bare, SINGLE (0) after MPI_Init and
# FUNNELED (1) after asking for it.
for init in init thread; do
    extra=() want="level provided -1 query 0"
    [ "$init" = thread ] && extra=(MW_ARGS_THREAD=1) want="level provided 1 query 1"
    dir="$work/level-$init"
    run "$dir" "$NP" linked MPIWATCH_TRANSPORT=mpi ${extra[@]+"${extra[@]}"} \
        -- "$work/args" --port-in-file "$work/level-ports-$init"
    got=$(grep '^level' "$dir/stdout" || true)
    if [ "$(rc_of "$dir")" -eq 0 ] && [ "$got" = "$want" ]; then
        pass "level-$init: with MPIWATCH_TRANSPORT=mpi the program sees '$want'"
    else
        fail "level-$init" "status $(rc_of "$dir"), the program saw '$got', expected '$want'" \
            "$dir/stdout" "$dir/stderr"
    fi
done

# A job started by MPI_Comm_spawn inherits MPIWATCH_MONITOR=file:PATH: the
# children publish to PATH.spawn1 and say so; the parent's PATH stays as it
# was; the client watches the children through PATH.spawn1; both files are
# removed when the jobs end.
build "$mon_dir/spawn.c" "$work/spawn" linked
dir="$work/spawned"
mkdir -p "$dir"
ports="$dir/ports"
keep_copy "$ports" "$dir/parent.first"
k1=$keep_pid
keep_copy "$ports.spawn1" "$dir/children.seen"
k2=$keep_pid
(for _ in $(seq 600); do [ -s "$ports.spawn1" ] && break; sleep 0.1; done
 sleep 1; cp "$ports" "$dir/parent.later" 2>/dev/null) &
k3=$!
("$top_builddir/mpiwatch" --json --no-events --quiet --wait 30 -f "$ports.spawn1" >"$dir/client.jsonl" \
     2>"$dir/client.err") &
k4=$!
run "$dir" 2 linked MPIWATCH_MONITOR="file:$ports" -- "$work/spawn" 2 4
wait "$k1" "$k2" "$k3" "$k4"
if [ "$(rc_of "$dir")" -ne 0 ] || ! grep -q '^spawn: the parent spawned 2 children$' "$dir/stdout"; then
    skip "spawned" "MPI_Comm_spawn did not work under $MPIRUN here ($(describe_rc "$(rc_of "$dir")")): $(tail -n 3 "$dir/stderr" | tr '\n' ' ' | head -c 300)"
else
    if [ "$(grep -c '^mpiwatch-endpoint 1 [01] 2 tcp ' "$dir/children.seen" 2>/dev/null)" -eq 2 ] &&
       cmp -s "$dir/parent.first" "$dir/parent.later" &&
       ! grep -qxFf "$dir/parent.first" "$dir/children.seen" &&
       grep -q "mpiwatch: .*started by MPI_Comm_spawn: its monitor endpoints are in $ports.spawn1" "$dir/stderr"; then
        pass "spawned: the children publish to ports.spawn1 and say so; the parent's file is untouched"
    else
        fail "spawned: files" "the children's endpoints are not in ports.spawn1 alone, or no note" \
            "$dir/parent.first" "$dir/parent.later" "$dir/children.seen" "$dir/stderr"
    fi
    if grep -q '^{"type":"totals","ranks":2,"finished":2,' "$dir/client.jsonl"; then
        pass "spawned: mpiwatch -f ports.spawn1 watched both children to their goodbye"
    else
        fail "spawned: client" "no totals line with 2 finished ranks" "$dir/client.jsonl" "$dir/client.err"
    fi
    if [ -e "$ports" ] || [ -e "$ports.spawn1" ]; then
        fail "spawned: removed" "a port file outlived its job: $(ls "$dir")"
    else
        pass "spawned: both port files removed at MPI_Finalize"
    fi
fi

# A full file system (a 4 KiB tmpfs, filled): no port file is published, not
# even an empty one a client would wait on forever; one warning says why,
# and the job runs as usual.
full="$work/full"
mkdir -p "$full"
if [ "$(id -u)" -ne 0 ] || ! mount -t tmpfs -o size=4k tmpfs "$full" 2>/dev/null; then
    skip "full-fs" "cannot mount a small tmpfs here (needs root)"
else
    dd if=/dev/zero of="$full/filler" bs=4096 count=1 2>/dev/null
    dir="$work/full-fs"
    run "$dir" "$NP" linked -- "$work/args" --port-in-file "$full/ports"
    if [ "$(rc_of "$dir")" -ne 0 ] || ! grep -q '^argc 1:$' "$dir/stdout"; then
        fail "full-fs: run" "$(describe_rc "$(rc_of "$dir")")" "$dir/stdout" "$dir/stderr"
    elif [ -e "$full/ports" ] || ls "$full" | grep -q mpiwatch-tmp; then
        fail "full-fs: no file" "a port file (or its temporary) is left on the full file system: $(ls -la "$full")"
    elif grep 'mpiwatch:' "$dir/stderr" | grep -q "$full/ports"; then
        pass "full-fs: no port file published on a full file system, and a warning names it"
    else
        fail "full-fs: warning" "no warning names $full/ports" "$dir/stderr"
    fi
    umount "$full"
fi

# Tokens in an output file others can read: a singleton (no launcher, so the
# rank's standard output is the file itself) warns once at mode 644, and
# not at mode 600.
for mode in 644 600; do
    out="$work/exposed-$mode.out"
    : >"$out"
    chmod "$mode" "$out"
    (cd "$work" && OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 MPIWATCH_FORMATS=none \
         timeout 60 "$work/args" --port-in-stdout >>"$out" 2>"$work/exposed-$mode.err" </dev/null)
    n=$(grep -c "mpiwatch: .*tokens, go to standard output, a file others can read (mode $mode)" \
        "$work/exposed-$mode.err" || true)
    want=0
    [ "$mode" = 644 ] && want=1
    if ! grep -q '^mpiwatch-endpoint 1 0 1 tcp ' "$out"; then
        skip "exposed-$mode" "the program did not run as a singleton here: $(head -c 300 "$work/exposed-$mode.err")"
    elif [ "$n" -eq "$want" ]; then
        pass "exposed-$mode: endpoints in an output file of mode $mode: $want warning(s)"
    else
        fail "exposed-$mode" "$n warnings, expected $want" "$work/exposed-$mode.err"
    fi
done

# warns CASE WHAT VALUE [VAR=VALUE...] -- ARGS: exactly one mpiwatch line, naming WHAT and VALUE.
warns() {
    local case=$1 what=$2 value=$3 dir="$work/$1"
    shift 3
    run "$dir" "$NP" linked "$@"
    local rc lines
    rc=$(rc_of "$dir")
    lines=$(grep -c 'mpiwatch:' "$dir/stderr" || true)
    if [ "$rc" -ne 0 ] || ! grep -q '^argc 1:$' "$dir/stdout"; then
        fail "$case" "the program did not run as usual: $(describe_rc "$rc")" "$dir/stdout" "$dir/stderr"
    elif [ "$lines" -ne 1 ] || ! grep 'mpiwatch:' "$dir/stderr" | grep -q -- "$what" ||
         ! grep 'mpiwatch:' "$dir/stderr" | grep -q -- "$value"; then
        fail "$case" "expected one warning naming $what and $value" "$dir/stderr"
    else
        pass "$case: one warning naming $what and $value"
    fi
}
warns no-file --port-in-file "needs a FILE" -- "$work/args" --port-in-file
warns bad-monitor MPIWATCH_MONITOR "'sideways'" MPIWATCH_MONITOR=sideways -- "$work/args"
warns bad-transport MPIWATCH_TRANSPORT "'udp'" MPIWATCH_TRANSPORT=udp -- "$work/args"
warns bad-wait MPIWATCH_WAIT "'soon'" MPIWATCH_WAIT=soon -- "$work/args"
warns bad-buffer MPIWATCH_MONITOR_BUFFER "'-5'" MPIWATCH_MONITOR_BUFFER=-5 -- "$work/args"
warns bad-interval MPIWATCH_MONITOR_INTERVAL "'0'" MPIWATCH_MONITOR_INTERVAL=0 -- "$work/args"
warns bad-nice MPIWATCH_MONITOR_NICE "'20'" MPIWATCH_MONITOR_NICE=20 -- "$work/args"
warns bad-nice-fraction MPIWATCH_MONITOR_NICE "'2.5'" MPIWATCH_MONITOR_NICE=2.5 -- "$work/args"

# thread_nices PID: "MAIN: OTHERS" -- the nice value of the process's main
# thread, then those of its other threads, sorted.
thread_nices() {
    local pid=$1 main others t
    main=$(sed 's/.*) //' "/proc/$pid/stat" | cut -d' ' -f17)
    others=$(for t in /proc/"$pid"/task/*; do
                 [ "${t##*/}" = "$pid" ] || sed 's/.*) //' "$t/stat" | cut -d' ' -f17
             done | sort -n | tr '\n' ' ')
    echo "$main: $others"
}

# priority CASE STEP [VAR=VALUE...]: per rank, the main thread at the nice
# value this suite runs at (0, or more under `nice make check`) and exactly
# one thread (the monitor's sender) STEP higher (at most 19), sampled while
# MPIWATCH_WAIT holds MPI_Init; a raw client then lets the job go on.
base=$(nice)
priority() {
    local case=$1 want=$(($2 + base > 19 ? 19 : $2 + base)) dir="$work/$1"
    shift 2
    mkdir -p "$dir/cwd"
    (
        for _ in $(seq 200); do
            [ -f "$dir/cwd/ports" ] && break
            sleep 0.1
        done
        for p in $(pgrep -f "$work/args"); do
            [ "$(readlink "/proc/$p/exe")" = "$work/args" ] && echo "$(thread_nices "$p")"
        done >"$dir/nices"
        "$PYTHON" "$mon_dir/raw_client.py" "$dir/cwd/ports" --timeout 50 >"$dir/client.json" \
            2>"$dir/client.err"
    ) &
    local sampler=$!
    run "$dir" "$NP" linked MPIWATCH_MONITOR=file:ports MPIWATCH_WAIT=30 "$@" -- "$work/args"
    wait "$sampler"
    local rc ranks good
    rc=$(rc_of "$dir")
    ranks=$(grep -c . "$dir/nices")
    good=$(awk -v w="$want" '{n = 0; for (i = 2; i <= NF; i++) if ($i == w) n++}
                            $1 == b":" && n == 1 {g++} END {print g + 0}' b="$base" "$dir/nices")
    if [ "$rc" -ne 0 ] || ! grep -q '^argc 1:$' "$dir/stdout"; then
        fail "$case" "the program did not run as usual: $(describe_rc "$rc")" "$dir/stdout" "$dir/stderr"
    elif [ "$ranks" -ne "$NP" ] || [ "$good" -ne "$NP" ]; then
        fail "$case" "expected $NP ranks, each with its main thread at nice $base and one thread at $want (MAIN: OTHERS per rank)" \
            "$dir/nices" "$dir/stderr"
    else
        pass "$case: each rank's monitor thread at nice $want, the program's at $base"
    fi
}
priority priority-default 19
priority priority-5 5 MPIWATCH_MONITOR_NICE=5

finish
