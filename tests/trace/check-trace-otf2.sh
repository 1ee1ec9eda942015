#!/usr/bin/env bash
# The OTF2 archive (docs/trace.md, "OTF2"): the archive written at
# MPI_Finalize and `mpiwatch --trace DIR --otf2 OUT`, on traced runs of 4
# ranks, preloaded: examples/ring.c, tests/trace/delays.c's ring of
# MPI_Sendrecv (an MpiSend and an MpiRecv each), tests/trace/nonblocking.c (requests,
# wildcard receives, roots, a polling loop), tests/runtime/threads.c (4
# threads a rank, MPI_THREAD_MULTIPLE) and examples/halo.f90 (Fortran). For
# each: an archive was written at MPI_Finalize without a warning, the
# conversion exits 0, and for both archives otf2-print reads it (exit 0) and
# tests/trace/otf2_check.py, reading it with Debian's python3-otf2, finds
# per function as many calls as the JSON report, the report's matrix of
# messages and bytes, every receive matched to one send in non-overtaking
# order (and every send to one receive), every matched send entered before
# its receive left on the one clock, times that never decrease per
# location, every non-blocking request completed. A second conversion into
# the same folder is refused (exit 1), naming it. MPIWATCH_TRACE_OTF2=0
# writes no archive, a bad value is warned about once. With --exe PROGRAM
# (ring.c without PIE) every send's and receive's Enter names its line of
# ring.c (mpiwatch::site); a PIE program is said. A job SIGKILLed
# (tests/runtime/forever.c) leaves files that convert into an archive
# otf2-print reads, with exactly the calls of the files' whole chunks.
# The archive at MPI_Finalize is written by every rank when each has its file
# (every location has mapping tables) and reads (otf2-print, -G) as the
# converted one; a rank whose file is gone (tests/trace/lost_file.c) warns
# once and the others' part is written.
# Split communicators (tests/trace/split_comms.c, and tests/trace/split_f08.f90
# in `use mpi_f08`, skipped without its module): each its own OTF2 group,
# ranks in events within it, collectives' roots alike on every member.
# In the threads case, every file defines the 4 duplicates of MPI_COMM_WORLD
# alike (tests/trace/trace_check.py comms), so that MPICH's ranks, whose
# handles of them differ, are matched. SKIP without OTF2 in this build,
# otf2-print, or python3-otf2.
name=trace-otf2
. "$(dirname "$0")/../lib/harness.sh"

NP=4
check="$top_srcdir/tests/trace/otf2_check.py"
need_client
if [ "$MW_HAVE_OTF2" != yes ]; then
    skip_all "$name: this mpiwatch is built without OTF2 (install libotf2-trace-dev)"
fi
if ! command -v otf2-print >/dev/null 2>&1; then
    skip_all "$name: otf2-print is not installed (Debian: otf2-tools)"
fi
otf2_python=
for py in "$PYTHON" /usr/bin/python3 python3; do
    if "$py" -c 'import otf2' >/dev/null 2>&1; then otf2_python=$py; break; fi
done
if [ -z "$otf2_python" ]; then
    skip_all "$name: no Python with the otf2 module (Debian: python3-otf2)"
fi

# readable CASE ANCHOR REPORT DIR: otf2-print reads the archive ANCHOR and
# the checker finds in it what the JSON REPORT says (their output in DIR).
readable() {
    local case=$1 anchor=$2 report=$3 dir=$4 log
    if otf2-print "$anchor" >"$dir/print.out" 2>"$dir/print.err"; then
        pass "$case: otf2-print reads it ($(grep -c . "$dir/print.out") lines)"
    else
        fail "$case: otf2-print" "exit status $?" "$dir/print.err"
    fi
    log="$dir/check.log"
    if "$otf2_python" "$check" "$anchor" "$report" >"$log" 2>&1; then
        pass "$case: as the report: $(tail -n 1 "$log")"
    else
        fail "$case: as the report" "$(head -n 5 "$log")" "$log"
    fi
}

