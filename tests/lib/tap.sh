# TAP output for the test scripts (Automake's TAP driver reads it; see the
# README's "Testing"). Source it; POSIX sh. Every case is one line:
#   ok N - NAME                 pass NAME
#   not ok N - NAME: REASON     fail NAME [REASON [FILE...]]  (the files' last
#                               lines follow as "#" comments)
#   ok N - NAME # SKIP WHY      skip NAME WHY
# finish prints the plan (1..N) and a "# N passed, M failed, S skipped"
# comment, and exits 1 after a failure, else 0. skip_all WHY: the whole
# script is skipped (1..0 # SKIP WHY), exit 0. bail_out WHY: a hard error
# (Bail out! WHY), exit 99. The counts are in passed, failed and skipped.

tap_n=0
passed=0
failed=0
skipped=0
# How many lines of each file fail shows (MW_TAP_TAIL).
: "${MW_TAP_TAIL:=30}"

pass() {
    tap_n=$((tap_n + 1))
    passed=$((passed + 1))
    echo "ok $tap_n - $1"
}

skip() {
    tap_n=$((tap_n + 1))
    skipped=$((skipped + 1))
    echo "ok $tap_n - $1 # SKIP $2"
}

# fail NAME [REASON [FILE...]]: the case, the reason, then the last lines of
# each file that is not empty, as TAP comments.
fail() {
    tap_n=$((tap_n + 1))
    failed=$((failed + 1))
    if [ -n "${2:-}" ]; then
        echo "not ok $tap_n - $1: $2"
    else
        echo "not ok $tap_n - $1"
    fi
    [ "$#" -ge 2 ] && shift 2 || shift "$#"
    for _tap_f in "$@"; do
        if [ -s "$_tap_f" ]; then
            echo "#   --- $_tap_f (last $MW_TAP_TAIL lines)"
            tail -n "$MW_TAP_TAIL" "$_tap_f" | sed 's/^/#   /'
        fi
    done
}

# note TEXT: a comment line in the TAP stream.
note() {
    echo "# $*"
}

# figure NAME VALUE UNIT TARGET: a measured figure with the target it is meant
# to meet, as a TAP comment ("# figure: NAME VALUE UNIT (target TARGET)").
# It never decides a case: how fast something happens depends on how busy the
# machine is, so tests check that it happens (under a generous guard against
# hangs) and leave the figure to tools/test-all.sh's summary and to
# bench/run-latency.sh, which judges it against the target. (Instruction
# counts are exact, not a matter of load: tests/runtime/check-cost.sh prints
# them as figures and judges them in cases of their own.)
figure() {
    echo "# figure: $1 $2 $3 (target $4)"
}

# tap_relay NAME COMMAND...: run COMMAND, which prints TAP of its own, and
# report its cases as this script's (renumbered; its plan is dropped). If it
# exits with a non-zero status and reported no failure, or reported no case
# at all, that is a failure of NAME.
tap_relay() {
    _tap_name=$1
    shift
    _tap_out=$(mktemp "${TMPDIR:-/tmp}/mpiwatch-tap.XXXXXX")
    _tap_rc=0
    "$@" >"$_tap_out" 2>&1 || _tap_rc=$?
    _tap_before=$tap_n
    _tap_failed_before=$failed
    while IFS= read -r _tap_line; do
        case $_tap_line in
            "not ok "*)
                _tap_case=$(printf '%s\n' "$_tap_line" | sed 's/^not ok [0-9]* *-\{0,1\} *//')
                fail "$_tap_case" ;;
            "ok "*)
                _tap_case=$(printf '%s\n' "$_tap_line" | sed 's/^ok [0-9]* *-\{0,1\} *//')
                case $_tap_case in
                    *" # SKIP"*|*" # skip"*)
                        _tap_why=${_tap_case#* # [Ss][Kk][Ii][Pp]}
                        skip "${_tap_case%% # [Ss][Kk][Ii][Pp]*}" "${_tap_why# }" ;;
                    *) pass "$_tap_case" ;;
                esac ;;
            [0-9]*..[0-9]*) ;;
            "#"*) echo "$_tap_line" ;;
            *) echo "# $_tap_line" ;;
        esac
    done <"$_tap_out"
    rm -f "$_tap_out"
    if [ "$tap_n" -eq "$_tap_before" ]; then
        fail "$_tap_name" "reported no case (status $_tap_rc)"
    elif [ "$_tap_rc" -ne 0 ] && [ "$failed" -eq "$_tap_failed_before" ]; then
        fail "$_tap_name" "exited with status $_tap_rc"
    fi
}

finish() {
    echo "1..$tap_n"
    echo "# $passed passed, $failed failed, $skipped skipped"
    if [ "$failed" -gt 0 ]; then
        exit 1
    fi
    exit 0
}

skip_all() {
    echo "1..0 # SKIP $*"
    exit 0
}

bail_out() {
    echo "Bail out! $*"
    exit 99
}
