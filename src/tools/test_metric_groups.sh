#!/bin/sh
# test_metric_groups: cupti_cb_metric_groups says what was wrong with a command line, in one
# sentence before the usage, with exit status 2 (it printed only the usage); a group prints
# its events; -h prints the usage on stdout.
set -u
fails=0 n=0
check() { # name, got, want
    n=$((n + 1))
    if [ "$2" = "$3" ]; then echo "ok $n - $1"; else echo "not ok $n - $1: got '$2', want '$3'"; fails=$((fails + 1)); fi
}
tool=./cupti_cb_metric_groups
refused() { # name, want sentence, args...
    what=$1 want=$2
    shift 2
    "$tool" "$@" > out.$$ 2> err.$$
    check "$what: exit status" "$?" 2
    check "$what: the sentence" "$(head -n 1 err.$$)" "cupti_cb_metric_groups: $want"
    check "$what: then the usage" "$(sed -n 2p err.$$ | cut -c1-29)" "usage: cupti_cb_metric_groups"
    check "$what: nothing on stdout" "$(cat out.$$)" ""
}
trap 'rm -f out.$$ err.$$' EXIT
refused "--check alone" "--check needs a chip name (for example GH100)" --check
refused "--check with two chips" "--check takes one chip: 'GA100' is one argument too many" --check GH100 GA100
refused "-s alone" "-s needs a separator (for example ' ')" -s
refused "an unknown option" "unknown option '-x'" -x memory
refused "two groups" "one group at a time: 'compute' is one argument too many" memory compute
"$tool" no_such_group > out.$$ 2> err.$$
check "an unknown group: exit status" "$?" 2
check "an unknown group: the sentence" "$(head -n 1 err.$$)" "cupti_cb_metric_groups: no group 'no_such_group'; the groups are:"
"$tool" -s ' ' memory > out.$$ 2> err.$$
check "-s ' ' memory: exit status" "$?" 0
check "-s ' ' memory: events separated by spaces" "$(cut -d' ' -f1 out.$$ | cut -c1-11)" "cupti_cb:::"
"$tool" -h > out.$$ 2> err.$$
check "-h: the usage on stdout" "$(head -n 1 out.$$ | cut -c1-29)" "usage: cupti_cb_metric_groups"
echo "1..$n"
[ "$fails" -eq 0 ]
