#!/bin/sh
# run_flame: cupti_cb_run --flame, --flame-svg and --flame-cpu-hz with the injected library and
# libpapi, through the fakes.  flame_app (flame_app.c) makes its CUDA calls from known call
# paths on three threads (the runtime API, the driver API, a graph) and plays GPU records of
# known durations: the folded stacks are exactly those paths, each ending in the CUDA call and
# the GPU work, weighed by the work's GPU time, and add up to the gpu.* times of the report;
# libgcc's unwinder, where libunwind is missing, gives the same stacks; a Python function run
# through Python 3.12's perf trampoline is named from /tmp/perf-PID.map; several processes'
# stacks are merged.  The picture is checked as a person sees it: a headless browser (Debian's
# chromium-headless-shell, which scripts/setup installs) parses it without error, and its
# screenshot shows the k1 frames as wide as their share of GPU time.  With --flame-cpu-hz,
# 100 ms of CPU time burnt in spin() is 100 ms of samples (+-12 ms: the kernel's tick), in the
# same unit, beside the same GPU stacks.
. "$LIB_SH"

if ! test -r "$INJ_LIB"; then
	fail "$INJ_LIB is missing (build src/inject/ first)"
	finish
fi

rc 0 "$RUNNER" --flame f.folded --flame-svg f.svg --json e.json -o t.txt -- "$FLAME_APP"
line f.folded "# cupti_cb_run flame graph, folded stacks (flamegraph.pl, inferno, speedscope): weights in ns"
cat > want <<'EOF'
main;a;b;cudaLaunchKernel;[GPU_Kernel]k1(int) 20000
main;c;cudaLaunchKernel;[GPU_Kernel]k2() 20000
main;c;cudaMemcpy;[GPU_Memcpy HtoD] 3000
main;cudaMemset;[GPU_Memset] 500
main;e;cuLaunchKernel;[GPU_Kernel]k3() 700
main;e;cudaMemcpyAsync;[GPU_Memcpy HtoD] 300
main;g;cudaGraphLaunch;[GPU_Kernel]k2() 10000
main;g;cudaGraphLaunch;[GPU_Kernel]plain_kernel 1000
worker;a;b;cudaLaunchKernel;[GPU_Kernel]k1(int) 20000
EOF
grep -v '^#' f.folded > got
if ! cmp -s want got; then
	fail "the folded stacks are not the program's call paths"
	diff want got | sed 's/^/  /'
fi
# Header lines never end in a number (flamegraph.pl and speedscope would take them for stacks).
grep '^#' f.folded | grep -q ' [0-9][0-9]*$' && fail "a header line of f.folded ends in a number"
# The weights are the report's GPU times.
sum() { awk -v pat="$1" 'index($0, pat) { s += $NF } END { print s + 0 }' got; }
js e.json '/devices[device=0]/events/gpu.kernel_time_ns' "$(sum '[GPU_Kernel]')"
js e.json '/devices[device=0]/events/gpu.memcpy.time_ns' "$(sum '[GPU_Memcpy')"
js e.json '/devices[device=0]/events/gpu.memset.time_ns' "$(sum '[GPU_Memset]')"

# The same stacks from the fallback walk (libgcc's unwinder, where libunwind.so.8 is missing),
# which the process file notes.
rc 0 env CUPTI_CB_RUN_FLAME_WALKER=libgcc "$RUNNER" --flame g.folded --json g.json -o t.txt -- "$FLAME_APP"
grep -v '^#' g.folded > g.got
cmp -s want g.got || fail "libgcc's walk gave other stacks: $(diff want g.got)"
grep -q "the flame graph's stacks were taken with libgcc's _Unwind_Backtrace" g.json ||
	fail "g.json does not note the slower walk"
# libunwind (scripts/setup installs libunwind8; CI has it): the walk by default, and the CPU
# samples' only walk.
unwind=$(/sbin/ldconfig -p 2>/dev/null | grep -c 'libunwind\.so\.8 ')
if test "$unwind" = 0; then
	echo "# no libunwind.so.8 on this system: its walk and the CPU samples are not checked (scripts/setup installs libunwind8)"
