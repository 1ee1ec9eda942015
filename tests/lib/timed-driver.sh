#!/bin/sh
# Automake's TAP driver, timed: runs build-aux/tap-driver.sh with the same
# arguments and writes the suite's wall time in seconds to the .time file
# beside its .trs (tools/test-all.sh prints them, slowest first, so that a
# change sees what the suite costs). The driver's status is passed on.
#   timed-driver.sh TAP-DRIVER [DRIVER ARGUMENTS...]
driver=$1
shift
trs=""
prev=""
for arg in "$@"; do
    [ "$prev" = --trs-file ] && trs=$arg
    prev=$arg
done
start=$(date +%s.%N)
rc=0
"$SHELL" "$driver" "$@" || rc=$?
end=$(date +%s.%N)
[ -n "$trs" ] && awk -v a="$start" -v b="$end" 'BEGIN { printf "%.1f\n", b - a }' >"${trs%.trs}.time"
exit "$rc"
