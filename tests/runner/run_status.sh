#!/bin/sh
# run_status: the runner exits with the program's status (128+N when signal
# N ended it, also when the runner passed on a SIGTERM it received), 127
# when the program cannot be executed, 2 for bad options; when no process
# file appeared it says why in one sentence and still returns the
# program's status; a process that did not count has its reason printed.
. "$LIB_SH"

rc 3 "$RUNNER" -o t.txt -- "$FAKE_APP" -x 3 a
grep -q '^ exit status 3; 1 process with CUDA; wall time [0-9]* ns$' t.txt || fail "t.txt lacks the exit status 3 line"
rc 143 "$RUNNER" -o t.txt -- "$FAKE_APP" -k TERM a
grep -q '^ exit status 143; 1 process with CUDA;' t.txt || fail "t.txt lacks the exit status 143 line"
rc 130 "$RUNNER" -o t.txt -- "$FAKE_APP" -k INT a

# A SIGTERM sent to the runner alone reaches the program.
rm -f started
"$RUNNER" -- sh -c 'touch started; exec sleep 60' > out 2> err &
runner=$!
i=0
while ! test -f started && test $i -lt 200; do sleep 0.1; i=$((i + 1)); done
test -f started || fail "the program did not start"
sleep 0.2
kill -TERM $runner
wait $runner
got=$?
test "$got" = 143 || fail "SIGTERM to the runner: exit status $got, not 143"

# A signal the runner was started with ignored stays ignored in the program.
rc 4 sh -c 'trap "" INT; exec "$0" -o /dev/null -- sh -c "kill -INT \$\$; echo survived; exit 4"' "$RUNNER"
line out "survived"

# Cannot be executed: 127 and a sentence.
rc 127 "$RUNNER" -- ./no-such-program x
line err "cupti_cb_run: cannot execute ./no-such-program: No such file or directory"
rc 127 "$RUNNER" -- /dev/null
line err "cupti_cb_run: cannot execute /dev/null: Permission denied"

# No process file: which of the reasons, and the program's status.
rc 5 "$RUNNER" -- "$FAKE_APP" -x 5 none
line err "cupti_cb_run: nothing was measured: the program made no CUDA call (the CUDA driver loads the injected library at a process's first CUDA call)."
# No driver: a program that never loaded it made no CUDA call (before, the
# runner said that "any CUDA call of the program failed" of /bin/true); one
# that tried to load it had its CUDA calls fail; a program the loader does
# not log for the runner (here: the user's own LD_DEBUG) is not known.
rc 0 env CUPTI_CB_CUDA_LIB=/nonexistent/libcuda.so.1 "$RUNNER" -- "$FAKE_APP" none
line err "cupti_cb_run: nothing was measured: the program made no CUDA call: it never loaded the CUDA driver (which cannot be loaded here either: /nonexistent/libcuda.so.1 cannot be loaded)."
rc 0 env CUPTI_CB_CUDA_LIB=/nonexistent/libcuda.so.1 "$RUNNER" -- "$DLOPEN_APP" /nonexistent/libcuda.so.1
line err "cupti_cb_run: nothing was measured: the program tried to load the CUDA driver, which cannot be loaded here (/nonexistent/libcuda.so.1 cannot be loaded), so its CUDA calls failed and cupti_cb, which the driver loads, never ran."
rc 0 env CUPTI_CB_CUDA_LIB=/nonexistent/libcuda.so.1 LD_DEBUG=unused "$RUNNER" -- "$FAKE_APP" none
line err "cupti_cb_run: nothing was measured: no CUDA driver can be loaded here (/nonexistent/libcuda.so.1 cannot be loaded), and the driver is what loads cupti_cb into a program; whether the program tried CUDA is not known."
# Where the driver loads, the program's loader logs nothing.
rc 0 env CUPTI_CB_CUDA_LIB=libc.so.6 "$RUNNER" -- sh -c 'echo "LD_DEBUG=${LD_DEBUG-unset}"'
line out "LD_DEBUG=unset"
rc 0 env CUPTI_CB_RUN_INJECT=/nonexistent/inject.so "$RUNNER" -- "$FAKE_APP" none
line err "cupti_cb_run: nothing was measured: the injected library /nonexistent/inject.so cannot be read (No such file or directory)."
test "$(wc -l < err)" = 1 || fail "more than one sentence on standard error"
# A library the injected one needs is not found: the true reason (the
# loader's), not the driver. Before, the runner said the program made no
# CUDA call.
# The library's run path names the installation's libdir: where the build
# was installed there, libpapi is found without LD_LIBRARY_PATH.
if ls "$PKGLIBDIR"/../libpapi.so* >/dev/null 2>&1; then
	echo "# no libpapi: not checked, libpapi is installed in the run path ($PKGLIBDIR/..)"
elif /sbin/ldconfig -p 2>/dev/null | grep -q 'libpapi\.so\.'; then
	# The distribution's PAPI (Debian's libpapi7.0, which ctests/sde reads through) is
	# found by the loader's own paths: there is no way to leave libpapi out.
	echo "# no libpapi: not checked, the system's loader finds a libpapi of its own: $(/sbin/ldconfig -p | grep -m1 'libpapi\.so\.')"
else
	rc 0 env -u LD_LIBRARY_PATH "$RUNNER" -- "$FAKE_APP" none
	grep -q "^cupti_cb_run: nothing was measured: the injected library cannot be loaded (libpapi\.so[.0-9]*: cannot open shared object file: No such file or directory), so the CUDA driver could not load it into the program\.\$" err ||
		fail "no libpapi: the sentence is not the loader's reason: $(cat err)"
