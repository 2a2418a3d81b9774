#!/bin/sh
# run_opts: the command line. Options come before the program: the first
# word that is not an option (or what follows "--") is the program, and
# every word after it is the program's, even one that has the name of an
# option of the runner (as env, time and nsys parse). Before, the runner
# looked for --report in the program's arguments too, so
# "cupti_cb_run /bin/echo -o x --report y" loaded y as a report. Only
# --report, which has no program, takes options after its files. An
# unknown option in a group (-kz) is named as itself, not as the word
# before it; a prefix of several long options is ambiguous, with the options
# it may be (it was called unknown).
. "$LIB_SH"

rc 0 "$RUNNER" /bin/echo -o x --report y
line out "-o x --report y"
test -f x && fail "the runner wrote x: it took the program's -o as its own"
rc 0 "$RUNNER" -o t.txt -- "$FAKE_APP" -e env.txt a
rc 0 "$RUNNER" -o t.txt "$FAKE_APP" -e env2.txt a
test -f env2.txt || fail "the program did not get its own -e option"
rc 0 "$RUNNER" -o t.txt sh -c 'printf "%s\n" "$@" > args.txt' sh --json j.json -h --report r.json --
line args.txt "--json"
line args.txt "--report"
line args.txt "--"
test -f j.json && fail "the runner wrote j.json: it took the program's --json as its own"

# Unknown options and missing values name the option.
rc 2 "$RUNNER" -kz /bin/true
line err "cupti_cb_run: unknown option '-k' (cupti_cb_run --help lists the options)"
rc 2 "$RUNNER" -o t.txt -z /bin/true
line err "cupti_cb_run: unknown option '-z' (cupti_cb_run --help lists the options)"
rc 2 "$RUNNER" --keep --no-such-option /bin/true
line err "cupti_cb_run: unknown option '--no-such-option' (cupti_cb_run --help lists the options)"
# A prefix of several long options is ambiguous, not unknown (as getopt_long says it).
rc 2 "$RUNNER" --no /bin/true
line err "cupti_cb_run: option '--no' is ambiguous: it may be --no-gpu-activity, --no-time (cupti_cb_run --help lists the options)"
rc 2 "$RUNNER" --c=x.csv /bin/true
line err "cupti_cb_run: option '--c' is ambiguous: it may be --csv, --compare (cupti_cb_run --help lists the options)"
# A unique prefix is the option.
rc 0 "$RUNNER" --no-t --ou /dev/null -- "$FAKE_APP" a
rc 2 "$RUNNER" --keep -o
line err "cupti_cb_run: -o needs a value (cupti_cb_run --help lists the options)"

# --report: options may follow the files; every --report adds a file.
rc 0 "$RUNNER" -o /dev/null --json a.json -- "$FAKE_APP" a
rc 0 "$RUNNER" -o /dev/null --json b.json -- "$FAKE_APP" b
rc 0 "$RUNNER" --report a.json b.json --json ab.json
js ab.json /processes/# 2
rc 0 "$RUNNER" --report a.json --report b.json --json ab2.json
js ab2.json /processes/# 2
row out "Per rank (2 ranks: ? ?)"
# After "--" every word is a file.
rc 2 "$RUNNER" --report a.json -- --json
line err "cupti_cb_run: --report --json: the file cannot be read: No such file or directory"
finish
