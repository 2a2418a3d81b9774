#!/bin/bash
# run-runner-bench [OUTDIR]: what cupti_cb_run costs the programs it measures, on a GPU machine,
# in one run: each workload bare, under cupti_cb_run (callbacks and GPU activity: its default),
# with --no-gpu-activity, with --no-time, and under Nsight Systems (nsys profile --trace=cuda),
# in rounds whose mode order alternates; and CUPTI's floors for an injected tool
# (libbench_inject_floor.so: an empty callback on every CBID, as cupti_cb_run enables them, with
# the activity kinds of its gpu.* events (floor) or without them (floor_cb); with the clock read
# at every call site that timing every call needs (floor_clock_act, floor_clock)).
#
# Workloads:
# Each workload waits 600 ms after its warm-up, so that --start-after 300ms counts its timed part.
#   app1, app4  bench_app_loop: empty kernel launches (1 and 4 threads) with a copy every 200;
#           its own measure is ns per launch in the steady loop
#   streams bench_streams: simpleStreams' pattern (4 streams, a kernel and a copy back to pinned
#           memory on each, an event waited for); its own measure is us per iteration
#   torch   bench_torch_step.py: training steps of a small MLP with PyTorch (when python3 can
#           import torch and torch sees a GPU); its own measure is ms per step
#
# Modes that take parts of the runner away, to find where its cost goes (BENCH_MODES):
#   runner_noflush   the default with CUPTI_CB_FLUSH_MS=60000 (no periodic activity flush)
#   runner_cb_totals --no-gpu-activity with CUPTI_CB_RUN_MAX_EVENTS=3 (the totals only: calls and
#                    their time are counted, no per-function event set, no minimum or maximum)
#   runner_cb_calls  --no-gpu-activity with CUPTI_CB_RUN_MAX_EVENTS=1 (api.calls only: no clock)
#   floor_res        CUPTI's floor with the resource callbacks (cbids_res)
#   floor_clock      CUPTI's floor with a clock read at every call site (cbids_clock): what timing
#                    every call costs at the least; floor_clock_act the same with the activity kinds
#   floor_apiact     CUPTI's activity records of runtime and driver calls, no callback (api_act):
#                    the mechanism Nsight Systems uses
# Profiles (BENCH_WHERE=1): after the rounds, one more run of each workload in each of
# BENCH_WHERE_MODES (default: floor_cb floor runner_cb runner) with libbench_where.so preloaded,
# which samples the process's CPU time during the timed part (or, with BENCH_WHERE_THREAD_US=N,
# the launching thread's time every N us): where/WORKLOAD-MODE.PID has the samples by library
# and function, where.md the samples by library side by side and the share of cupti_cb in the
# launching thread with a 95% interval.
# For both, the wall time of the whole process (start to exit, where tools load and write their
# reports) is measured too.
#
# Writes into OUTDIR (default: the current directory)
#   results.txt   one line per measurement, and meta lines (commit, date, host, device)
#   table.md      medians over rounds, ratios to bare and to nsys
#   report-*.txt  the report cupti_cb_run printed for each workload in round 1
#   bench.log     stderr of every program, and the progress
# and prints table.md.
#
# Environment (all optional): NSYS (the nsys to use), PYTHON (default python3),
# BENCH_ROUNDS (default 3), BENCH_ITERS (launches per thread, default 20000), BENCH_STEPS
# (timed training steps, default 200), BENCH_BUDGET (seconds for the whole run, default 900),
# BENCH_NSYS_LIMIT (seconds one nsys run may take, default 200), BENCH_NSYS_ROUNDS (the rounds
# that run nsys, from the first; default 1: nsys takes minutes to write a PyTorch program's
# report), BENCH_COMMIT (commit recorded;
# default: <prefix>/share/cupti_cb/commit), BENCH_WORKLOADS and BENCH_MODES (space-separated
# lists; default: every workload, and bare, the floors with and without a clock read, the
# runner with and without GPU activity and host times, and nsys),
# BENCH_STREAM_ITERS (iterations of bench_streams, default 5000), BENCH_PIN (a CPU list for
# taskset: every run of every mode pinned to it, the tool's threads too).
# (run-runner-bench.sh in the source tree, installed as run-runner-bench.)
set -u

