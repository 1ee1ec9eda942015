#!/usr/bin/env bash
# The test library's launcher (tests/lib/launch.sh): a job past its time
# limit is stopped, and its stderr names the limit that was in force (a
# caller describing the status may have another MW_TIMEOUT); a job that ends
# by itself gets no such line; launch_lost knows Open MPI's lost process in
# either of its wrappings, and nothing else.
needs_library=no
. "$(dirname "$0")/../lib/harness.sh"

dir="$work/limit"
mkdir -p "$dir"
MW_TIMEOUT=3 MW_KILL_AFTER=2 mw_launch 1 -- sleep 120 >"$dir/stdout" 2>"$dir/stderr"
rc=$?
if { [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; } &&
        grep -q '^mw_launch: the job was stopped by its time limit of 3 s (MW_TIMEOUT)$' "$dir/stderr"; then
    pass "a job past MW_TIMEOUT=3 is stopped (status $rc) and its stderr names the 3 s"
else
    fail "time limit" "status $rc, or no line naming the 3 s limit" "$dir/stderr"
fi
if describe_rc "$rc" | grep -q 'time limit'; then
    pass "describe_rc says the run's time limit stopped it"
else
    fail "describe_rc" "it says: $(describe_rc "$rc")"
fi

dir="$work/in-time"
mkdir -p "$dir"
MW_TIMEOUT=60 mw_launch 1 -- true >"$dir/stdout" 2>"$dir/stderr"
rc=$?
if [ "$rc" -eq 0 ] && ! grep -q 'time limit' "$dir/stderr"; then
    pass "a job that ends in time: status 0, no time-limit line"
else
    fail "in time" "status $rc" "$dir/stderr"
fi
# launch_lost on Open MPI's message as it wraps it (rank 5: one line; rank
# 53: "on" / "node" split), and on another failure.
lost() {
    mkdir -p "$work/$1"
    echo 1 >"$work/$1/rc"
    printf '%b' "$2" >"$work/$1/stderr"
}
lost one-line 'mpirun.openmpi has exited due to process rank 5 with PID 0 on node vm exiting\nimproperly.\n'
lost wrapped 'mpirun.openmpi has exited due to process rank 53 with PID 0 on\nnode vm exiting improperly.\n'
lost other 'mpirun.openmpi noticed that process rank 3 with PID 4242 on node vm exited on\nsignal 9 (Killed).\n'
if launch_lost "$work/one-line" && launch_lost "$work/wrapped" && ! launch_lost "$work/other"; then
    pass "launch_lost: Open MPI's lost process on one line or wrapped, not another failure"
else
    fail "launch_lost" "one line: $(launch_lost "$work/one-line" && echo yes || echo no), wrapped: $(launch_lost "$work/wrapped" && echo yes || echo no), other: $(launch_lost "$work/other" && echo yes || echo no)"
fi
finish
