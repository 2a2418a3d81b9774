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
#  - papi_xml_event_info -c N lists every event of the component in well-formed elements.
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
echo "1..$n"
[ "$fails" -eq 0 ]
