#!/bin/sh
# run_timeline_reader: a --timeline file read by a real reader of torch.profiler's traces,
# HolisticTraceAnalysis (timeline_hta.py; scripts/setup installs it into .venv-readers), not
# only by a JSON parser: every span of cpu_fake_timeline_app (run_timeline.sh says what it
# plays) on its thread or stream, linked to its launch by correlation, and its launch
# statistics pairing the kernel with its launch. Skipped (77) when the reader is not installed,
# unless CUPTI_CB_REQUIRE_TIMELINE_READER=1 (CI), where that fails.
. "$LIB_SH"

if ! test -x "$READERS_PYTHON" || ! "$READERS_PYTHON" -c 'import hta' > /dev/null 2>&1; then
	if test "${CUPTI_CB_REQUIRE_TIMELINE_READER:-0}" = 1; then
		fail "no reader: $READERS_PYTHON cannot import hta (scripts/setup installs it)"
		finish
	fi
	echo "no reader: $READERS_PYTHON cannot import hta (scripts/setup installs it): skipped"
	exit 77
fi
CUPTI_CB_CLOCK=monotonic
# The fake CUPTI's clock reads about CLOCK_REALTIME, as the real one: not the component's.
CUPTI_CB_FAKE_CUPTI_CLOCK=realtime
export CUPTI_CB_CLOCK CUPTI_CB_FAKE_CUPTI_CLOCK
mkdir trace
rc 0 "$RUNNER" -o t.txt --timeline trace/timeline.json -- "$FAKE_TIMELINE_APP"
"$READERS_PYTHON" "$TIMELINE_HTA" trace "$(grep '^G ' out)" > hta.txt 2>&1 || {
	fail "timeline_hta.py:"
	grep -E '^(FAIL|Traceback|  File|[A-Za-z]*Error)' hta.txt
}
finish
