#!/bin/bash
# bench-runner-table.sh DIR: the tables of run-runner-bench from what it wrote into DIR,
# written again (so that a result directory can be rendered anew):
#   DIR/table.md   from DIR/results.txt: per workload and mode, the medians of the workload's own
#                  measure and of the wall time, ratios to bare, to the floors and to nsys; then
#                  the paired ratios by round, with an interval for their median and a verdict
#                  on each target
# bench-runner-table.sh --where DIR [LIBPAPI]
#   DIR/where.md   from the profiles DIR/where/*.*: samples by library side by side, the
#                  share of cupti_cb and of the tools in the sampled thread with a 95% interval
#                  and their spread over processes, each mode against its floor by the
#                  tools' share, and cupti_cb's samples by part (clock reads, windows, the
#                  rest) where addr2line and the libpapi the profiles ran with are at hand
#                  (LIBPAPI, or $BENCH_WHERE_LIBPAPI; default: the installed one)
# Plain awk (mawk works).
set -u
here=$(cd "$(dirname "$0")" && pwd)
# parts DIR LIBPAPI: cupti_cb's samples in the sampled thread by part, the offsets resolved
# against the libpapi the profiles ran with (addr2line -i: the innermost function, inlined
# ones included): the clock reads (__rdtsc), the min/max windows, and the rest.
parts() {
    printf '\n## cupti_cb by part\n\n'
    if ! command -v addr2line > /dev/null 2>&1 || [ ! -r "$2" ]; then
        echo "Not resolved here (no addr2line, or no $2): render again where both are, with"
        echo "\`bench-runner-table.sh --where DIR LIBPAPI\`, LIBPAPI the library the profiles ran with."
        return 0
    fi
    offs=$(awk '/^sym / && / lib=libpapi/ { for (i = 2; i <= NF; i++) if ($i ~ /^off=/) print substr($i, 5) }' \
        "$1"/where/*.* | sort -u)
    echo "Samples of the sampled thread in cupti_cb, by the innermost function (inlined ones"
    echo "included) of each, in per cent of the thread: the time-stamp counter's reads, the"
    echo "min/max windows (cupti_cb_windows_*) and the rest; resolved against $2. Beyond the"
    echo "clock: 1 / (1 - (share - clock reads)), what cupti_cb adds to the thread were all else"
    echo "as under CUPTI's floor with a clock read at every call site (floor_clock)."
    echo
    map=$(mktemp) || return
    # addr2line -a prints each address (0x, 16 digits), then function and place, innermost first.
    [ -z "$offs" ] || addr2line -a -f -i -e "$2" $offs | awk '
        /^0x[0-9a-f]+$/ { a = $1; sub(/^0x0*/, "0x", a); if (a == "0x") a = "0x0"; want = 1; next }
        want { part = "rest"; if ($1 == "__rdtsc" || $1 == "cupti_cb_clock_now") part = "clock"
               else if ($1 ~ /^cupti_cb_windows_/) part = "windows"
               print a, part; want = 0 }' > "$map" || { rm -f "$map"; return 1; }
    awk "$(cat "$here/bench-lib.awk")"'
    FILENAME == MAP { part[$1] = $2; next }
    FNR == 1 { f = profile_of(FILENAME); if (!(f in nproc)) order[++nf] = f; nproc[f]++ }
    /^where / { for (i = 2; i <= NF; i++) { split($i, q, "="); if (q[1] == "top_thread") top[f] += q[2] } }
    /^sym / && / lib=libpapi/ { n = 0; o = ""
        for (i = 2; i <= NF; i++) { split($i, q, "="); if (q[1] == "top") n = q[2]; if (q[1] == "off") o = q[2] }
        k = (o in part) ? part[o] : "rest"; by[f, k] += n; all[f] += n }
    /^sym / && / lib=libbench_inject_floor/ { for (i = 2; i <= NF; i++) { split($i, q, "="); if (q[1] == "top") flr[f] += q[2] } }
    END {
        sort_names(order, nf)
        print "| profile | processes | samples | cupti_cb | clock reads | min/max windows | the rest | beyond the clock |"
        print "|---|---:|---:|---:|---:|---:|---:|---:|"
        for (i = 1; i <= nf; i++) { f = order[i]; if (!all[f] || !top[f]) continue
            printf "| %s | %d | %d | %.2f%% | %.2f%% | %.2f%% | %.2f%% | %.3f |\n", f, nproc[f], top[f], 100 * all[f] / top[f],
                100 * by[f, "clock"] / top[f], 100 * by[f, "windows"] / top[f], 100 * by[f, "rest"] / top[f],
                1 / (1 - (all[f] - by[f, "clock"]) / top[f]) }
        # The floor library: under floor_clock, an empty callback and a clock read at every
        # call site, that is what the clock reads cost the thread under CUPTI alone.
        nfl = 0
        for (i = 1; i <= nf; i++) { f = order[i]; if (!flr[f] || !top[f]) continue
            if (!nfl++) { print "\nThe floor library (libbench_inject_floor.so) in the same thread: under `floor_clock`, the"
                          print "clock reads at every call site, under `floor_cb` an empty callback.\n"
                          print "| profile | processes | samples | floor library |"; print "|---|---:|---:|---:|" }
            printf "| %s | %d | %d | %.2f%% |\n", f, nproc[f], top[f], 100 * flr[f] / top[f] }
    }' MAP="$map" "$map" "$1"/where/*.*
    rc=$?
    rm -f "$map"
    return $rc
}
if [ "${1:-}" = --where ]; then
    out=$2
    awk "$(cat "$here/bench-lib.awk")"'
    FNR == 1 { f = profile_of(FILENAME); files[f] = 1 }
    /^where / { split($2, a, "="); split($3, t, "="); total[f] += a[2]; top[f] += t[2] }
    /^sym / { split($2, n, "="); split($3, t, "="); split($4, l, "="); lib = l[2]; libs[lib] = 1
              by[f, lib] += n[2]; bytop[f, lib] += t[2] }
    END {
        print "# Where the CPU time of the timed part goes"
        print "\nSamples (SIGPROF) of the process CPU time at the kernel tick, or of the launching thread"
        print "alone every BENCH_WHERE_THREAD_US us (the clock column of the next table says which),"
        print "all threads and, in parentheses, those of the thread with the most (the launching thread).\n"
        printf "| library |"; nf = 0
        for (f in files) order[++nf] = f
        sort_names(order, nf)
        for (i = 1; i <= nf; i++) printf " %s |", order[i]
        printf "\n|---|"; for (i = 1; i <= nf; i++) printf "---:|"; printf "\n| (all) |"
        for (i = 1; i <= nf; i++) printf " %d (%d) |", total[order[i]], top[order[i]]
        printf "\n"
        for (lib in libs) {
            printf "| %s |", lib
            for (i = 1; i <= nf; i++) printf " %d (%d) |", by[order[i], lib], bytop[order[i], lib]
            printf "\n"
        }
    }' "$out"/where/*.* > "$out/where.md" || exit
    # The share of the sampled thread that is cupti_cb (libpapi: PAPI itself runs on the
    # runner's own threads), with a 95% interval (Wilson) on the samples of all the processes of
    # a profile together, and the lowest and highest share of one process (processes differ
    # more than the samples of one do); what it adds over CUPTI's floor, were everything else
    # the same, is 1 / (1 - share).  Then the share of every tool library, and of the vDSO's
    # clock_gettime, which CUPTI calls to time its activity records of API calls.
    awk "$(cat "$here/bench-lib.awk")"'
    FNR == 1 { p = base_of(FILENAME); f = profile_of(FILENAME)
               if (!(f in nproc)) order[++nf] = f; nproc[f]++; proc[f, nproc[f]] = p }
    /^where / { for (i = 2; i <= NF; i++) { split($i, q, "="); if (q[1] == "top_thread") { top[f] += q[2]; ptop[p] += q[2] }
                                             if (q[1] == "clock") clk[f] = q[2] } }
    /^sym / { split($3, t, "="); split($4, l, "=")
              if (l[2] ~ /^libpapi/) { ours[f] += t[2]; pours[p] += t[2] }
              if (l[2] ~ /^libcupti/) cupti[f] += t[2]
              if (l[2] ~ /^linux-vdso/) { vdso[f] += t[2]; pvdso[p] += t[2] }
              if (l[2] ~ /^(libpapi|libcupti|libToolsInjection|libbench_inject_floor)/) { tool[f] += t[2]; ptool[p] += t[2] } }
    function wilson(k, n, z, s,    p, c, h) { p = k / n; c = (p + z * z / (2 * n)) / (1 + z * z / n)
        h = z * sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n); return s < 0 ? (c > h ? c - h : 0) : c + h }
    # the lowest and highest per-process share of a profile, of counts c[] (with the vDSO: v = 1)
    function span(f, c, v,    j, p, x) { lo_s = 2; hi_s = -1
        for (j = 1; j <= nproc[f]; j++) { p = proc[f, j]; if (ptop[p] < 1) continue
            x = (c[p] + (v ? pvdso[p] : 0)) / ptop[p]; if (x < lo_s) lo_s = x; if (x > hi_s) hi_s = x } }
    function pct(x) { return sprintf("%.2f%%", 100 * x) }
    END {
        print "\n# The share of cupti_cb in the sampled thread\n"
        print "The launching thread (the thread with the most samples), over the processes of each profile:"
        print "samples in cupti_cb (libpapi) and in CUPTI, the share of cupti_cb with a 95% interval on the"
        print "samples, the lowest and highest share of one process, and 1 / (1 - share), what cupti_cb adds"
        print "to the thread were all else as under CUPTI alone; the share of every tool library (CUPTI,"
        print "cupti_cb, the floor, Nsight Systems: libToolsInjection64) and of the vDSO (clock_gettime:"
        print "CUPTI times its activity records of API calls with it; the program may call it too).\n"
        print "| profile | clock | processes | samples | cupti_cb | CUPTI | cupti_cb share | 95% interval | per process | 1 / (1 - share) | tool libraries | per process | vDSO |"
        print "|---|---|---:|---:|---:|---:|---:|---|---|---|---:|---|---:|"
        for (i = 1; i <= nf; i++) { f = order[i]; n = top[f]; if (n < 1) continue
            k = ours[f] + 0; lo = wilson(k, n, 1.96, -1); hi = wilson(k, n, 1.96, 1); span(f, pours, 0)
            printf "| %s | %s | %d | %d | %d | %d | %s | %.2f-%.2f%% | %.2f-%.2f%% | %.3f (%.3f-%.3f) |", f, clk[f], nproc[f], n, k,
                cupti[f], pct(k / n), 100 * lo, 100 * hi, 100 * lo_s, 100 * hi_s, 1 / (1 - k / n), 1 / (1 - lo), 1 / (1 - hi)
            span(f, ptool, 0)
            printf " %s | %.2f-%.2f%% | %s |\n", pct(tool[f] / n), 100 * lo_s, 100 * hi_s, pct(vdso[f] / n) }
        # Each mode against its floor by the share of the tools (the vDSO included) in the thread:
        # (1 - floor share) / (1 - mode share) is the time the thread takes under the mode over its
        # time under the floor, were the program the same.  The interval pairs the processes
        # least and most favourable: met when even the least is at or below the target.
        print "\n# Against the floors, by the share of the tools in the thread\n"
        print "(1 - share under the floor) / (1 - share under the mode), the libraries of the tools and the vDSO"
        print "counted; from all the samples, and from the least and most favourable pairs of processes;"
        print "a verdict needs 3 processes of each (BENCH_WHERE_REPEAT).\n"
        print "| workload | mode | against | ratio | pairs of processes | target | verdict |"
        print "|---|---|---|---:|---|---:|---|"
        np = split("runner_cb floor_cb 1.03 runner floor 1.05 floor_clock floor_cb 1.03 runner_cb floor_clock 1.03 runner floor_clock_act 1.05 floor_apiact floor_cb 1.03 floor_apiops floor_cb 1.03 floor_apiops_act floor 1.05 floor_apiops_tsc floor_cb 1.03 floor_apiops_tsc floor_clock 1.00 floor_apiops_act_tsc floor 1.05 runner nsys 1.00 runner_cb nsys 1.00 runner nsys_all 1.00 runner_cb nsys_all 1.00 nsys nsys_all 1.00", pr, " ")
        nw = split("app1 app4 streams torch", ws, " ")
        for (a = 1; a <= nw; a++) for (b = 1; b < np; b += 3) {
            m = ws[a] "-" pr[b]; g = ws[a] "-" pr[b + 1]
            if (!(m in nproc) || !(g in nproc) || top[m] < 1 || top[g] < 1) continue
            sm = (tool[m] + vdso[m]) / top[m]; sg = (tool[g] + vdso[g]) / top[g]
            span(m, ptool, 1); mlo = lo_s; mhi = hi_s; span(g, ptool, 1); glo = lo_s; ghi = hi_s
            best = (1 - ghi) / (1 - mlo); worst = (1 - glo) / (1 - mhi)
            v = worst <= pr[b + 2] ? "met" : best > pr[b + 2] ? "not met" : "unresolved"
            if (nproc[m] < 3 || nproc[g] < 3) v = "too few processes"
            printf "| %s | %s | %s | %.3f | %.3f-%.3f | <= %.2f | %s |\n", ws[a], pr[b], pr[b + 1], (1 - sg) / (1 - sm),
                best, worst, pr[b + 2], v }
    }' "$out"/where/*.* >> "$out/where.md" || exit
    parts "$out" "${3:-${BENCH_WHERE_LIBPAPI:-$here/../../../lib/libpapi.so.7.0}}" >> "$out/where.md" || exit
    exit 0
