#!/bin/bash
# consumers-test: scripts/consumers/run-gpu's arguments, and its checks read from each tool's
# output, with stand-ins for the tools (no TAU, HPCToolkit, Caliper or GPU needed): a program
# that prints known --expect values, a tau_exec that writes TAU profile files, an hpcrun that
# writes hpcrun's log summary, and a program that writes Caliper's expand report.  The
# stand-ins report the right values, then wrong ones: run-gpu must PASS the first and FAIL
# (exit 1) the second, naming the region, event and values.
set -u
here=$(cd "$(dirname "$0")" && pwd)
rg=$here/consumers/run-gpu
tmp=$(mktemp -d)
trap "rm -rf $tmp" EXIT
. "$here/test-lib.sh"
has() { # name, file, fixed string that must be a whole line of it
    n=$((n + 1))
    if grep -Fxq -- "$3" "$2"; then
        echo "ok $n - $1"
    else
        echo "not ok $n - $1: no line '$3' in $2:"
        sed 's/^/#   /' "$2"
        fails=$((fails + 1))
    fi
}

# ---- stand-ins
P=$tmp/papi T=$tmp/tools
mkdir -p "$P/lib" "$P/bin" "$T/tau/x86_64/bin" "$T/hpctoolkit/bin" "$T/caliper/lib" "$T/lib"
: > "$P/lib/libpapi.so"
printf '#!/bin/sh\necho "Name:   cupti_cb   (stand-in)"\n' > "$P/bin/papi_component_avail"
# The program: one main-thread region (5 launches) and one region in two threads (1 and 2).
# Under the Caliper stand-in (CALI_REPORT_FILENAME set) it writes the report; STUB_BAD=1 makes
# every tool stand-in report one launch too many in region r1.
cat > "$tmp/app" <<'EOF'
#!/bin/bash
if [ "${1:-}" = --expect ]; then
    printf 'r1 kernel.launches 5\nr1 graph.launches 0\nrt kernel.launches 1 2\n'
    exit 0
fi
if [ -n "${CALI_REPORT_FILENAME:-}" ]; then
    case ,$CALI_SERVICES_ENABLE, in *,papi,*) ;; *) exit 3 ;; esac
    echo "${CALI_PAPI_ENABLE_MULTIPLEXING:-unset}" > caliper-multiplexing
    # run-gpu --sde: the SDE library's names, and the library loaded.
    pre=cupti_cb:::
    case $CALI_PAPI_COUNTERS in
    sde:::cupti_cb::*) pre=sde:::cupti_cb::; case " $LD_PRELOAD " in *"/libcupti_cb_sde.so "*) ;; *) exit 4 ;; esac ;;
    esac
    k="sum#papi.${pre}kernel.launches"
    {
        echo "pthread.id=1,$k=0,count=3"
        echo "pthread.id=1,region=r1,$k=$((5 + ${STUB_BAD:-0})),sum#papi.${pre}graph.launches=0,count=1"
        echo "pthread.id=2,region=rt,$k=2,count=1"
        echo "pthread.id=3,region=rt,$k=1,count=1"
    } > "$CALI_REPORT_FILENAME"
fi
echo "app: done"
EOF
# tau_exec: one profile per thread and metric, in TAU's format; TAU_EBS_SOURCE gives 8 samples.
cat > "$T/tau/x86_64/bin/tau_exec" <<'EOF'
#!/bin/bash
prof() { # dir thread lines...
    mkdir -p "$1"
    local f=$1/profile.0.0.$2
    shift 2
    { echo "$# templated_functions_MULTI_x"; echo '# Name Calls Subrs Excl Incl ProfileCalls #'
      for l in "$@"; do echo "$l"; done; echo '0 aggregates'; } > "$f"
}
k=MULTI__PAPI_NATIVE_cupti_cb___kernel.launches
case $TAU_METRICS in *PAPI_NATIVE_cupti_cb:::kernel.launches*) ;; *) exit 3 ;; esac
echo "${TAU_PAPI_MULTIPLEXING:-unset}" > tau-multiplexing
prof $k 0 '".TAU application" 1 1 0 9 0 GROUP="TAU_DEFAULT"' \
    "\"r1\" 1 0 $((5 + ${STUB_BAD:-0})) $((5 + ${STUB_BAD:-0})) 0 GROUP=\"TAU_USER\""