# archive CASE DIR: the traced run in DIR (status 0) wrote an archive at
# MPI_Finalize, and its files convert; both read and check as the report.
archive() {
    local case=$1 dir=$2 log anchor report
    if [ "$(rc_of "$dir")" -ne 0 ]; then
        fail "$case: run" "$(describe_rc "$(rc_of "$dir")")" "$dir/stdout" "$dir/stderr"
        return
    fi
    report="$dir/cwd/$(reports "$dir/cwd" 'mpiwatch-*.json' | head -n 1)"
    anchor=$(ls -d "$dir"/cwd/mpiwatch-*.otf2/traces.otf2 2>/dev/null)
    if [ -f "$anchor" ] && ! grep -q warning "$dir/stderr"; then
        pass "$case: the archive written at MPI_Finalize, no warning"
        mkdir -p "$dir/at-finalize"
        readable "$case, at MPI_Finalize" "$anchor" "$report" "$dir/at-finalize"
    else
        fail "$case: the archive written at MPI_Finalize" "none (or a warning)" "$dir/stderr"
    fi
    log="$dir/convert.log"
    if "$client" --trace "$dir/cwd" --otf2 "$dir/otf2" >"$log" 2>&1; then
        pass "$case: converted: $(tail -n 1 "$log")"
    else
        fail "$case: converted" "$(head -n 3 "$log")" "$log"
        return
    fi
    readable "$case, converted" "$dir/otf2/traces.otf2" "$report" "$dir"
    same_archives "$case" "$anchor" "$dir/otf2/traces.otf2" "$dir"
}

# same_archives CASE AT_FINALIZE CONVERTED DIR: the archive at MPI_Finalize
# was written by every rank (each location has its mapping tables, which
# only the parallel writer writes) and reads as the converted one: the
# same events and global definitions (otf2-print, otf2-print -G).
same_archives() {
    local case=$1 anchor=$2 converted=$3 dir=$4 tables locations
    [ -f "$anchor" ] || return
    otf2-print -M "$anchor" >"$dir/mappings.out" 2>&1
    tables=$(grep -c '^MAPPING_TABLE .*Type: COMM' "$dir/mappings.out")
    locations=$(otf2-print -G "$anchor" | grep -c '^LOCATION ')
    if [ "$tables" -gt 0 ] && [ "$tables" -eq "$locations" ]; then
        pass "$case: the archive at MPI_Finalize written by every rank ($tables locations' mapping tables)"
    else
        fail "$case: the archive at MPI_Finalize written by every rank" \
            "$tables locations' mapping tables of $locations" "$dir/mappings.out"
    fi
    otf2-print "$anchor" >"$dir/finalize-events.out" 2>&1
    otf2-print "$converted" >"$dir/converted-events.out" 2>&1
    otf2-print -G "$anchor" >"$dir/finalize-defs.out" 2>&1
    otf2-print -G "$converted" >"$dir/converted-defs.out" 2>&1
    if cmp -s "$dir/finalize-events.out" "$dir/converted-events.out" &&
            cmp -s "$dir/finalize-defs.out" "$dir/converted-defs.out"; then
        pass "$case: reads as the converted archive ($(grep -c . "$dir/finalize-events.out") lines of events, $(grep -c . "$dir/finalize-defs.out") of definitions alike)"
    else
        fail "$case: reads as the converted archive" \
            "$(diff "$dir/finalize-events.out" "$dir/converted-events.out" | head -n 2; diff "$dir/finalize-defs.out" "$dir/converted-defs.out" | head -n 2)"
    fi
}

