#!/bin/sh
# fuzz_names.sh: runs a libFuzzer target (FUZZ_TARGET, default fuzz_names)
# for FUZZ_SECONDS seconds (default 60) from a scratch copy of its committed
# seed corpus (FUZZ_CORPUS, default fuzz-corpus/), so that a run never
# changes the source tree. fuzz_metric_names.sh runs the metric-name target
# through it. A finding
# (abort, sanitizer report, crash, leak, timeout) fails the test; the input
# that caused it is left in fuzz-scratch/ and printed.
#
# Exit status 77 (SKIP) with the reason when configure found no clang that
# builds libFuzzer targets, or 1 when CUPTI_CB_REQUIRE_CLANG_TESTS is set.
# Extra arguments go to the fuzzer (e.g. -runs=10000000).

if test -z "$FUZZ_CC"; then
	echo "SKIP: ${FUZZ_WHY:-configure found no clang with libFuzzer}"
	test -z "$CUPTI_CB_REQUIRE_CLANG_TESTS" || exit 1
	exit 77
fi

srcdir=${srcdir:-.}
target=${FUZZ_TARGET:-fuzz_names}
corpus=${FUZZ_CORPUS:-fuzz-corpus}
seconds=${FUZZ_SECONDS:-60}
scratch=fuzz-scratch-$target
rm -rf "$scratch" || exit 1
mkdir -p "$scratch/corpus" || exit 1
cp "$srcdir/$corpus"/* "$scratch/corpus/" || exit 1
n_seeds=$(ls "$scratch/corpus" | wc -l)
echo "$target: $seconds s from $n_seeds seeds ($srcdir/$corpus), scratch $scratch/"

# One process: the machines running make check are shared. Names are at most
# CUPTI_CB_NAME_MAX (256) bytes; inputs a little longer test the limit.
./"$target" -max_total_time="$seconds" -max_len=300 -timeout=10 -rss_limit_mb=2048 \
	-print_final_stats=1 -artifact_prefix="$scratch/" "$@" "$scratch/corpus" >"$scratch/log" 2>&1
rc=$?
cat "$scratch/log"
# LeakSanitizer's own tracer has crashed at the very end of a finished run (signal 11 in the
# tracer, "LeakSanitizer has encountered a fatal error", an empty input saved as the finding):
# that is the checker failing, not the target. The corpus is then replayed once, without
# mutations, so that its leaks are still checked.
if test $rc -ne 0 && grep -q "LeakSanitizer has encountered a fatal error" "$scratch/log" &&
	grep -q "DONE" "$scratch/log" && ! find "$scratch" -maxdepth 1 -name 'crash-*' -size +0c | grep -q .; then
	echo "$target: LeakSanitizer's tracer crashed after the run ended; replaying the corpus to check for leaks"
	rm -f "$scratch"/crash-*
	./"$target" -runs=0 -max_len=300 -timeout=10 -rss_limit_mb=2048 -artifact_prefix="$scratch/" "$scratch/corpus"
	rc=$?
fi
for f in "$scratch"/crash-* "$scratch"/leak-* "$scratch"/timeout-* "$scratch"/oom-*; do
	test -f "$f" || continue
	echo "$target: finding in $f:"
	od -c "$f" | head -n 20
done
if test $rc -ne 0; then
	echo "$target: FAILED (exit status $rc)"
	exit 1
fi
rm -rf "$scratch"
exit 0
