#!/usr/bin/env bash
# mpiwatch --dump (docs/partial-reports.md) on a hung job (hang.c, 4 ranks:
# rank 0 in an MPI_Recv nobody sends to, the others in an MPI_Barrier it
# never joins), with the live monitor on (file:PORTS): once rank 0 says it
# is hung, `mpiwatch --dump -f PORTS` has every rank write its partial
# profile, rank 0's from inside MPI_Recv: each rank's file appears (polled,
# with a generous guard; the delay is printed), of the report schema, taken
# because of the dump, with the 10 MPI_Allreduce calls each rank made, and
# `mpiwatch --merge` makes the job report of all 4. A client given a wrong
# token gets no file. The job is then ended by its time limit. The same
# through node leaders (MPIWATCH_NODE_SIZE=2: ranks 1 and 3 have no endpoint
# of their own; each leader asks its node's ranks and answers for them).
name=dump
. "$(dirname "$0")/../lib/harness.sh"

need_client
NP=4
build "$rt_dir/hang.c" "$work/hang" plain

# dump_case CASE VIA [VAR=VALUE...]: the hung job in $work/CASE with the
# live monitor on (and VAR=VALUE...), VIA ranks of it published as watched
# through a leader, asked by `mpiwatch --dump -f PORTS`.
MW_VIA_WORD=via   # include/mpiwatch_protocol.h's MWP_ENDPOINT_VIA
dump_case() {
    local case=$1 via=$2 dir="$work/$1" job bad start dump_rc delay problems rank f out
    shift 2
    mkdir -p "$dir/cwd"
    MW_TIMEOUT=${MW_DUMP_TIMEOUT:-40} run "$dir" "$NP" preload MPIWATCH_OUTDIR="$dir/cwd" \
        MPIWATCH_MONITOR="file:$dir/ports" MPIWATCH_TRANSPORT=tcp "$@" -- "$work/hang" &
    job=$!
    # Hung: rank 0 has said so and every rank has published its endpoint.
    for _ in $(seq 300); do
        grep -q '^hung$' "$dir/stdout" 2>/dev/null && [ -f "$dir/ports" ] && break
        sleep 0.1
    done
    if ! grep -q '^hung$' "$dir/stdout" 2>/dev/null || [ ! -f "$dir/ports" ]; then
        fail "$case: hung job" "no 'hung' line or no port file within 30 s" "$dir/stdout" "$dir/stderr"
        wait "$job"
        return
    fi
    sleep 0.5   # rank 0 inside MPI_Recv, the others in MPI_Barrier
    if [ "$(grep -c " $MW_VIA_WORD " "$dir/ports")" -ne "$via" ]; then
        fail "$case: the port file" "not $via ranks published as watched through a leader" "$dir/ports"
    fi

    # A wrong token: refused, no file.
    bad=$(sed -n '1s/[0-9a-f]\{32\}$/00000000000000000000000000000000/p' "$dir/ports")
    if "$client" --dump --wait 10 "$bad" >"$dir/bad.out" 2>"$dir/bad.err" ||
            ls "$dir"/cwd/*-partial.json >/dev/null 2>&1; then
        fail "$case: --dump with a wrong token" "status 0 or a partial file was written" "$dir/bad.err"
    else
        pass "$case: --dump with a wrong token: refused, no file"
    fi

    start=$(date +%s.%N)
    "$client" --dump --wait 20 -f "$dir/ports" >"$dir/dump.out" 2>"$dir/dump.err"
    dump_rc=$?
    for _ in $(seq 300); do
        [ "$(ls "$dir"/cwd/*-rank*-partial.json 2>/dev/null | wc -l)" -ge "$NP" ] && break
        sleep 0.1
    done
    delay=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.3f", b - a }')
    note "$case: every rank's file there ${delay} s after the request"
    problems=""
    [ "$dump_rc" -eq 0 ] || problems="$problems mpiwatch --dump exited $dump_rc;"
    for rank in $(seq 0 $((NP - 1))); do
        f=$(ls "$dir"/cwd/mpiwatch-hang-"$NP"r-*-rank"$rank"-partial.json 2>/dev/null)
        if [ "$(printf '%s\n' "$f" | grep -c .)" -ne 1 ]; then
            problems="$problems rank $rank has $(printf '%s\n' "$f" | grep -c .) partial files;"
            continue
        fi
        grep -q "^rank $rank: $f\$" "$dir/dump.out" || problems="$problems rank $rank's file not printed;"
        out=$("$PYTHON" "$top_srcdir/tests/lib/report_schema.py" "$f" 2>&1) || problems="$problems $out;"
        [ "$(json_get "$f" partial reason)" = "mpiwatch --dump" ] ||
            problems="$problems rank $rank: reason $(json_get "$f" partial reason);"
        [ "$(json_get "$f" functions MPI_Allreduce calls)" = 10 ] ||
            problems="$problems rank $rank: $(json_get "$f" functions MPI_Allreduce calls) MPI_Allreduce calls, not 10;"
    done
    if [ -n "$problems" ]; then
        fail "$case: --dump: every rank's partial profile" "$problems" "$dir/dump.out" "$dir/dump.err" \
            "$dir/stderr"
    else
        pass "$case: --dump: every rank's partial profile, the hung rank's included, in ${delay} s"
    fi
    # Merged while the job still hangs (its end replaces the files: the signals').
    check_merged "$case: --dump: mpiwatch --merge, all $NP ranks" "$dir/cwd" "$NP" \
        --reason "mpiwatch --dump" --calls MPI_Allreduce $((NP * 10)) $((NP * 10))
    wait "$job"
}

dump_case direct 0
dump_case leaders 2 MPIWATCH_NODE_SIZE=2
finish
