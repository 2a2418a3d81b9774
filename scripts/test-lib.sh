# test-lib.sh: the TAP-style helpers of the scripts/ tests (sourced, not run).
#   check NAME GOT WANT   one "ok N - NAME" or "not ok N - NAME: got .., want .." line
#   tap_done              the plan line; the exit status is 1 if a check failed
fails=0 n=0
check() { # name, got, want
    n=$((n + 1))
    if [ "$2" = "$3" ]; then
        echo "ok $n - $1"
    else
        echo "not ok $n - $1: got '$2', want '$3'"
        fails=$((fails + 1))
    fi
}
tap_done() {
    echo "1..$n"
    [ "$fails" -eq 0 ]
}
