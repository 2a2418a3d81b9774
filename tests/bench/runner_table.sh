#!/bin/sh
# runner_table: bench-runner-table.sh judges the targets of run-runner-bench
# from paired ratios, and gives cupti_cb's share of a profile with its
# interval.  Results written by hand, values worked out by hand:
#  - nine rounds whose runner/floor ratios are 1.01 .. 1.09: median 1.05, the
#    order-statistics interval of nine is x(2)..x(8) (coverage 96%): 1.02-1.08,
#    which straddles 1.05 (unresolved); runner_cb/floor_cb 0.95 .. 1.03: median
#    0.99, interval 0.96-1.02, at or below 1.03 (met); runner/nsys 1.10 .. 1.18:
#    interval 1.11-1.17, above 1.00 (not met);
#  - 50 of 1000 samples in libpapi: 5.00%, Wilson's 95% interval 3.81-6.53%,
#    1 / (1 - share) 1.053 (1.040-1.070); 150 in tool libraries: 12.92-17.35%.
set -u
fails=0
work=$(mktemp -d "${TMPDIR:-/tmp}/benchtests.XXXXXX")
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
line() { grep -Fxq -- "$2" "$1" || { fail "$1 lacks the line: $2"; sed "s|^|  $1: |" "$1" | head -60; }; }

mkdir -p "$work/where"
{
	echo "meta commit abc1234"
	echo "meta date 2026-11-26T00:00:00Z"
	r=1
	for x in "1010 873 918.2" "1020 882 910.7" "1030 891 903.5" "1040 900 896.6" "1050 909 889.8" \
		 "1060 918 955.0" "1070 927 946.9" "1080 864 939.1" "1090 855 931.6"; do
		set -- $x
		for m in "bare 800 1000" "floor 1000 1000" "floor_cb 900 1000" "runner $1 1000" "runner_cb $2 1000" \
			 "nsys $3 5000"; do
			set -- $m $x
			echo "run round=$r workload=app1 mode=$1 wall_ms=$3 app threads=1 iters=10 ns_per_launch=$2 loop_ms=1 first_call_ms=1"
			set -- $x
		done
		r=$((r + 1))
	done
} > "$work/results.txt"
"$BENCH_DIR/bench-runner-table.sh" "$work" > /dev/null 2> "$work/err" || fail "the table exited with $?: $(cat "$work/err")"
t=$work/table.md
line "$t" "| app1 | runner | floor | own | 9 | 1.050 | 1.020-1.080 | 96% | <= 1.05 | unresolved |"
line "$t" "| app1 | runner_cb | floor_cb | own | 9 | 0.990 | 0.960-1.020 | 96% | <= 1.03 | met |"
line "$t" "| app1 | runner | nsys | own | 9 | 1.140 | 1.110-1.170 | 96% | <= 1.00 | not met |"
line "$t" "| app1 | runner | nsys | wall time | 9 | 0.200 | 0.200-0.200 | 96% | <= 1.00 | met |"
line "$t" "| app1 | runner | 1050 ns/launch | 1010-1090 | 1.312 | 1.050 | - | 1.144 | 1000 | 1.000 | 0.200 |"
# A mode that did not run has no row (looking up nsys and bare once made theirs).
grep -v "mode=nsys" "$work/results.txt" > "$work/r2"
mkdir -p "$work/nonsys" && mv "$work/r2" "$work/nonsys/results.txt"
"$BENCH_DIR/bench-runner-table.sh" "$work/nonsys" > /dev/null 2>&1
grep -q "^| app1 | nsys " "$work/nonsys/table.md" && fail "a row for nsys, which did not run"
line "$work/nonsys/table.md" "| app1 | runner | 1050 ns/launch | 1010-1090 | 1.312 | 1.050 | - | - | 1000 | 1.000 | - |"

# Fewer rounds than an interval of 90% needs: the whole range, with its coverage,
# and no verdict.
head -n 14 "$work/results.txt" > "$work/r2" && mv "$work/r2" "$work/results.txt"
"$BENCH_DIR/bench-runner-table.sh" "$work" > /dev/null 2>&1
line "$t" "| app1 | runner | floor | own | 2 | 1.015 | 1.010-1.020 | 50% | <= 1.05 | too few rounds |"

cat > "$work/where/app1-runner.11" <<'W'
where samples=1000 top_thread=1000 clock=thread-wall
sym n=50 top=50 lib=libpapi.so.7.0 sym=- off=0x10
sym n=100 top=100 lib=libcupti.so sym=x off=0x1
sym n=850 top=850 lib=libcuda.so.1 sym=- off=0x1
W
cat > "$work/where/app1-floor.12" <<'W'
where samples=2000 top_thread=1500 clock=process-cpu
sym n=400 top=300 lib=libcupti.so.13 sym=x off=0x1
sym n=1600 top=1200 lib=libcuda.so.1 sym=- off=0x1
W
"$BENCH_DIR/bench-runner-table.sh" --where "$work" 2> "$work/err" || fail "the profiles' tables exited with $?: $(cat "$work/err")"
w=$work/where.md
line "$w" "| app1-runner | thread-wall | 1000 | 50 | 100 | 5.00% | 3.81-6.53% | 1.053 (1.040-1.070) | 15.00% | 12.92-17.35% |"
line "$w" "| app1-floor | process-cpu | 1500 | 0 | 300 | 0.00% | 0.00-0.26% | 1.000 (1.000-1.003) | 20.00% | 18.05-22.10% |"
line "$w" "| (all) | 2000 (1500) | 1000 (1000) |"

test "$fails" -eq 0 && echo "PASS: runner_table"
exit $((fails > 0))