here=$(cd "$(dirname "$0")" && pwd)
out=${1:-.}
prefix=$(cd "$here/../../.." && pwd)
runner=$prefix/bin/cupti_cb_run
rounds=${BENCH_ROUNDS:-3}
iters=${BENCH_ITERS:-20000}
steps=${BENCH_STEPS:-200}
budget=${BENCH_BUDGET:-900}
nsys_limit=${BENCH_NSYS_LIMIT:-200}	# seconds one nsys run may take (its report is written at exit)
python=${PYTHON:-python3}
. "$here/bench-lib.sh"
bench_begin run-runner-bench "$out"
nsys=$(bench_find_nsys)
commit=$(bench_commit "@pkgdatadir@")
bench_require_gpu
[ -x "$runner" ] || { say "no $runner: install cupti_cb first"; exit 1; }

workloads=${BENCH_WORKLOADS:-app1 app4 streams torch}
case " $workloads " in *" torch "*)
    "$python" -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)' >> "$log" 2>&1 || {
        workloads=$(echo " $workloads " | sed 's/ torch / /')
        echo "note torch skipped: $python cannot import torch or torch sees no GPU" >> "$res"; } ;;
esac
modes=${BENCH_MODES:-bare floor_cb floor floor_clock floor_clock_act runner_cb runner runner_notime runner_cb_notime nsys}
if [ -z "$nsys" ]; then
    case " $modes " in *" nsys "*) echo "note nsys skipped: not found" >> "$res" ;; esac
    modes=$(echo " $modes " | sed 's/ nsys / /')
fi
stream_iters=${BENCH_STREAM_ITERS:-5000}

{
    echo "meta commit $commit"
    echo "meta date $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "meta host $(hostname)"
    echo "meta device $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -n 1 | sed 's/, / driver /')"
    echo "meta nsys ${nsys:-not found}"
    echo "meta torch $("$python" -c 'import torch; print(torch.__version__, "cuda", torch.version.cuda)' 2>/dev/null || echo none)"
    echo "meta rounds $rounds iters $iters steps $steps stream_iters $stream_iters pin ${BENCH_PIN:-none}"
} >> "$res"
sed -n 's/^meta \(commit\|date\|host\|device\|torch\) /# \1: /p' "$res"

program() { # program WORKLOAD: the command line of a workload
    case $1 in
    app1) echo "$here/bench_app_loop --threads=1 --iters=$iters --copies=100 --pause-ms=600" ;;
    app4) echo "$here/bench_app_loop --threads=4 --iters=$iters --copies=100 --pause-ms=600" ;;
    streams) echo "$here/bench_streams --streams=4 --iters=$stream_iters --pause-ms=600" ;;
    torch) echo "$python $here/bench_torch_step.py --steps=$steps --pause-ms=600" ;;
    esac
}

# launch MODE REPORT CMD...: runs CMD in MODE (bounded by $left seconds), stdout into $tmp/out.
launch() {
    local m=$1 report=$2
    shift 2
    [ -n "${BENCH_PIN:-}" ] && set -- taskset -c "$BENCH_PIN" "$@"
    case $m in
    bare) timeout "$left" "$@" ;;
    floor) CUDA_INJECTION64_PATH=$here/libbench_inject_floor.so BENCH_INJECT_FLOOR=cbids_act timeout "$left" "$@" ;;
    floor_cb) CUDA_INJECTION64_PATH=$here/libbench_inject_floor.so BENCH_INJECT_FLOOR=cbids timeout "$left" "$@" ;;
    floor_res) CUDA_INJECTION64_PATH=$here/libbench_inject_floor.so BENCH_INJECT_FLOOR=cbids_res timeout "$left" "$@" ;;
    floor_clock) CUDA_INJECTION64_PATH=$here/libbench_inject_floor.so BENCH_INJECT_FLOOR=cbids_clock timeout "$left" "$@" ;;
    floor_clock_act) CUDA_INJECTION64_PATH=$here/libbench_inject_floor.so BENCH_INJECT_FLOOR=cbids_clock_act timeout "$left" "$@" ;;
    floor_apiact) CUDA_INJECTION64_PATH=$here/libbench_inject_floor.so BENCH_INJECT_FLOOR=api_act timeout "$left" "$@" ;;
    runner) timeout "$left" "$runner" -o "$report" -- "$@" ;;
    runner_late) timeout "$left" "$runner" --start-after 300ms -o "$report" -- "$@" ;;
    runner_cb) timeout "$left" "$runner" --no-gpu-activity -o "$report" -- "$@" ;;
    runner_notime) timeout "$left" "$runner" --no-time -o "$report" -- "$@" ;;
    runner_cb_notime) timeout "$left" "$runner" --no-time --no-gpu-activity -o "$report" -- "$@" ;;
    runner_noflush) CUPTI_CB_FLUSH_MS=60000 timeout "$left" "$runner" -o "$report" -- "$@" ;;
    runner_cb_totals) CUPTI_CB_RUN_MAX_EVENTS=3 timeout "$left" "$runner" --no-gpu-activity -o "$report" -- "$@" ;;
    runner_cb_calls) CUPTI_CB_RUN_MAX_EVENTS=1 timeout "$left" "$runner" --no-gpu-activity -o "$report" -- "$@" ;;
    nsys) [ "$left" -gt "$nsys_limit" ] && left=$nsys_limit
          timeout "$left" "$nsys" profile --trace=cuda -o "$tmp/nsys-$w" --force-overwrite true "$@" ;;
    *) echo "unknown mode $m" >&2; return 2 ;;
    esac > "$tmp/out" 2>> "$log"
}