else
	grep -q "the flame graph's stacks were taken" e.json && fail "e.json notes a slower walk: libunwind.so.8 was not used"
fi

# Python 3.12's perf support: a function run through its trampoline (code without unwind tables,
# listed in /tmp/perf-PID.map) is named from the map, and the walk goes on past it, with either
# unwinder (the function that called the trampoline, an interpreter's, is left out).
for walker in libunwind libgcc; do
	rc 0 env CUPTI_CB_RUN_FLAME_WALKER=$walker "$RUNNER" --flame p.folded -o t.txt -- "$FLAME_APP" pyperf
	grep -v '^#' p.folded > p.got
	echo 'main;py::forward:model.py;py_eval;a;b;cudaLaunchKernel;[GPU_Kernel]k1(int) 10000' > p.want
	cmp -s p.want p.got || fail "through a Python trampoline ($walker): $(cat p.got)"
done

# The picture: well-formed XML with one frame per distinct prefix, each named in its <title>.
if ! python3 -c 'import sys, xml.etree.ElementTree as E; E.parse(sys.argv[1])' f.svg 2> xml.err; then
	fail "f.svg is not well-formed XML: $(cat xml.err)"
fi
grep -Fq '<title>[GPU_Kernel]k1(int) (20000 ns, 26.49%)</title>' f.svg ||
	fail "f.svg has no frame [GPU_Kernel]k1(int) of 20000 ns (26.49% of 75500)"
test "$(grep -c '<title>' f.svg)" = 27 || fail "f.svg has $(grep -c '<title>' f.svg) frames, not 27"

browser=
for b in chromium-headless-shell chromium; do
	command -v "$b" > /dev/null 2>&1 && { browser=$b; break; }
done
if test -z "$browser"; then
	if test "${CUPTI_CB_REQUIRE_BROWSER:-0}" = 1; then
		fail "no headless browser (chromium-headless-shell) to look at the picture with"
	else
		echo "# no chromium-headless-shell: the picture is not looked at (scripts/setup installs it)"
	fi
else
	# As root (CI's fresh root) Chromium runs only without its sandbox.
	opts="--no-sandbox --hide-scrollbars --force-device-scale-factor=1"
	"$browser" $opts --dump-dom "file://$PWD/f.svg" > dom.txt 2> browser.err
	grep -q parsererror dom.txt && fail "$browser could not parse f.svg: $(sed 's/<[^>]*>/ /g' dom.txt | head -c 300)"
	grep -Fq '<title>worker (20000 ns, 26.49%)</title>' dom.txt || fail "$browser's DOM of f.svg lacks the frame worker"
	"$browser" $opts --window-size=1200,200 --screenshot="$PWD/shot.png" "file://$PWD/f.svg" > /dev/null 2>> browser.err
	if ! test -s shot.png; then
		fail "$browser wrote no screenshot"
		tail -5 browser.err | sed 's/^/  /'
	else
		python3 "$PNG_RUNS" shot.png > png.txt
		# Two k1 frames of 20000 of 75500 ns across 1180 px: 312.6 px of green each.
		k1=$(awk '$1 == "green_runs" { for (i = 2; i <= NF; i++) if ($i >= 312 && $i <= 314) n++ } END { print n + 0 }' png.txt)
		test "$k1" -ge 2 || fail "the screenshot shows $k1 green frames 313 px wide, not 2: $(cat png.txt)"
		painted=$(awk '$1 == "painted" { print $2 }' png.txt)
		test "$painted" -gt 50000 || fail "the screenshot is nearly blank: $painted painted pixels"
	fi
fi

