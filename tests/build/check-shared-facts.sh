#!/usr/bin/env bash
# One definition per fact (in the spirit of Open MPI's bindings generator
# test TestSharedDomainKnowledge): each value that C, Python, templates and
# the client share has one home, and a definition of it anywhere else in the
# sources (generator/, templates/, runtime/, client/, include/) fails here.
# Tests are left out on purpose: their encoders stay independent of the code.
set -eu
needs_library=no
. "$(dirname "$0")/../lib/harness.sh"
cd "$top_srcdir"

# fact NAME HOME REGEX: HOME is the only source file with a line matching
# the extended REGEX (a definition of NAME).
fact() {
    local name=$1 home=$2 re=$3 found
    found=$(grep -rElI --include='*.c' --include='*.h' --include='*.py' --include='*.j2' \
                --include='*.js' -e "$re" generator templates runtime client include | sort)
    if [ "$found" = "$home" ]; then
        pass "$name: defined once, in $home"
    elif [ -z "$found" ]; then
        fail "$name" "no definition found (expected one in $home; pattern: $re)"
    else
        fail "$name" "defined in $(echo $found | sed 's/ /, /g'), expected only in $home:
$(grep -rnEI --include='*.c' --include='*.h' --include='*.py' --include='*.j2' --include='*.js' \
      -e "$re" $found | sed 's/^/    /')"
    fi
}

fact "the in-flight flags' values (MWP_IF_*)" include/mpiwatch_protocol.h \
    '#define MWP_IF_[A-Z_]+ +[0-9]|(SENDS|RECEIVES|COLLECTIVE|COMPLETES|WORLD)[A-Z_, ]*= *[0-9(]'
fact "the fields a call in progress publishes (MW_INFLIGHT_HAS_*)" templates/functions.h.j2 \
    '#define MW_INFLIGHT_HAS_|HAS_(PEER|TAG|ROOT|COMM)[A-Z_, ]*= *[0-9(]'
fact "the stuck verdict (a call lasting more than --stuck)" client/model.h \
    '(^|[^-])> *(st->|o->)?stuck_(s|after)\b'
fact "the --stuck default" client/model.h \
    '#define MWC_STUCK_DEFAULT_S|stuck_(s|after) *= *[0-9]|stuck_(s|after)[^;]*\?[^;]*: *[0-9]'
finish