# measure ROUND WORKLOAD MODE: one run; appends a result line.
measure() {
    local round=$1 w=$2 m=$3 cmd t0 t1 rc left line report=/dev/null
    [ "$m" = nsys ] && [ "$round" -gt "${BENCH_NSYS_ROUNDS:-1}" ] && return
    left=$((budget - (SECONDS - start)))
    if [ "$left" -lt 10 ]; then
        echo "note skipped round=$round workload=$w mode=$m: budget spent" >> "$res"
        return
    fi
    cmd=$(program "$w")
    [ "$round" = 1 ] && report=$out/report-$w-$m.txt
    echo "---- round $round $w $m: $cmd" >> "$log"
    t0=$(date +%s%N)
    # shellcheck disable=SC2086  # the command line is words
    launch "$m" "$report" $cmd
    rc=$?
    t1=$(date +%s%N)
    line=$(grep -E '^(app|streams|torch) ' "$tmp/out" | head -n 1)
    if [ $rc -ne 0 ] || [ -z "$line" ]; then
        echo "error round=$round workload=$w mode=$m exit=$rc: no result (bench.log has its messages)" >> "$res"
    else
        echo "run round=$round workload=$w mode=$m wall_ms=$(( (t1 - t0) / 1000000 )) $line" >> "$res"
    fi
    say "round $round $w $m: exit $rc, $(( (t1 - t0) / 1000000 )) ms"
}

for r in $(seq 1 "$rounds"); do
    order=$modes
    [ $((r % 2)) -eq 0 ] && order=$(echo $modes | tr ' ' '\n' | tac | tr '\n' ' ')
    for w in $workloads; do
        for m in $order; do
            measure "$r" "$w" "$m"
        done
    done
done