# Merged: CPU samples in the same unit.
if test "$unwind" != 0; then
	rc 0 "$RUNNER" --flame m.folded --flame-cpu-hz 1000 -o t.txt -- "$FLAME_APP" spin
	line m.folded "# every other stack is CPU samples: each weighs 1e9/1000 ns (1000 Hz of the thread's CPU time)"
	grep -v '^#' m.folded | grep '\[GPU_' > m.gpu
	cmp -s want m.gpu || fail "with CPU samples, the GPU stacks changed: $(diff want m.gpu)"
	spin=$(awk '/^main;spin/ { s += $NF } END { print s + 0 }' m.folded)
	test "$spin" -ge 88000000 && test "$spin" -le 112000000 ||
		fail "100 ms of CPU time in spin() weighs $spin ns of samples, not 100000000 +- 12000000"
	awk '!/^#/ && !/\[GPU_/ && $NF % 1000000 { bad = 1 } END { exit bad }' m.folded ||
		fail "a CPU stack's weight is not a whole number of 1 ms samples"
fi
# Without libunwind, no CPU samples (libgcc's walk is not safe in a signal handler), and a note.
rc 0 env CUPTI_CB_RUN_FLAME_WALKER=libgcc "$RUNNER" --flame n.folded --flame-cpu-hz 1000 --json n.json -o t.txt \
	-- "$FLAME_APP" spin
grep -v '^#' n.folded > n.got
cmp -s want n.got || fail "without libunwind, the flame graph is not the GPU stacks alone: $(cat n.got)"
grep -q "the flame graph has no CPU samples: they need libunwind.so.8" n.json || fail "n.json does not say why there are no CPU samples"

# Several processes: identical stacks are summed, the others kept, sorted; "-" is standard output.
cat > twoproc.sh <<'EOF'
printf 'main;y;cudaMemcpy;[GPU_Memcpy HtoD] 7\nmain;x;cudaLaunchKernel;[GPU_Kernel]k 5\n' > "$CUPTI_CB_RUN_DIR/flame-1001.folded"
printf 'main;x;cudaLaunchKernel;[GPU_Kernel]k 6\nmain;<a&b>\001c;cudaMemset;[GPU_Memset] 1\n' > "$CUPTI_CB_RUN_DIR/flame-1002.folded"
exec sh "$FAKE_APP" a b
EOF
rc 0 "$RUNNER" --flame - --flame-svg two.svg -o t.txt -- sh twoproc.sh
grep -v '^#' out > two.got
printf 'main;<a&b>\001c;cudaMemset;[GPU_Memset] 1\nmain;x;cudaLaunchKernel;[GPU_Kernel]k 11\nmain;y;cudaMemcpy;[GPU_Memcpy HtoD] 7\n' > two.want
cmp -s two.want two.got || fail "two processes' stacks are not merged: $(cat two.got)"
# A name with markup and a control character is still XML.
python3 -c 'import sys, xml.etree.ElementTree as E; E.parse(sys.argv[1])' two.svg 2> xml.err ||
	fail "two.svg is not well-formed XML: $(cat xml.err)"
grep -Fq '<title>&lt;a&amp;b&gt;?c (1 ns' two.svg || fail "two.svg does not escape the name <a&b>, a control character, c"

# Bad combinations are refused with a sentence, before running anything.
rc 2 "$RUNNER" --flame-cpu-hz 100 -- "$FLAME_APP"
line err "cupti_cb_run: --flame-cpu-hz adds CPU samples to a flame graph: give --flame FILE or --flame-svg FILE (cupti_cb_run --help lists the options)"
rc 2 "$RUNNER" --flame x --no-gpu-activity -- "$FLAME_APP"
line err "cupti_cb_run: --flame weighs stacks by GPU time, which --no-gpu-activity leaves out (cupti_cb_run --help lists the options)"
rc 2 "$RUNNER" --flame x --flame-cpu-hz 0 -- "$FLAME_APP"
line err "cupti_cb_run: --flame-cpu-hz '0': give a number of samples per second from 1 to 10000 (cupti_cb_run --help lists the options)"
finish
