#!/usr/bin/env bash
# One definition per fact (in the spirit of Open MPI's bindings generator
# test TestSharedDomainKnowledge): each value that C, Python, templates and
# the client share has one home, and a definition of it anywhere else in the
# sources (generator/, templates/, runtime/, client/, include/, python/) fails here.
# Tests are left out on purpose: their encoders stay independent of the code.
# Each fact also brings a sample second definition, planted in a scratch tree
# beside a copy of its home: the fact's pattern must find it there, so a
# pattern that has stopped matching definitions cannot pass unnoticed.
set -eu
needs_library=no
. "$(dirname "$0")/../lib/harness.sh"
cd "$top_srcdir"

# definitions REGEX DIR...: the source files under DIR... with a line
# matching the extended REGEX, sorted.
definitions() {
    local re=$1
    shift
    grep -rElI --include='*.c' --include='*.h' --include='*.py' --include='*.j2' \
        --include='*.js' -e "$re" "$@" | sort
}

# fact NAME HOME REGEX SAMPLE: HOME is the only source file with a line
# matching REGEX (a definition of NAME); SAMPLE is a line that defines it.
fact() {
    local name=$1 home=$2 re=$3 sample=$4 found plant planted
    found=$(definitions "$re" generator templates runtime client include python)
    if [ "$found" = "$home" ]; then
        pass "$name: defined once, in $home"
    elif [ -z "$found" ]; then
        fail "$name" "no definition found (expected one in $home; pattern: $re)"
    else
        fail "$name" "defined in $(echo $found | sed 's/ /, /g'), expected only in $home:
$(grep -rnEI -e "$re" $found | sed 's/^/    /')"
    fi
    # The planted duplicate: a copy of HOME and, beside it, a file holding SAMPLE.
    plant=$(mktemp -d "$work/plant.XXXXXX")
    mkdir -p "$plant/$(dirname "$home")"
    cp "$home" "$plant/$home"
    planted="$(dirname "$home")/planted.${home##*.}"
    printf '%s\n' "$sample" >"$plant/$planted"
    found=$(cd "$plant" && definitions "$re" "$(dirname "$home")")
    if [ "$found" = "$(printf '%s\n' "$home" "$planted" | sort)" ]; then
        pass "$name: a planted second definition ($sample) is caught"
    else
        fail "$name: planted duplicate" "the pattern '$re' found '$(echo $found)', not $home and the planted '$sample'"
    fi
}

fact "the in-flight flags' values (MWP_IF_*)" include/mpiwatch_protocol.h \
    '#define MWP_IF_[A-Z_]+ +[0-9]|(SENDS|RECEIVES|COLLECTIVE|COMPLETES|WORLD)[A-Z_, ]*= *[0-9(]' \
    'IF_SENDS = 1'
fact "the fields a call in progress publishes (MW_INFLIGHT_HAS_*)" templates/functions.h.j2 \
    '#define MW_INFLIGHT_HAS_|HAS_(PEER|TAG|ROOT|COMM)[A-Z_, ]*= *[0-9(]' \
    '#define MW_INFLIGHT_HAS_PEER 1'
fact "the stuck verdict (a call lasting more than --stuck)" client/model.h \
    '(^|[^-])> *(st->|o->)?stuck_(s|after)\b' \
    'return secs > stuck_s;'
fact "the --stuck default" client/model.h \
    '#define MWC_STUCK_DEFAULT_S|stuck_(s|after) *= *[0-9]|stuck_(s|after)[^;]*\?[^;]*: *[0-9]' \
    'o->stuck_s = 10;'
# Any spelling of the name, in code or in a comment: a comment that spells
# it goes stale when the version changes; say MW_REPORT_SCHEMA instead.
fact "the report schema's name (mpiwatch-report/N)" include/mpiwatch_report.h \
    'mpiwatch-report/[0-9]' \
    'if (R.schema !== "mpiwatch-report/1") fail("not mpiwatch-report/1");'
fact "the matrix's blocks a side at most (MW_VIEWER_MATRIX_BLOCKS)" include/mpiwatch_viewer.h \
    '#define [A-Z_]*MATRIX_BLOCKS +[0-9]|MAX_CELLS *= *[0-9]' \
    'var MAX_CELLS = 256;'
# The accounting rules (docs/design.md, "The rules exist once"): the notes
# of point-to-point calls, what makes a message and its size live in
# traffic/inline.h; the memo caches what they counted, and restates none.
fact "the point-to-point MPI_PROC_NULL rule (no message, nothing moved)" runtime/traffic/inline.h \
    '(dest|source|peer2?|MPI_SOURCE) *[!=]= *MPI_PROC_NULL' \
    'if ((unsigned)peer >= m->peers || mw_tls.xfer.peer2 == MPI_PROC_NULL) return 0;'
fact "what makes a message (MW_CALL_NO_MESSAGE)" runtime/traffic/inline.h \
    'sent *\| *\(?[a-z]*\)?->recv\)? *== *0|!\(?[a-z]+(\.|->)sent *&& *!\(?[a-z]+(\.|->)recv|#define MW_CALL_NO_MESSAGE' \
    'if (!one.sent && !one.recv && (!one.messages || one.comm == MPI_COMM_NULL)) continue;'
fact "a message's size (MW_CALL_MESSAGE_SIZE: a send-receive that sends nothing counts its receive)" \
    runtime/traffic/inline.h \
    '\? *\(?[a-z]*\)?->sent *: *\(?[a-z]*\)?->recv|#define MW_CALL_MESSAGE_SIZE' \
    'int64_t size = c->sent ? c->sent : c->recv;'
finish
