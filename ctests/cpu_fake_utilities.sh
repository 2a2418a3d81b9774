#!/bin/sh
# cpu_fake_utilities: PAPI's own utilities over the component, with the fakes' device (whose
# chip lists the metrics), as a user runs them:
#  - papi_event_chooser NATIVE cupti_cb:::kernel.launches adds every event and qualifier next to
#    the given one and prints each qualifier's text from the first ':' of its long description
#    on, without checking that there is one: it crashed on the metrics' qualifiers, whose text
#    did not fit after their descriptions;
#  - papi_native_avail -i shows a metric, its qualifier and the qualifier's text (what follows
#    "masks:"); it overran its own buffer (1,024 bytes, grown by as much) on a description of
#    over 1,000 bytes, as a metric's list of suffixes made (cpu_fake_metrics longnames);
#  - papi_xml_event_info -c N lists every event of the component in well-formed elements;
#  - papi_command_line with a misspelt name prints, once, the nearest names on stderr (it said
#    only "Event does not exist"); a metric that exists only with :sampled, that form; an event
#    given a qualifier it does not take, the ones it takes; a name that resolves, nothing;
#  - a name too long for PAPI is no event (PAPI_ENOEVNT at every length: one over 255
#    characters was PAPI_EINVAL), and PAPI_VERBOSE=1 says why (nothing did).
set -u
fails=0 n=0
check() { # name, got, want
    n=$((n + 1))
    if [ "$2" = "$3" ]; then echo "ok $n - $1"; else echo "not ok $n - $1: got '$2', want '$3'"; fails=$((fails + 1)); fi
}
bin=${PAPI_BIN:?PAPI_BIN: where the PAPI utilities are}
fakes=${FAKES_DIR:?FAKES_DIR: where the fakes are}
CUPTI_CB_CUPTI_LIB=$fakes/libcupti.so CUPTI_CB_CUDA_LIB=$fakes/libcuda.so
export CUPTI_CB_CUPTI_LIB CUPTI_CB_CUDA_LIB
out=$(mktemp -d "${TMPDIR:-/tmp}/utilities.XXXXXX") || exit 1
trap 'rm -rf "$out"' EXIT

"$bin/papi_event_chooser" NATIVE cupti_cb:::kernel.launches > "$out/chooser.txt" 2>&1
check "papi_event_chooser NATIVE cupti_cb:::kernel.launches: exit status" "$?" 0
total=$(sed -n 's/^Total events reported: //p' "$out/chooser.txt")
check "papi_event_chooser: more than 500 events can be added with kernel.launches" \
    "$([ "${total:-0}" -gt 500 ] && echo yes)" yes
check "papi_event_chooser: a metric's qualifier with its text" \
    "$(grep -c '^    0x[0-9a-f]* *:::.*__.*:device=0  |Only CUDA device 0' "$out/chooser.txt" | sed 's/^[1-9][0-9]*$/some/')" some

"$bin/papi_native_avail" -i CTC.TriageCompute.ctc__rx_bytes > "$out/native.txt" 2>&1
check "papi_native_avail -i CTC.TriageCompute.ctc__rx_bytes: exit status" "$?" 0
nq=$(grep -c '^|     :device=0  *|$' "$out/native.txt")
nt=$(grep -A1 '^|     :device=0  *|$' "$out/native.txt" | grep -c '^|  *Only CUDA device 0 (also spelt :device0)  *|$')
check "papi_native_avail: the metrics' qualifier shown" "$([ "$nq" -ge 1 ] && echo yes)" yes
check "papi_native_avail: each with the qualifier's text under it" "$nt" "$nq"

found=
for c in 0 1 2 3 4 5 6 7; do
    "$bin/papi_xml_event_info" -c $c > "$out/xml.txt" 2>&1 || continue
    grep -q 'id="cupti_cb"' "$out/xml.txt" && { found=$c; break; }
done
check "papi_xml_event_info -c N: the component found" "${found:+yes}" yes
check "papi_xml_event_info: the document is complete" "$(tail -n 1 "$out/xml.txt")" "</eventinfo>"
check "papi_xml_event_info: kernel.launches listed" \
    "$(grep -c '<event index="[0-9]*" name="cupti_cb:::kernel.launches"' "$out/xml.txt")" 1
"$bin/papi_command_line" cupti_cb:::kernel.lanches > "$out/cl.txt" 2> "$out/cl.err"
check "papi_command_line cupti_cb:::kernel.lanches: the nearest name, once" \
    "$(cat "$out/cl.err")" "cupti_cb: no event 'kernel.lanches'; did you mean 'kernel.launches'?"
"$bin/papi_command_line" cupti_cb:::dram__bytes_reed.sum > "$out/cl.txt" 2> "$out/cl.err"
check "papi_command_line cupti_cb:::dram__bytes_reed.sum: the metric with its rollup" \
    "$(cat "$out/cl.err")" "cupti_cb: no event 'dram__bytes_reed.sum'; did you mean 'dram__bytes_read.sum'?"
"$bin/papi_command_line" cupti_cb:::dram__read_throughput > "$out/cl.txt" 2> "$out/cl.err"
check "papi_command_line cupti_cb:::dram__read_throughput: it exists only with :sampled" \
    "$(cat "$out/cl.err")" "cupti_cb: no event 'dram__read_throughput'; it exists as 'dram__read_throughput:sampled'"
"$bin/papi_command_line" cupti_cb:::api.calls:device=0 > "$out/cl.txt" 2> "$out/cl.err"
check "papi_command_line cupti_cb:::api.calls:device=0: the qualifiers it takes" \
    "$(cat "$out/cl.err")" "cupti_cb: no event 'api.calls:device=0': 'api.calls' takes :process, :thread"
# A name without cupti_cb::: reaches the component only where PAPI asks every component
# (7.0 to 7.2); the development head asks perf_event alone, and cupti_cb never sees it.
if "$bin/papi_native_avail" -e kernel.launches > /dev/null 2>&1; then
    "$bin/papi_native_avail" -e kernel.lanches > "$out/cl.txt" 2> "$out/cl.err"
    check "papi_native_avail -e kernel.lanches (no prefix): the nearest name" \
        "$(cat "$out/cl.err")" "cupti_cb: no event 'kernel.lanches'; did you mean 'kernel.launches'?"
else
    n=$((n + 1)); echo "ok $n - papi_native_avail -e kernel.lanches # SKIP this PAPI looks names without a component up in perf_event only"
fi
"$bin/papi_command_line" cupti_cb:::kernel.launches > "$out/cl.txt" 2> "$out/cl.err"
check "papi_command_line cupti_cb:::kernel.launches: nothing on stderr" "$(cat "$out/cl.err")" ""
long=$(printf 'a%.0s' $(seq 300))
PAPI_VERBOSE=1 "$bin/papi_command_line" "cupti_cb:::kernel.launches:$long" > "$out/cl.txt" 2> "$out/cl.err"
check "a name of 316 characters: no such event (it was PAPI_EINVAL; 116 to 255 were PAPI_ENOEVNT)" \
    "$(grep -c '^because: Event does not exist$' "$out/cl.txt")" 1
check "and under PAPI_VERBOSE=1 why, once" "$(grep cupti_cb "$out/cl.err")" \
    "PAPI Error: cupti_cb: no event 'kernel.launches:aaaaaaaaaaaaaaaaaaaaaaaa...': a name of 316 characters after cupti_cb:::, longer than the 115 PAPI holds"
echo "1..$n"
[ "$fails" -eq 0 ]
