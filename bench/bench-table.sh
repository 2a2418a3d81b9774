#!/bin/sh
# bench-table.sh RESULTS.TXT > TABLE.MD: turns the results.txt written by
# run-bench into markdown (cost tables, ratios, read latency, start-up,
# memory, targets).  BENCH_THREADS (default 1,4,16,64) gives the columns.
#
# Input lines are "word key=value ..." or "mode=... api=... ..." (bench_calls);
# "meta KEY free text" lines give the header.  Plain POSIX awk (mawk works).
here=$(dirname "$0")
program=$(cat "$here/bench-lib.awk"; cat <<'AWK'
function cost(mode, api, t) { return ((mode, api, t) in NS) ? NS[mode, api, t] : "" }

# Largest num/den over the thread counts in list (comma-separated); sets
# DETAIL to "t: r, ..." and returns "" when a value is missing.
function max_ratio(num_mode, den_mode, api, list,    n, k, t, r, m) {
    n = split(list, k, ",")
    m = ""
    DETAIL = ""
    for (t = 1; t <= n; t++) {
        r = ratio(cost(num_mode, api, k[t]), cost(den_mode, api, k[t]))
        if (r == "")
            return ""
        if (m == "" || r > m)
            m = r
        DETAIL = DETAIL (t > 1 ? ", " : "") k[t] ": " fmt_r(r)
    }
    return m
}

# "After PAPI_stop the cost is bare within noise": at every thread count the
# stopped median is at most 1.05x bare's, or no higher than bare's slowest round.
function stopped_verdict(api,    n, k, t, st, b) {
    n = split(threads, k, ",")
    for (t = 1; t <= n; t++) {
        st = cost("stopped", api, k[t])
        b = cost("bare", api, k[t])
        if (!num(st) || !num(b))
            return "n/a"
        if (st > 1.05 * b && st > MAXNS["bare", api, k[t]])
            return "MISS"
    }
    return "PASS"
}

function target(what, measured, limit, result) {
    TGT[++ntgt] = "| " what " | " measured " | " limit " | " result " |"
}

BEGIN {
    if (threads == "") threads = "1,4,16,64"
    nthr = split(threads, THR, ",")
    nmodes = split("bare floor floor_domains counted counted_time other stopped mutex_map nsys", MODES, " ")
    LABEL["getdevice"] = "cudaGetDevice"
    LABEL["launch"] = "empty kernel launch (<<<1,1>>> on a per-thread stream; launch plus its share of the final sync)"
}

$1 == "meta" {
    key = $2
    $1 = ""; $2 = ""
    sub(/^ +/, "")
    META[key] = $0
    next
}
$1 == "error" || $1 == "note" { note($0); next }
{ parse() }
$1 ~ /^mode=/ {
    key = F["mode"] SUBSEP F["api"] SUBSEP F["threads"]
    ROUNDS[key] = ROUNDS[key] " " F["ns_per_call"]
    if (F["check"] == "FAIL") {
        BAD[F["mode"], F["api"], F["threads"]] = 1
        note("check FAILED for mode=" F["mode"] " api=" F["api"] " threads=" F["threads"] \
             ": cupti_cb's counters did not match the calls made (bench.log has the values)")
    }
    next
}
$1 == "read" {
    READ[++nread] = "| " F["scope"] " | " F["events"] " | " (F["scope"] == "thread" ? "-" : F["threads"]) \
        " | " F["reads"] " | " F["median_ns"] " | " F["p99_ns"] " |"
    if (F["scope"] == "thread" && F["events"] == 8) READ_T8 = F["median_ns"]
    if (F["scope"] == "process" && F["threads"] == 64) { READ_P64 = F["median_ns"]; READ_P64_99 = F["p99_ns"] }
    if (F["check"] == "FAIL")
        note("check FAILED for process-scope read with " F["threads"] " threads: cudaGetDevice.calls:process did not equal the thread count")
    next
}
$1 == "sde-read" || $1 == "cb-read" {
    READ[++nread] = "| thread, " ($1 == "cb-read" ? "no CUDA call" : "through SDE (`sde:::cupti_cb::`, Debian's PAPI)") \
        " | " F["events"] " | - | " F["reads"] " | " F["median_ns"] " | " F["p99_ns"] " |"
    if (F["check"] == "FAIL")
        note("check FAILED for " $1 ": cudaGetDevice.calls did not read 0")
    next
}
$1 == "cuinit" { CUINIT = F["cuinit_ms"]; next }
$1 == "startup" { INIT[F["cuda_first"]] = F["library_init_ms"]; ADD[F["cuda_first"]] = F["first_add_ms"]; next }
$1 == "memory" { for (k in F) MEM[k] = F[k]; next }
$1 == "listing" { for (k in F) LIST[k] = F[k]; next }

END {
    for (key in ROUNDS) {
        NS[key] = median(ROUNDS[key])
        RANGE[key] = CNT > 1 ? " (" fmt_ns(LO) ".." fmt_ns(HI) ")" : ""
        MAXNS[key] = HI
    }
    print "# cupti_cb benchmark"
    print ""
    print "- date: " META["date"]
    print "- device: " META["device"] "; " META["cpus"] " CPUs; host " META["host"]
    print "- commit: " META["commit"]
    print "- command: `" META["command"] "`"
    print "- Nsight Systems: " META["nsys"]
    print "- total wall time: " META["total_s"] " s"

    # ---- cost per call
    print ""
    print "## Cost per call, ns"
    print ""
    print "Mean over threads of each thread's time per call; median of 5 repetitions in a process;"
    print "median over " META["rounds"] " rounds, one process per mode and round, with (lowest..highest)"
    print "round; nsys: one round.  Ratios and targets use the medians."
    hdr = "| mode |"; sep = "|---|"
    for (t = 1; t <= nthr; t++) { hdr = hdr " " THR[t] " |"; sep = sep "---:|" }
    for (a = 1; a <= 2; a++) {
        api = a == 1 ? "getdevice" : "launch"
        print ""
        print "### " LABEL[api]
        print ""
        print hdr
        print sep
        for (m = 1; m <= nmodes; m++) {
            row = "| " MODES[m] " |"
            for (t = 1; t <= nthr; t++)
                row = row " " fmt_ns(cost(MODES[m], api, THR[t])) RANGE[MODES[m], api, THR[t]] \
                    (((MODES[m], api, THR[t]) in BAD) ? " (check FAILED)" : "") " |"
            print row
        }
    }

    # ---- ratios
    print ""
    print "### Ratios (same run)"
    print ""
    print "| ratio | api |" substr(hdr, 9)
    print "|---|---|" substr(sep, 6)
    nr = split("counted/floor counted_time/floor counted/bare counted_time/bare other/bare stopped/bare floor/floor_domains mutex_map/counted nsys/counted", RAT, " ")
    for (a = 1; a <= 2; a++) {
        api = a == 1 ? "getdevice" : "launch"
        for (r = 1; r <= nr; r++) {
            split(RAT[r], p, "/")
            row = "| " RAT[r] " | " api " |"
            for (t = 1; t <= nthr; t++)
                row = row " " fmt_r(ratio(cost(p[1], api, THR[t]), cost(p[2], api, THR[t]))) " |"
            print row
        }
    }

    # ---- read latency
    print ""
    print "## PAPI_read latency, ns (each read timed alone, cost of the clock reads subtracted)"
    print ""
    print "| scope | events | threads alive | reads | median | p99 |"
    print "|---|---:|---:|---:|---:|---:|"
    for (i = 1; i <= nread; i++) print READ[i]

    # ---- start-up
    print ""
    print "## Start-up"
    print ""
    print "| | PAPI_library_init, ms | first PAPI_add_named_event, ms | sum, ms |"
    print "|---|---:|---:|---:|"
    for (cf = 0; cf <= 1; cf++)
        if (cf in INIT)
            printf "| %s | %.3f | %.3f | %.3f |\n", cf ? "CUDA initialized before" : "fresh process", INIT[cf], ADD[cf], INIT[cf] + ADD[cf]
    if (CUINIT != "")
        printf "| cuInit(0) alone, fresh process (CUDA's own start-up, part of the first add above) | | %.3f | |\n", CUINIT
    print ""
    if ("wall_s" in LIST)
        print "Full listing `papi_native_avail -i cupti_cb`: " LIST["wall_s"] " s, " LIST["events"] " events reported (exit status " LIST["rc"] ")."
    else
        print "Full listing: not measured (see notes)."

    # ---- memory
    print ""
    print "## Memory (VmRSS, KiB; page granularity)"
    print ""
    if ("process_kb" in MEM) {
        print "| what | KiB |"
        print "|---|---:|"
        print "| per process: PAPI_library_init + first PAPI_start, beyond the same program without PAPI | " MEM["process_kb"] " |"
        print "| per thread: each of " MEM["threads"] " threads running the 8-event set, beyond the same threads without PAPI | " MEM["per_thread_kb"] " |"
        print "| VmRSS before PAPI / after first start / with the threads alive | " MEM["rss_before_kb"] " / " MEM["rss_started_kb"] " / " MEM["rss_threads_kb"] " |"
        print "| VmHWM at the end | " MEM["hwm_kb"] " |"
    } else
        print "Not measured (see notes)."

    # ---- targets
    for (a = 1; a <= 2; a++) {
        api = a == 1 ? "getdevice" : "launch"
        r = max_ratio("counted", "floor", api, "1,4,16")
        target("counted (calls), " api ": counted / floor at 1, 4, 16 threads", r == "" ? "-" : fmt_r(r) " (" DETAIL ")", "<= 1.10", verdict(r <= 1.10, r != ""))
        r = max_ratio("counted_time", "floor", api, "1,4,16")
        target("counted (calls + time), " api ": counted_time / floor at 1, 4, 16 threads", r == "" ? "-" : fmt_r(r) " (" DETAIL ")", "<= 1.10", verdict(r <= 1.10, r != ""))
    }
    for (a = 1; a <= 2; a++) {
        api = a == 1 ? "getdevice" : "launch"
        r = max_ratio("other", "bare", api, threads)
        target("uncounted API, " api ": other / bare, all thread counts", r == "" ? "-" : fmt_r(r) " (" DETAIL ")", "<= 1.05", verdict(r <= 1.05, r != ""))
        r = max_ratio("stopped", "bare", api, threads)
        target("after PAPI_stop, " api ": stopped / bare, all thread counts", r == "" ? "-" : fmt_r(r) " (" DETAIL ")", "<= 1.05, or within the range of bare over rounds", stopped_verdict(api))
    }
    target("PAPI_read, thread scope, 8 events, median", num(READ_T8) ? READ_T8 " ns" : "-", "<= 200 ns", verdict(READ_T8 <= 200, num(READ_T8)))
    target("PAPI_read, process scope, 8 events, 64 threads alive, median (p99)", num(READ_P64) ? READ_P64 " ns (" READ_P64_99 " ns)" : "-", "<= 5000 ns", verdict(READ_P64 <= 5000, num(READ_P64)))
    s = (0 in INIT) ? INIT[0] + ADD[0] : ""
    target("PAPI_library_init + first add, fresh process", num(s) ? sprintf("%.1f ms", s) : "-", "<= 50 ms", verdict(s <= 50, num(s)))
    w = ("wall_s" in LIST) ? LIST["wall_s"] : ""
    target("full listing, papi_native_avail -i cupti_cb", num(w) ? w " s" : "-", "<= 1 s", verdict(w <= 1 && LIST["rc"] == 0, num(w)))
    r = ratio(cost("mutex_map", "getdevice", 16), cost("counted", "getdevice", 16))
    target("16 threads, getdevice: mutex_map / counted", fmt_r(r), ">= 10", verdict(r >= 10, r != ""))
    r = ratio(cost("mutex_map", "launch", 16), cost("counted", "launch", 16))
    target("16 threads, launch: mutex_map / counted (launch cost is mostly the driver's)", fmt_r(r), ">= 10", r == "" ? "n/a" : "info")
    for (a = 1; a <= 2; a++) {
        api = a == 1 ? "getdevice" : "launch"
        r = ratio(cost("nsys", api, 16), cost("counted", api, 16))
        target("16 threads, " api ": nsys / counted", fmt_r(r), "> 1", verdict(r > 1, r != ""))
    }
    print_targets()
}
AWK
)
exec awk -v threads="${BENCH_THREADS:-1,4,16,64}" "$program" "$@"