# split_groups CASE DIR: both archives of a split_comms run in DIR define
# the communicators' own groups, as world ranks: the even, the odd, and all
# ranks backwards (the checker's last line says them).
split_groups() {
    local case=$1 dir=$2 log groups want="[0, 2] [1, 3] [3, 2, 1, 0]"
    for log in "$dir/at-finalize/check.log" "$dir/check.log"; do
        groups=$(tail -n 1 "$log" 2>/dev/null | sed -n 's/.*own groups (world ranks): //p')
        if [ "$groups" = "$want" ]; then
            pass "$case: their own groups in ${log#"$dir"/}: $groups"
        else
            fail "$case: their own groups in ${log#"$dir"/}" \
                "want $want, found: ${groups:-none}" "$log"
        fi
    done
}

build "$top_srcdir/examples/ring.c" "$work/ring" plain
run "$work/ring-run" "$NP" preload MPIWATCH_TRACE=1 MPIWATCH_FORMATS=json -- "$work/ring"
archive "ring" "$work/ring-run"
if "$client" --trace "$work/ring-run/cwd" --otf2 "$work/ring-run/otf2" >"$work/again.log" 2>&1; then
    fail "ring: converted again" "exit 0 into a folder that holds an archive"
elif grep -q "already holds an archive" "$work/again.log"; then
    pass "ring: a second archive into the same folder is refused, naming it"
else
    fail "ring: converted again" "$(head -n 2 "$work/again.log")" "$work/again.log"
fi

# Send-receives: tests/trace/delays.c's ring of MPI_Sendrecv (each from
# MPI_ANY_SOURCE, with a status; rank 0 late by 5 ms): each is an MpiSend and
# an MpiRecv, so every receive half is matched to a send and the bytes per
# pair are the report's matrix.
build "$top_srcdir/tests/trace/delays.c" "$work/delays" plain
run "$work/sendrecv-run" "$NP" preload MPIWATCH_TRACE=1 MPIWATCH_FORMATS=json \
    -- "$work/delays" late-sender-sendrecv 5
archive "sendrecv ring" "$work/sendrecv-run"

# --exe PROGRAM: the call sites as source code locations. examples/ring.c
# built with -g and without PIE: every Enter of MPI_Send and MPI_Recv has
# the attribute mpiwatch::site naming ring.c and a line where the function
# is called. A position-independent program: said, and converted without.
src="$top_srcdir/examples/ring.c"
dir=$work/sites
if ! $MPICC -g -no-pie -o "$work/ring-nopie" "$src" >"$work/ring-nopie.log" 2>&1; then
    fail "--exe: build" "$MPICC -g -no-pie could not build examples/ring.c" "$work/ring-nopie.log"
else
    run "$dir" "$NP" preload MPIWATCH_TRACE=1 MPIWATCH_TRACE_OTF2=0 MPIWATCH_FORMATS=json \
        -- "$work/ring-nopie"
    if ! "$client" --trace "$dir/cwd" --otf2 "$dir/otf2" --exe "$work/ring-nopie" \
            >"$dir/convert.log" 2>&1 || ! otf2-print "$dir/otf2/traces.otf2" >"$dir/print.out"; then
        fail "--exe: converted, otf2-print reads it" "$(head -n 3 "$dir/convert.log")" \
            "$dir/convert.log"
    else
        for fn in MPI_Send MPI_Recv; do
            grep -n "$fn(" "$src" | sed "s/:.*//; s/^/$fn ring.c:/"
        done >"$dir/expected"
        awk '/^ENTER/ && /Region: "MPI_(Send|Recv)"/ {
                 if (fn != "") print fn, "none"
                 match($0, /"MPI_[A-Za-z]*"/); fn = substr($0, RSTART + 1, RLENGTH - 2); next }
             fn != "" {
                 site = "none"
                 if (match($0, /"mpiwatch::site" <[0-9]*>; SOURCE_CODE_LOCATION; "[^"]*"/)) {
                     site = substr($0, RSTART, RLENGTH); sub(/.*; "/, "", site); sub(/"$/, "", site)
                 }
                 print fn, site; fn = "" }' "$dir/print.out" >"$dir/sites"
        wrong=$(grep -vxFf "$dir/expected" "$dir/sites" | sort | uniq -c | head -n 3)
        if [ -s "$dir/sites" ] && [ -z "$wrong" ]; then
            pass "--exe: $(wc -l <"$dir/sites") sends and receives at their lines ($(sort -u "$dir/sites" | paste -sd, -)); $(tail -n 1 "$dir/convert.log" | sed 's/.*ranks, //')"
        else
            fail "--exe: sends and receives at their lines" "not at a line of ring.c calling them: ${wrong:-no Enter found}" "$dir/sites"
        fi
    fi