fi
out=${1:?usage: bench-runner-table.sh [--where] DIR}
res=$out/results.txt
# The table: per workload and mode, the median of the workload's own measure and of the wall time.
awk "$(cat "$here/bench-lib.awk")"'
function rt(a, b,    x) { x = ratio(a, b); return x == "" ? "-" : sprintf("%.3f", x) }
# a measure to 4 significant digits, never in exponent form (10070, not 1.007e+04)
function digits(x) { return x >= 1000 ? sprintf("%.0f", x) : sprintf("%.4g", x) }
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
    nm = split("bare floor floor_cb floor_res floor_clock floor_clock_act floor_apiact floor_apiact_act floor_apiops floor_apiops_act floor_apiact_tsc floor_apiops_tsc floor_apiops_act_tsc runner runner_late runner_noflush runner_notime runner_cb runner_cb_totals runner_cb_calls runner_cb_notime nsys nsys_all", ms, " ")
    ms[++nm] = "runner_timeline"
    # each runner mode against the CUPTI floor of what it enables (callbacks on every CBID, and
    # the activity kinds unless --no-gpu-activity)
    fl["runner"] = "floor"; fl["runner_late"] = "floor"; fl["runner_noflush"] = "floor"
    fl["runner_cb"] = "floor_cb"; fl["runner_cb_totals"] = "floor_cb"; fl["runner_cb_calls"] = "floor_cb"
    fl["runner_notime"] = "floor"; fl["runner_cb_notime"] = "floor_cb"
    fl["runner_timeline"] = "floor"
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
            printf "| %s | %s | %s %s | %s-%s | %s | %s | %s | %s | %d | %s | %s |\n", w, m, digits(v), unit, digits(lo), digits(hi),
                rt(v, b), rt(v, f), rt(v, c), (r ? rt(v, ns) : "-"), vw, rt(vw, bw), (r ? rt(vw, nsw) : "-")
        }
    }
    # Paired ratios: the speed of a process moves by 10-25% from one process to the next, so the
    # ratio of two medians of a few rounds cannot tell 1.03 from 1.00.  Each round runs every
    # mode next to the others; the ratio of a mode to its reference in the same round, over the
    # rounds, has a median and an interval for that median whatever the distribution.  A target
    # is met when the whole interval is at or below it, missed when the whole interval is above,
    # and judged only with an interval of 90% or more (5 rounds or more).
    np = split("runner floor 1.05 own;runner_cb floor_cb 1.03 own;runner floor_clock_act - own;" \
               "runner_cb floor_clock - own;runner_notime floor - own;runner_cb_notime floor_cb - own;" \
               "runner nsys 1.00 own;runner_cb nsys 1.00 own;runner nsys 1.00 wall;runner_cb nsys 1.00 wall;" \
               "runner nsys_all 1.00 own;runner_cb nsys_all 1.00 own;runner nsys_all 1.00 wall;runner_cb nsys_all 1.00 wall;" \
               "floor_clock floor_cb - own;floor_clock_act floor - own;" \
               "runner_timeline runner - own;runner_timeline runner - wall;runner_timeline bare - own", pairs, ";")
    print "\n## Paired ratios\n"
    print "Each round'"'"'s run of a mode over the same round'"'"'s run of its reference: median over the rounds,"
    print "and an interval for the median (order statistics; coverage as shown).  Target: met when the"
    print "interval is at or below it, not met when it is above, unresolved when it straddles it;"
    print "no verdict with an interval of less than 90% (fewer than 5 rounds).\n"
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
            if (tgt != "-") vd = (COVER < 90) ? "too few rounds" : (CIHI <= tgt + 0) ? "met" : (CILO > tgt + 0) ? "not met" : "unresolved"
            printf "| %s | %s | %s | %s | %d | %.3f | %.3f-%.3f | %.0f%% | %s | %s |\n", w, m, ref,
                (meas == "wall" ? "wall time" : "own"), n, med, CILO, CIHI, COVER, (tgt == "-" ? "-" : "<= " tgt), vd
        }
    }
}' "$res" > "$out/table.md" || exit
grep -E '^(error|note) ' "$res" >> "$out/table.md"
cat "$out/table.md"