# The profiles: one run per workload and mode with libbench_where.so preloaded.
if [ "${BENCH_WHERE:-0}" = 1 ]; then
    mkdir -p "$out/where"
    for w in $workloads; do
        for m in ${BENCH_WHERE_MODES:-floor_cb floor runner_cb runner}; do
            left=$((budget - (SECONDS - start)))
            [ "$left" -lt 10 ] && { echo "note profile skipped workload=$w mode=$m: budget spent" >> "$res"; continue; }
            echo "---- profile $w $m" >> "$log"
            # shellcheck disable=SC2046
            LD_PRELOAD=$here/libbench_where.so BENCH_WHERE_OUT=$out/where/$w-$m launch "$m" /dev/null $(program "$w")
            say "profile $w $m: exit $?"
            echo "profile workload=$w mode=$m $(grep -E '^(app|streams|torch) ' "$tmp/out" | head -n 1)" >> "$res"
        done
    done
    awk '
    FNR == 1 { f = FILENAME; sub(/.*\//, "", f); sub(/\.[0-9]+$/, "", f); files[f] = 1 }
    /^where / { split($2, a, "="); split($3, t, "="); total[f] = a[2]; top[f] = t[2] }
    /^sym / { split($2, n, "="); split($3, t, "="); split($4, l, "="); lib = l[2]; libs[lib] = 1
              by[f, lib] += n[2]; bytop[f, lib] += t[2] }
    END {
        print "# Where the CPU time of the timed part goes"
        print "\nSamples of the process CPU time (SIGPROF, at the kernel tick), all threads and, in"
        print "parentheses, those of the thread with the most (the launching thread).\n"
        printf "| library |"; nf = 0
        for (f in files) order[++nf] = f
        for (i = 1; i <= nf; i++) for (j = i + 1; j <= nf; j++) if (order[j] < order[i]) { sw = order[i]; order[i] = order[j]; order[j] = sw }
        for (i = 1; i <= nf; i++) printf " %s |", order[i]
        printf "\n|---|"; for (i = 1; i <= nf; i++) printf "---:|"; printf "\n| (all) |"
        for (i = 1; i <= nf; i++) printf " %d (%d) |", total[order[i]], top[order[i]]
        printf "\n"
        for (lib in libs) {
            printf "| %s |", lib
            for (i = 1; i <= nf; i++) printf " %d (%d) |", by[order[i], lib], bytop[order[i], lib]
            printf "\n"
        }
    }' "$out"/where/*.* > "$out/where.md" 2>> "$log"
    # The share of the sampled thread that is cupti_cb (libpapi: PAPI itself runs on the
    # runner's own threads), with a 95% interval (Wilson): what it adds over CUPTI's floor,
    # were everything else the same, is 1 / (1 - share).
    awk '
    FNR == 1 { f = FILENAME; sub(/.*\//, "", f); sub(/\.[0-9]+$/, "", f); if (!(f in top)) order[++nf] = f }
    /^where / { for (i = 2; i <= NF; i++) { split($i, p, "="); if (p[1] == "top_thread") top[f] += p[2]; if (p[1] == "clock") clk[f] = p[2] } }
    /^sym / { split($3, t, "="); split($4, l, "=")
              if (l[2] ~ /^libpapi/) ours[f] += t[2]
              if (l[2] ~ /^libcupti/) cupti[f] += t[2] }
    function wilson(k, n, z, s,    p, c, h) { p = k / n; c = (p + z * z / (2 * n)) / (1 + z * z / n)
        h = z * sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n); return s < 0 ? (c > h ? c - h : 0) : c + h }
    END {
        print "\n# The share of cupti_cb in the sampled thread\n"
        print "The launching thread (the thread with the most samples): samples in cupti_cb (libpapi) and"
        print "in CUPTI, the share of cupti_cb with a 95% interval, and 1 / (1 - share), what cupti_cb"
        print "adds to the thread were all else as under CUPTI alone.\n"
        print "| profile | clock | samples | cupti_cb | CUPTI | cupti_cb share | 95% interval | 1 / (1 - share) |"
        print "|---|---|---:|---:|---:|---:|---|---|"
        for (i = 1; i <= nf; i++) { f = order[i]; n = top[f]; if (n < 1) continue
            k = ours[f] + 0; lo = wilson(k, n, 1.96, -1); hi = wilson(k, n, 1.96, 1)
            printf "| %s | %s | %d | %d | %d | %.2f%% | %.2f-%.2f%% | %.3f (%.3f-%.3f) |\n", f, clk[f], n, k, cupti[f],
                100 * k / n, 100 * lo, 100 * hi, 1 / (1 - k / n), 1 / (1 - lo), 1 / (1 - hi) }
    }' "$out"/where/*.* >> "$out/where.md" 2>> "$log"
fi

# The table: per workload and mode, the median of the workload's own measure and of the wall time.
awk "$(cat "$here/bench-lib.awk")"'
function rt(a, b,    x) { x = ratio(a, b); return x == "" ? "-" : sprintf("%.3f", x) }
/^meta (commit|date|host|device|torch) / { meta = meta "- " $2 ": " substr($0, length($1 $2) + 3) "\n" }
/^run / {
    delete kv
    for (i = 2; i <= NF; i++) { split($i, p, "="); kv[p[1]] = p[2] }
    key = kv["workload"] SUBSEP kv["mode"]
    own = (kv["ns_per_launch"] != "") ? kv["ns_per_launch"] : (kv["us_per_iter"] != "") ? kv["us_per_iter"] : kv["ms_per_step"]
    inner[key] = inner[key] " " own
    wall[key] = wall[key] " " kv["wall_ms"]
    byround[kv["round"], key] = own; wallround[kv["round"], key] = kv["wall_ms"]
    if (kv["round"] + 0 > nrounds) nrounds = kv["round"] + 0
    seen[kv["workload"]] = 1; modes_seen[kv["mode"]] = 1
}
END {
    printf "# cupti_cb_run overhead\n\n%s\n", meta
    print "| workload | mode | own measure (median) | lowest-highest | x bare | x its floor | x its timing floor | x nsys | wall ms (median) | x bare | x nsys |"
    print "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
    nw = split("app1 app4 streams torch", ws, " ")
    nm = split("bare floor floor_cb floor_res floor_clock floor_clock_act floor_apiact runner runner_late runner_noflush runner_notime runner_cb runner_cb_totals runner_cb_calls runner_cb_notime nsys", ms, " ")
    # each runner mode against the CUPTI floor of what it enables (callbacks on every CBID, and
    # the activity kinds unless --no-gpu-activity)
    fl["runner"] = "floor"; fl["runner_late"] = "floor"; fl["runner_noflush"] = "floor"
    fl["runner_cb"] = "floor_cb"; fl["runner_cb_totals"] = "floor_cb"; fl["runner_cb_calls"] = "floor_cb"
    fl["runner_notime"] = "floor"; fl["runner_cb_notime"] = "floor_cb"
    # and against the floor of a tool that times every call as they do
    cf["runner"] = "floor_clock_act"; cf["runner_late"] = "floor_clock_act"; cf["runner_cb"] = "floor_clock"
    for (i = 1; i <= nw; i++) {
        w = ws[i]; if (!(w in seen)) continue
        unit = (w == "torch") ? "ms/step" : (w == "streams") ? "us/iter" : "ns/launch"
        # (a lookup of a mode that did not run would make it a row of the table)
        b = ((w SUBSEP "bare") in inner) ? median(inner[w SUBSEP "bare"]) : 0
        bw = ((w SUBSEP "bare") in inner) ? median(wall[w SUBSEP "bare"]) : 0
        ns = ((w SUBSEP "nsys") in inner) ? median(inner[w SUBSEP "nsys"]) : 0
        nsw = ((w SUBSEP "nsys") in inner) ? median(wall[w SUBSEP "nsys"]) : 0
        for (j = 1; j <= nm; j++) {
            m = ms[j]; k = w SUBSEP m; if (!(k in inner)) continue
            v = median(inner[k]); lo = LO; hi = HI; vw = median(wall[k])
            f = (m in fl && (w SUBSEP fl[m]) in inner) ? median(inner[w SUBSEP fl[m]]) : 0
            c = (m in cf && (w SUBSEP cf[m]) in inner) ? median(inner[w SUBSEP cf[m]]) : 0
            r = (m ~ /^runner/ && ns > 0)
            printf "| %s | %s | %.4g %s | %.4g-%.4g | %s | %s | %s | %s | %d | %s | %s |\n", w, m, v, unit, lo, hi,
                rt(v, b), rt(v, f), rt(v, c), (r ? rt(v, ns) : "-"), vw, rt(vw, bw), (r ? rt(vw, nsw) : "-")
        }
    }
    # Paired ratios: the speed of a process moves by 10-25% from one process to the next, so the
    # ratio of two medians of a few rounds cannot tell 1.03 from 1.00.  Each round runs every
    # mode next to the others; the ratio of a mode to its reference in the same round, over the
    # rounds, has a median and an interval for that median whatever the distribution.  A target
    # is met when the whole interval is at or below it, missed when the whole interval is above.
    np = split("runner floor 1.05 own;runner_cb floor_cb 1.03 own;runner floor_clock_act - own;" \
               "runner_cb floor_clock - own;runner_notime floor - own;runner_cb_notime floor_cb - own;" \
               "runner nsys 1.00 own;runner_cb nsys - own;runner nsys 1.00 wall", pairs, ";")
    print "\n## Paired ratios\n"
    print "Each round'"'"'s run of a mode over the same round'"'"'s run of its reference: median over the rounds,"
    print "and an interval for the median (order statistics; coverage as shown).  Target: met when the"
    print "interval is at or below it, not met when it is above, unresolved when it straddles it.\n"
    print "| workload | mode | against | measure | rounds | median | interval | coverage | target | verdict |"
    print "|---|---|---|---|---:|---:|---|---:|---:|---|"
    for (i = 1; i <= nw; i++) {
        w = ws[i]; if (!(w in seen)) continue
        for (j = 1; j <= np; j++) {
            split(pairs[j], pp, " "); m = pp[1]; ref = pp[2]; tgt = pp[3]; meas = pp[4]
            list = ""
            for (r = 1; r <= nrounds; r++) {
                if (!((r, w SUBSEP m) in byround) || !((r, w SUBSEP ref) in byround)) continue
                a = (meas == "wall") ? wallround[r, w SUBSEP m] : byround[r, w SUBSEP m]
                d = (meas == "wall") ? wallround[r, w SUBSEP ref] : byround[r, w SUBSEP ref]
                if (d > 0) list = list " " a / d
            }
            if (list == "") continue
            med = median_ci(list); n = CNT
            vd = "-"
            if (tgt != "-") vd = (CIHI <= tgt + 0 && n > 1) ? "met" : (CILO > tgt + 0 && n > 1) ? "not met" : "unresolved"
            printf "| %s | %s | %s | %s | %d | %.3f | %.3f-%.3f | %.0f%% | %s | %s |\n", w, m, ref,
                (meas == "wall" ? "wall time" : "own"), n, med, CILO, CIHI, COVER, (tgt == "-" ? "-" : "<= " tgt), vd
        }
    }
}' "$res" > "$out/table.md"
grep -E '^(error|note) ' "$res" >> "$out/table.md"
cat "$out/table.md"