prof $k 1 '"rt" 1 0 2 2 0 GROUP="TAU_USER"'
prof $k 2 '"rt" 1 0 1 1 0 GROUP="TAU_USER"'
prof MULTI__PAPI_NATIVE_cupti_cb___graph.launches 0 '"r1" 1 0 0 0 0 GROUP="TAU_USER"'
# Like TAU: samples only from a source that is a metric's name once PAPI_NATIVE_ is taken off it
# (TAU matches the source against that name; with PAPI_NATIVE_ in the source it samples nothing).
s=0
case ",$TAU_METRICS," in *",PAPI_NATIVE_${TAU_EBS_SOURCE:-none},"*) s=$((8 + ${STUB_BAD:-0})) ;; esac
prof MULTI__TIME 0 "\"[SAMPLE] f [{a.c} {1}]\" $((s - 3)) 0 1 1 0 GROUP=\"TAU_SAMPLE\"" \
    '"[SAMPLE] g [{a.c} {2}]" 3 0 1 1 0 GROUP="TAU_SAMPLE"'
while [ "${1#-}" != "$1" ]; do [ "$1" != -T ] || shift; shift; done
"$@"
EOF
printf '#!/bin/sh\necho pprof\n' > "$T/tau/x86_64/bin/pprof"
# hpcrun: the log summary, 8 recorded samples (HPC_PERIOD=1: 5 + 1 + 2 launches).
cat > "$T/hpctoolkit/bin/hpcrun" <<'EOF'
#!/bin/bash
[ "$1" = -o ] || exit 3
mkdir -p "$2"
r=$((8 + ${STUB_BAD:-0}))
printf '[x]: SUMMARY: samples: %d (recorded: %d, blocked: 0, errant: 0, trolled: 0, yielded: 0),\n' $((r + 1)) $r > "$2/app-1.log"
shift 2
while [ "$1" = -e ]; do shift 2; done
"$@"
EOF
: > "$T/caliper/lib/libcaliper.so.2"
chmod +x "$tmp/app" "$P/bin/papi_component_avail" "$T"/*/x86_64/bin/* "$T"/*/bin/* 2>/dev/null
chmod +x "$T/hpctoolkit/bin/hpcrun"

# ---- arguments
rc() { "$@" > "$tmp/out.txt" 2>&1; echo $?; }
check "no OUTDIR: exit 2" "$(rc "$rg" --papi "$P" --tools "$T" --app "$tmp/app")" 2
check "no OUTDIR: says so" "$(grep -c 'OUTDIR is required' "$tmp/out.txt")" 1
check "two OUTDIRs: exit 2" "$(rc "$rg" --papi "$P" --tools "$T" --app "$tmp/app" "$tmp/o1" "$tmp/o2")" 2
check "--only with an unknown tool: exit 2" "$(rc "$rg" --only tau,nsys --papi "$P" --tools "$T" "$tmp/o")" 2
check "--only with an unknown tool: names it" "$(grep -c "unknown tool 'nsys'" "$tmp/out.txt")" 1
check "--papi without libpapi: exit 2" "$(rc "$rg" --papi "$tmp" --tools "$T" --app "$tmp/app" "$tmp/o")" 2
check "--tools missing: exit 2" "$(rc "$rg" --papi "$P" --tools "$tmp/none" --app "$tmp/app" "$tmp/o")" 2
check "an unknown option: exit 2" "$(rc "$rg" --bogus "$tmp/o")" 2

# ---- the right values: every check passes
o=$tmp/good
check "right values: exit 0" "$(HPC_PERIOD=1 rc "$rg" --papi "$P" --tools "$T" --app "$tmp/app" "$o")" 0
has "TAU timers: main-thread region" "$o/results.txt" "PASS tau timers: r1 kernel.launches = 5"
has "TAU timers: a region in two threads" "$o/results.txt" "PASS tau timers: rt kernel.launches = 1 2"
has "TAU: an event without expectation is INFO" "$o/results.txt" "INFO tau timers: r1 gpu.kernels = none (no expectation)"
has "TAU ebs-gpu: samples = launches / period" "$o/results.txt" \
    "PASS tau ebs-gpu: 8 samples on cupti_cb:::kernel.launches every 1"
has "TAU ebs: samples counted from [SAMPLE] entries" "$o/results.txt" "INFO tau ebs: 0 samples (SIGPROF timer)"
has "hpcrun: recorded samples" "$o/results.txt" "PASS hpctoolkit launches: 8 samples on cupti_cb:::kernel.launches@1"
has "Caliper: main-thread region" "$o/results.txt" "PASS caliper regions: r1 kernel.launches = 5"
has "Caliper: a region in two threads" "$o/results.txt" "PASS caliper sampler: rt kernel.launches = 1 2"
has "Caliper: a missing attribute reads 0" "$o/results.txt" "PASS caliper regions: r1 graph.launches = 0"
check "right values: no FAIL" "$(grep -c '^FAIL' "$o/results.txt")" 0
check "the commands are printed" "$(grep -c '^+ (cd .*tau_exec -T papi,pthread' "$o/log.txt")" 4
has "TAU with PAPI multiplexing" "$o/results.txt" "PASS tau multiplex: r1 kernel.launches = 5"
check "TAU multiplex: run with TAU_PAPI_MULTIPLEXING=1" "$(cat "$o/tau/multiplex/tau-multiplexing")" 1
check "TAU timers: run without it" "$(cat "$o/tau/timers/tau-multiplexing")" unset
has "Caliper with PAPI multiplexing" "$o/results.txt" "PASS caliper multiplex: rt kernel.launches = 1 2"
check "Caliper multiplex: CALI_PAPI_ENABLE_MULTIPLEXING=true" "$(cat "$o/caliper/multiplex/caliper-multiplexing")" true
check "Caliper regions: multiplexing off" "$(cat "$o/caliper/regions/caliper-multiplexing")" false

# ---- one launch too many in r1, and one sample too many: FAIL lines and exit 1
o=$tmp/bad
check "wrong values: exit 1" "$(STUB_BAD=1 HPC_PERIOD=1 rc "$rg" --papi "$P" --tools "$T" --app "$tmp/app" "$o")" 1
has "TAU: a wrong value FAILs" "$o/results.txt" "FAIL tau timers: r1 kernel.launches = 6, expected 5"
has "TAU ebs-gpu: a wrong count FAILs" "$o/results.txt" \
    "FAIL tau ebs-gpu: 9 samples on cupti_cb:::kernel.launches every 1, expected 8"
has "hpcrun: a wrong count FAILs" "$o/results.txt" \
    "FAIL hpctoolkit launches: 9 samples on cupti_cb:::kernel.launches@1, expected 8"
has "Caliper: a wrong value FAILs" "$o/results.txt" "FAIL caliper regions: r1 kernel.launches = 6, expected 5"
has "the other values still PASS" "$o/results.txt" "PASS tau timers: rt kernel.launches = 1 2"

# ---- --only: one tool
o=$tmp/only
check "--only caliper: exit 0" "$(rc "$rg" --only caliper --papi "$P" --tools "$T" --app "$tmp/app" "$o")" 0
check "--only caliper: no TAU line" "$(grep -c ' tau ' "$o/results.txt")" 0

# ---- --sde: the SDE library's counters, loaded into each run; no PAPI_overflow run
o=$tmp/sde
: > "$tmp/libcupti_cb_sde.so"
check "--sde with Caliper: exit 0" \
    "$(rc "$rg" --only caliper,hpctoolkit --sde "$tmp/libcupti_cb_sde.so" --papi "$P" --tools "$T" --app "$tmp/app" "$o")" 0
has "--sde: Caliper reads sde:::cupti_cb:: counters" "$o/results.txt" "PASS caliper regions: r1 kernel.launches = 5"
has "--sde: hpcrun is not run" "$o/results.txt" \
    "INFO hpctoolkit: not run with --sde (hpcrun samples through PAPI_overflow, not tried on SDE counters)"
check "--sde with a missing library: exit 2" "$(rc "$rg" --sde "$tmp/none.so" --papi "$P" --tools "$T" "$tmp/o")" 2

tap_done