fi
# The same reason where the system has a libpapi of its own: an injected
# library that needs one that is not there (built here, its dependency
# removed after the link).
if command -v cc >/dev/null 2>&1; then
	printf 'int cupti_cb_missing_dep(void) { return 1; }\n' > dep.c
	printf 'int cupti_cb_missing_dep(void);\nint cupti_cb_needs_dep(void) { return cupti_cb_missing_dep(); }\n' > needs.c
	{ cc -shared -fPIC -o libcupti_cb_missing_dep.so dep.c &&
		cc -shared -fPIC -o needs_dep.so needs.c -L. -lcupti_cb_missing_dep &&
		rm -f libcupti_cb_missing_dep.so; } || fail "the stand-in libraries could not be built"
	rc 0 env CUPTI_CB_RUN_INJECT="$work/needs_dep.so" "$RUNNER" -- "$FAKE_APP" none
	grep -q "^cupti_cb_run: nothing was measured: the injected library cannot be loaded (libcupti_cb_missing_dep\.so: cannot open shared object file: No such file or directory), so the CUDA driver could not load it into the program\.\$" err ||
		fail "a missing dependency: the sentence is not the loader's reason: $(cat err)"
else
	echo "# a missing dependency: not checked, no C compiler"
fi
echo 'not a library' > notlib.so
rc 0 env CUPTI_CB_RUN_INJECT="$work/notlib.so" "$RUNNER" -- "$FAKE_APP" none
grep -q "^cupti_cb_run: nothing was measured: the injected library cannot be loaded (.*notlib\.so: .*), so the CUDA driver could not load it into the program\.\$" err ||
	fail "not a library: $(cat err)"

# Nothing measured: --json, --csv and -o still write a report that says why
# (before, the files were not written at all).
rc 5 "$RUNNER" -o n.txt --json n.json --csv n.csv -- "$FAKE_APP" -x 5 none
why="nothing was measured: the program made no CUDA call (the CUDA driver loads the injected library at a process's first CUDA call)."
line err "cupti_cb_run: $why"
js n.json /schema cupti_cb_run/1
js n.json /status/counting false
js n.json /status/reason "$why"
js n.json /processes/# 0
js n.json /run/exit_status 5
js n.json /api/# 0
line n.csv "section,name,device,value,unit"
line n.csv "run,exit_status,,5,"
line n.csv "run,processes,,0,processes"
line n.txt " $why"
# Such a report as a baseline: refused with the reason, before the program runs.
rc 2 "$RUNNER" --compare n.json -- "$FAKE_APP" -e ran.txt a
# Inside a sentence the reason has no period of its own (before: "call).)").
line err "cupti_cb_run: --compare n.json: the baseline is of a run that measured nothing (${why%.}): there is nothing to compare with"
test -f ran.txt && fail "the program ran against a baseline of nothing"
# ... and in --report: said, and left out of the per-rank table.
rc 0 "$RUNNER" -o /dev/null --json a.json -- "$FAKE_APP" a
rc 0 "$RUNNER" --report n.json a.json --json na.json
line err "cupti_cb_run: --report n.json: ${why%.}; it is left out of the per-rank table"
noline err ".;"
row out "Per rank (1 rank: ?)"
js na.json /processes/# 1
js na.json /totals/api.calls 12
rc 0 "$RUNNER" --report n.json
line out " $why"

# A process that did not count: its reason, on standard error and in the tables.
rc 0 "$RUNNER" -o t.txt --json t.json -- "$FAKE_APP" nocount a
line err "cupti_cb_run: process 1003 did not count: No NVIDIA driver: libcuda.so.1 cannot be loaded"
line t.txt " process 1003 did not count: No NVIDIA driver: libcuda.so.1 cannot be loaded"
js t.json /status/counting false
js t.json /status/reason "No NVIDIA driver: libcuda.so.1 cannot be loaded"
js t.json '/processes[pid=1001]/status/counting' true
js t.json '/processes[pid=1003]/status/counting' false

# Bad command lines: 2 and a sentence.
rc 2 "$RUNNER"
line err "cupti_cb_run: no program to run (cupti_cb_run --help lists the options)"
rc 2 "$RUNNER" --interval 3h -- true
line err "cupti_cb_run: --interval '3h': give a duration such as 1s or 500ms (cupti_cb_run --help lists the options)"
rc 2 "$RUNNER" --bogus -- true
line err "cupti_cb_run: unknown option '--bogus' (cupti_cb_run --help lists the options)"
rc 2 "$RUNNER" --json
line err "cupti_cb_run: --json needs a value (cupti_cb_run --help lists the options)"
rc 2 "$RUNNER" --hl-output hl --report x.json
line err "cupti_cb_run: --hl-output writes the files of a run, not of --report (cupti_cb_run --help lists the options)"
rc 2 "$RUNNER" --fail-above calls:total=0% -- true
line err "cupti_cb_run: --fail-above needs --compare BASELINE.json (cupti_cb_run --help lists the options)"

# --help names every option.
rc 0 "$RUNNER" --help
for o in --output --csv --json --metrics --no-gpu-activity --no-time --interval --keep --trace --compare \
	--fail-above --report --hl-output --help; do
	grep -q -- "$o" out || fail "--help does not name $o"
done
finish