fi
if "$client" --trace "$work/ring-run/cwd" --otf2 "$work/ring-run/otf2-pie" --exe "$work/ring" \
        >"$work/pie.log" 2>&1 && grep -q "position-independent.*call sites are not in the archive" \
        "$work/pie.log"; then
    pass "--exe with a position-independent program: said, and converted without sites"
else
    fail "--exe with a position-independent program" "$(head -n 3 "$work/pie.log")" "$work/pie.log"
fi

# MPIWATCH_TRACE_OTF2=0: the per-rank files and no archive; a bad value: one
# warning naming it, and the default (an archive).
run "$work/otf2-off" "$NP" preload MPIWATCH_TRACE=1 MPIWATCH_TRACE_OTF2=0 MPIWATCH_FORMATS=json \
    -- "$work/ring"
if [ "$(rc_of "$work/otf2-off")" -eq 0 ] && [ -f "$(ls "$work/otf2-off/cwd"/*.trace.0)" ] &&
        ! ls -d "$work/otf2-off/cwd"/*.otf2 >/dev/null 2>&1 &&
        ! grep -q warning "$work/otf2-off/stderr"; then
    pass "MPIWATCH_TRACE_OTF2=0: the per-rank files, no archive, no warning"
else
    fail "MPIWATCH_TRACE_OTF2=0" "$(describe_rc "$(rc_of "$work/otf2-off")"), or an archive, or a warning" \
        "$work/otf2-off/stderr"
fi
run "$work/otf2-bad" "$NP" preload MPIWATCH_TRACE=1 MPIWATCH_TRACE_OTF2=yes \
    MPIWATCH_FORMATS=json -- "$work/ring"
if [ "$(grep -c "MPIWATCH_TRACE_OTF2='yes' is not 0 (off) or 1 (on)" \
        "$work/otf2-bad/stderr")" -eq 1 ] &&
        [ -f "$(ls -d "$work/otf2-bad/cwd"/*.otf2)/traces.otf2" ]; then
    pass "MPIWATCH_TRACE_OTF2=yes: one warning naming it, and the archive (the default)"
else
    fail "MPIWATCH_TRACE_OTF2=yes" "not one warning, or no archive" "$work/otf2-bad/stderr"
fi

# A job killed with SIGKILL (every rank) 3 s after its start, once rank 0 has
# made 30,000 calls (a few chunks a rank; at most 30 s on a loaded machine,
# where MPICH's oversubscribed ranks may not fill one chunk: then the files
# hold no call): its files convert, otf2-print reads the archive, and the
# archive holds, per function, exactly the calls of the files' whole chunks
# (counted by trace_check.py's decoder).
build "$top_srcdir/tests/runtime/forever.c" "$work/forever" plain
dir=$work/killed
MW_TIMEOUT=90 run "$dir" "$NP" preload MPIWATCH_TRACE=1 -- "$work/forever" &
job=$!
sleep 3
waited=3
while [ "$(last_count "$dir/stdout")" -lt 30000 ] && [ "$waited" -lt 30 ]; do
    sleep 1
    waited=$((waited + 1))
done
pids=$(ranks_of "$job" forever)
kill -KILL $pids 2>/dev/null
wait "$job"
note "killed: $(echo $pids | wc -w) ranks SIGKILLed after ${waited} s, rank 0 at $(last_count "$dir/stdout") calls"
files=$(ls "$dir/cwd"/*.trace.* 2>/dev/null)
if [ "$(echo $pids | wc -w)" -ne "$NP" ] || [ "$(echo $files | wc -w)" -ne "$NP" ]; then
    fail "killed: every rank SIGKILLed, a file each" "$(echo $pids | wc -w) ranks, files: $files" \
        "$dir/stderr"
elif ! "$client" --trace "$dir/cwd" --otf2 "$dir/otf2" >"$dir/convert.log" 2>&1; then
    fail "killed: converted" "$(head -n 3 "$dir/convert.log")" "$dir/convert.log"
elif ! otf2-print "$dir/otf2/traces.otf2" >"$dir/print.out" 2>"$dir/print.err"; then
    fail "killed: otf2-print reads the archive" "exit status $?" "$dir/print.err"
else
    pass "killed: converted ($(tail -n 1 "$dir/convert.log")), otf2-print reads it"
    "$PYTHON" "$top_srcdir/tests/trace/trace_check.py" calls $files | LC_ALL=C sort \
        >"$dir/files.calls"
    awk '$1 == "ENTER" { match($0, /Region: "[^"]*"/); n[substr($0, RSTART + 9, RLENGTH - 10)]++ }
         END { for (r in n) print r, n[r] }' "$dir/print.out" | LC_ALL=C sort >"$dir/archive.calls"
    if cmp -s "$dir/files.calls" "$dir/archive.calls"; then
        pass "killed: the archive holds the files' calls: $(paste -sd' ' "$dir/files.calls" | grep . || echo none: no chunk was full before the kill)"
    else
        fail "killed: the archive holds the files' calls" \
            "files: $(paste -sd' ' "$dir/files.calls"); archive: $(paste -sd' ' "$dir/archive.calls")"
    fi
fi

build "$top_srcdir/tests/trace/nonblocking.c" "$work/nonblocking" plain
run "$work/nb" "$NP" preload MPIWATCH_TRACE=1 MPIWATCH_FORMATS=json -- "$work/nonblocking" \
    --polls 1000
archive "non-blocking" "$work/nb"

# Named regions (tests/runtime/regions.c, linked: "setup", "solve" holding
# "inner"): USER regions entered and left around their calls, as many
# entries as the report's, well nested, in both archives.
build "$top_srcdir/tests/runtime/regions.c" "$work/regions" linked
run "$work/regions-run" "$NP" linked MPIWATCH_TRACE=1 MPIWATCH_FORMATS=json -- "$work/regions"
archive "named regions" "$work/regions-run"
# MPI_Pcontrol (tests/runtime/pcontrol.c toggle): the levels 0, 1, 0, 1 set
# as the OTF2 parameter "MPI_Pcontrol level" on every location.
build "$top_srcdir/tests/runtime/pcontrol.c" "$work/pcontrol" plain
run "$work/pcontrol-run" "$NP" preload MPIWATCH_TRACE=1 MPIWATCH_FORMATS=json -- \
    "$work/pcontrol" toggle
archive "MPI_Pcontrol" "$work/pcontrol-run"
for log in "$work/pcontrol-run/at-finalize/check.log" "$work/pcontrol-run/check.log"; do
    if grep -q "MPI_Pcontrol levels on every location: 0,1,0,1" "$log" 2>/dev/null; then
        pass "MPI_Pcontrol: levels 0,1,0,1 in ${log#"$work"/pcontrol-run/}"
    else
        fail "MPI_Pcontrol: levels in ${log#"$work"/pcontrol-run/}" \
            "not 0,1,0,1 on every location: $(tail -n 1 "$log" 2>/dev/null)"
    fi
done

# Split communicators (tests/trace/split_comms.c): each is an OTF2 Comm of
# its own group, the even and the odd world ranks and all of them backwards,
# whose events name ranks within it (the checker turns them into world
# ranks through the group for the matrix and the matching); both archives.
build "$top_srcdir/tests/trace/split_comms.c" "$work/split" plain
run "$work/split-run" "$NP" preload MPIWATCH_TRACE=1 MPIWATCH_FORMATS=json -- "$work/split"
archive "split communicators" "$work/split-run"
split_groups "split communicators" "$work/split-run"

# A rank whose file is gone by MPI_Finalize (tests/trace/lost_file.c: rank
# 2 removes its own): the job's status 0 and its report; rank 2 warns once
# that its part of the archive was not written whole, saying why; the
# archive, written by the others, reads (otf2-print) with the calls of
# ranks 0, 1 and 3 and an empty location for rank 2.
build "$top_srcdir/tests/trace/lost_file.c" "$work/lost" plain
dir=$work/lost-run
run "$dir" "$NP" preload MPIWATCH_TRACE=1 MPIWATCH_FORMATS=json -- "$work/lost"
anchor=$(ls -d "$dir"/cwd/mpiwatch-*.otf2/traces.otf2 2>/dev/null)
if [ "$(rc_of "$dir")" -ne 0 ] || ! grep -q "rank 2 removed" "$dir/stdout" ||
        [ -z "$(reports "$dir/cwd" 'mpiwatch-*.json')" ]; then
    fail "a rank without its file: the job and its report" \
        "$(describe_rc "$(rc_of "$dir")"), or no file removed, or no report" "$dir/stdout" "$dir/stderr"
elif [ "$(grep -c "rank 2: warning: rank 2's part of the trace's OTF2 archive .* was not written whole" "$dir/stderr")" -ne 1 ] ||
        ! grep -q "the OTF2 archive: .*trace.2: No such file or directory; rank 2's locations are empty" "$dir/stderr" ||
        [ "$(grep -c "warning: .*OTF2 archive" "$dir/stderr")" -ne 1 ]; then
    fail "a rank without its file: one warning, from rank 2, saying why" "" "$dir/stderr"
elif ! otf2-print "$anchor" >"$dir/print.out" 2>"$dir/print.err"; then
    fail "a rank without its file: otf2-print reads the archive" "exit status $?" "$dir/print.err"
else
    entered=$(awk '$1 == "ENTER" { n[$2]++ } END { for (l in n) print l / 4294967296 ":" n[l] }' \
        "$dir/print.out" | sort | paste -sd' ' -)
    if [ "$(echo "$entered" | wc -w)" -eq 3 ] && ! echo "$entered" | grep -q '^2:\| 2:'; then
        pass "a rank without its file: status 0, the report, one warning from rank 2; the archive reads, calls of ranks (rank:calls) $entered"
    else
        fail "a rank without its file: the others' calls" "ranks:calls $entered" "$dir/print.out"
    fi
fi

build "$top_srcdir/tests/runtime/threads.c" "$work/threads" plain
run "$work/threads-run" "$NP" preload MPIWATCH_TRACE=1 MPIWATCH_FORMATS=json -- "$work/threads"
if grep -q '^SKIP' "$work/threads-run/stdout"; then
    skip "threads" "$(grep '^SKIP' "$work/threads-run/stdout" | head -n 1 | sed 's/^SKIP: //')"
else
    # Its messages are on 4 duplicates of MPI_COMM_WORLD, which each rank's
    # records name by its own handle (MPICH's differ between ranks): each
    # file defines them (MWT_COMM), numbered 0..3 among the rank's
    # communicators of the world's ranks, for the converter to match them.
    archive "threads (4 a rank, MPI_THREAD_MULTIPLE)" "$work/threads-run"
    log="$work/threads-run/comms.log"
    if "$PYTHON" "$top_srcdir/tests/trace/trace_check.py" comms 4 "$NP" \
            "$work"/threads-run/cwd/*.trace.* >"$log" 2>&1; then
        pass "threads: the communicators defined alike in every file: $(tail -n 1 "$log")"
    else
        fail "threads: the communicators defined alike" "$(head -n 3 "$log")" "$log"
    fi
fi

if [ "$MW_HAVE_FORTRAN" != yes ] || [ ! -f "$LIBMPIWATCH_F" ]; then
    skip "Fortran halo" "this build has no libmpiwatch_f"
elif ! $MPIFC -o "$work/halo" "$top_srcdir/examples/halo.f90" >"$work/halo.log" 2>&1; then
    fail "Fortran halo: build" "$MPIFC could not build examples/halo.f90" "$work/halo.log"
else
    run "$work/halo-run" "$NP" bare LD_PRELOAD="$LIBMPIWATCH:$LIBMPIWATCH_F" MPIWATCH_TRACE=1 \
        MPIWATCH_FORMATS=json -- "$work/halo"
    archive "Fortran halo" "$work/halo-run"
fi

# use mpi_f08 (tests/trace/split_f08.f90): split_comms.c's communicators made
# by the f08 binding, defined in the files as the C binding's are.
printf 'program probe\n use mpi_f08\nend program probe\n' >"$work/f08_probe.f90"
if [ "$MW_HAVE_FORTRAN" != yes ] || [ ! -f "$LIBMPIWATCH_F" ]; then
    skip "use mpi_f08 split communicators" "this build has no libmpiwatch_f"
elif ! (cd "$work" && $MPIFC -o "$work/f08_probe" "$work/f08_probe.f90") >"$work/f08_probe.log" 2>&1; then
    skip "use mpi_f08 split communicators" "$MPIFC has no mpi_f08 module"
elif ! $MPIFC -o "$work/split_f08" "$top_srcdir/tests/trace/split_f08.f90" \
        >"$work/split_f08.log" 2>&1; then
    fail "use mpi_f08: build" "$MPIFC could not build tests/trace/split_f08.f90" \
        "$work/split_f08.log"
else
    run "$work/f08-run" "$NP" bare LD_PRELOAD="$LIBMPIWATCH:$LIBMPIWATCH_F" MPIWATCH_TRACE=1 \
        MPIWATCH_FORMATS=json -- "$work/split_f08"
    archive "use mpi_f08 split communicators" "$work/f08-run"
    split_groups "use mpi_f08 split communicators" "$work/f08-run"
    # tests/trace/halo_f08.f90: TYPE(MPI_Request) handles, completed by
    # MPI_Waitall, MPI_Test polled and MPI_Wait: 20 steps of 4 requests and 2
    # more a rank, each started and completed once in the files.
    if ! $MPIFC -o "$work/halo_f08" "$top_srcdir/tests/trace/halo_f08.f90" \
            >"$work/halo_f08.log" 2>&1; then
        fail "use mpi_f08 halo: build" "$MPIFC could not build tests/trace/halo_f08.f90" \
            "$work/halo_f08.log"
    else
        run "$work/halo-f08-run" "$NP" bare LD_PRELOAD="$LIBMPIWATCH:$LIBMPIWATCH_F" \
            MPIWATCH_TRACE=1 MPIWATCH_FORMATS=json -- "$work/halo_f08"
        archive "use mpi_f08 halo" "$work/halo-f08-run"
        want="$((NP * 82)) requests started, $((NP * 82)) completed"
        got=$("$PYTHON" "$top_srcdir/tests/trace/trace_check.py" requests \
            "$work"/halo-f08-run/cwd/*.trace.* 2>&1 | tail -n 1)
        case $got in
            "$want"*) pass "use mpi_f08 halo: requests: $got" ;;
            *) fail "use mpi_f08 halo: requests" "want '$want', found: $got" ;;
        esac
    fi
fi
finish
