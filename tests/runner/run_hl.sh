#!/bin/sh
# run_hl: --hl-output DIR writes DIR/rank_NNNNNN.json in the form PAPI's
# high-level API writes (src/high-level/papi_hl.c), and PAPI's own
# papi_hl_output_writer.py reads two ranks' files and summarises them:
# region count 2, per-event min, median and max over the ranks. A directory
# that cannot be made is said before the program runs (exit 2). The writer
# takes the ranks' directory as --source (PAPI 7.0, 7.1) or --source_dir (7.2
# and later): hl_writer_option.sh asks it which.
. "$LIB_SH"

# A directory that cannot be made or is not one: said, exit 2, the program
# not run (before, a run that measured nothing said nothing and exited 0).
rc 2 "$RUNNER" --hl-output /nonexistent/dir -- "$FAKE_APP" -e ran.txt none
line err "cupti_cb_run: --hl-output: cannot create /nonexistent/dir: No such file or directory"
test -f ran.txt && fail "the program ran with a --hl-output that cannot be made"
echo x > afile
rc 2 "$RUNNER" --hl-output afile -- "$FAKE_APP" a
line err "cupti_cb_run: --hl-output: afile is not a directory"
# Nothing measured: no file, and said.
rc 0 "$RUNNER" --hl-output hl0 -- "$FAKE_APP" none
line err "cupti_cb_run: --hl-output: no file written into hl0: nothing was measured"
test -d hl0 && test -z "$(ls hl0)" || fail "hl0 is not an empty directory"

rc 0 env OMPI_COMM_WORLD_RANK=0 "$RUNNER" -o /dev/null --hl-output hl -- "$FAKE_APP" a b
rc 0 env OMPI_COMM_WORLD_RANK=1 "$RUNNER" -o /dev/null --hl-output hl -- "$FAKE_APP" more
f=hl/rank_000000.json
"$JSON_GET" $f /papi_version | grep -q '^7\.[0-9]*\.[0-9]*\.[0-9]*$' || fail "papi_version is not 7.x.y.z"
js $f '/event_definitions/cupti_cb:::api.calls/component' cupti_cb
js $f '/event_definitions/cupti_cb:::api.calls/type' delta
js $f '/event_definitions/cupti_cb:::alloc.peak_bytes/type' instant
js $f '/event_definitions/cupti_cb:::gpu.busy_ns/type' delta
js $f /event_definitions/# 37
js $f /threads/# 1
js $f /threads/0/regions/# 1
js $f /threads/0/regions/0/name cupti_cb_run
js $f /threads/0/regions/0/parent_region_id -1
js $f /threads/0/regions/0/cycles 0
js $f '/threads/0/regions/0/cupti_cb:::api.calls' 15
js $f '/threads/0/regions/0/cupti_cb:::kernel.launches' 7
js $f '/threads/0/regions/0/cupti_cb:::memcpy.bytes_htod' 4196
# Values are strings, as papi_hl.c writes them.
"$JSON_GET" $f '/threads/0/regions/0' | grep -q '"cupti_cb:::api.calls":"15"' || fail "values are not strings"
# Events no process file had are not in the region.
"$JSON_GET" $f '/threads/0/regions/0/cupti_cb:::gpu.memset.count' > /dev/null 2>&1 && fail "gpu.memset.count is in the region"
js hl/rank_000001.json '/threads/0/regions/0/cupti_cb:::api.calls' 13

if ! command -v python3 > /dev/null 2>&1; then
	echo "python3 is missing: the structure was checked, papi_hl_output_writer.py was not run"
	finish
fi
if ! test -f "$HL_WRITER"; then
	fail "$HL_WRITER is missing"
	finish
fi
src=$("$HL_OPTION" "$HL_WRITER") || fail "no option of $HL_WRITER for the ranks' directory"
rc 0 python3 "$HL_WRITER" "$src" hl --type summary --notation raw
js papi_sum.json /cupti_cb_run/region_count 2
js papi_sum.json '/cupti_cb_run/cupti_cb:::api.calls/min' 13
js papi_sum.json '/cupti_cb_run/cupti_cb:::api.calls/max' 15
js papi_sum.json '/cupti_cb_run/cupti_cb:::api.calls/median' 14
js papi_sum.json '/cupti_cb_run/cupti_cb:::kernel.launches/max' 7
js papi_sum.json '/cupti_cb_run/cupti_cb:::memcpy.bytes_htod/min' 4196
js papi_sum.json '/cupti_cb_run/Number of ranks' 2
rc 0 python3 "$HL_WRITER" "$src" hl --type detail --notation derived
js papi.json '/ranks/1/threads/0/regions/0/cupti_cb:::api.calls' 13
# Summed over devices: the peaks of device 0 (16384) and device 1 (4096).
js papi.json '/ranks/0/threads/0/regions/0/cupti_cb:::alloc.peak_bytes' 20480
finish
