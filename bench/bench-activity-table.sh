#!/bin/sh
# bench-activity-table.sh RESULTS.TXT > TABLE.MD: turns the results.txt written by
# run-activity-bench into markdown (launch cost per mode, ratios, read latency, targets).
# BENCH_THREADS (default 1,4,16) gives the columns.  Plain POSIX awk (mawk works).
here=$(dirname "$0")
program=$(cat "$here/bench-lib.awk"; cat <<'AWK'
function cost(mode, t) { return ((mode, t) in NS) ? NS[mode, t] : "" }
function target(what, measured, limit, result) {
    TGT[++ntgt] = "| " what " | " measured " | " limit " | " result " |"
}

BEGIN {
    if (threads == "") threads = "1,4,16"
    nthr = split(threads, THR, ",")
    nmodes = split("bare floor floor_cb callback counted nsys", MODES, " ")
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
$1 == "launch" {
    key = F["mode"] SUBSEP F["threads"]
    ROUNDS[key] = ROUNDS[key] " " F["ns_per_launch"]
    if (F["check"] == "FAIL") {
        BAD[F["mode"], F["threads"]] = 1
        note("check FAILED for mode=" F["mode"] " threads=" F["threads"] \
             ": the counter read at PAPI_stop did not equal the launches made (bench.log has the values)")
    }
    next
}
$1 == "read" {
    READ[++nread] = "| " F["case"] " | " F["pending"] " | " F["reads"] " | " F["median_ns"] " | " F["p99_ns"] " | " F["check"] " |"
    RMED[F["case"]] = F["median_ns"]
    if (F["check"] == "FAIL")
        note("check FAILED for read case " F["case"] ": the value read was wrong (bench.log has the values)")
    next
}

END {
    for (key in ROUNDS) {
        NS[key] = median(ROUNDS[key])
        RANGE[key] = CNT > 1 ? " (" fmt_ns(LO) ".." fmt_ns(HI) ")" : ""
    }
    print "# cupti_cb GPU activity benchmark"
    print ""
    print "- date: " META["date"]
    print "- device: " META["device"] "; " META["cpus"] " CPUs; host " META["host"]
    print "- commit: " META["commit"]
    print "- command: `" META["command"] "`"
    print "- Nsight Systems: " META["nsys"]
    print "- launches per thread and repetition: " META["iters"] "; floor buffers: " META["buffer_kib"] " KiB"
    print "- total wall time: " META["total_s"] " s"
    print ""
    print "## Cost per empty kernel launch, ns"
    print ""
    print "empty<<<1,1,0,s>>>() on a non-blocking stream per thread, the launch plus its share of the"
    print "final cudaStreamSynchronize.  Mean over threads; median of 5 repetitions in a process;"
    print "median over " META["rounds"] " rounds, one process per mode and round, with (lowest..highest)"
    print "round; nsys: one round."
    print ""
    hdr = "| mode |"; sep = "|---|"
    for (t = 1; t <= nthr; t++) { hdr = hdr " " THR[t] " |"; sep = sep "---:|" }
    print hdr
    print sep
    for (m = 1; m <= nmodes; m++) {
        row = "| " MODES[m] " |"
        for (t = 1; t <= nthr; t++)
            row = row " " fmt_ns(cost(MODES[m], THR[t])) RANGE[MODES[m], THR[t]] \
                (((MODES[m], THR[t]) in BAD) ? " (check FAILED)" : "") " |"
        print row
    }
    print ""
    print "### Ratios (same run)"
    print ""
    print "| ratio |" substr(hdr, 9)
    print "|---|" substr(sep, 6)
    nr = split("counted/floor counted/floor_cb counted/bare floor/bare floor_cb/bare callback/bare nsys/counted", RAT, " ")
    for (r = 1; r <= nr; r++) {
        split(RAT[r], p, "/")
        row = "| " RAT[r] " |"
        for (t = 1; t <= nthr; t++)
            row = row " " fmt_r(ratio(cost(p[1], THR[t]), cost(p[2], THR[t]))) " |"
        print row
    }

    print ""
    print "## PAPI_read latency, ns (each read timed alone, cost of the clock reads subtracted)"
    print ""
    print "| case | kernels pending per read | reads | median | p99 | check |"
    print "|---|---:|---:|---:|---:|---|"
    for (i = 1; i <= nread; i++) print READ[i]

    m = ""; DETAIL = ""
    for (t = 1; t <= nthr; t++) {
        r = ratio(cost("counted", THR[t]), cost("floor", THR[t]))
        if (r == "") { m = ""; break }
        if (m == "" || r > m) m = r
        DETAIL = DETAIL (t > 1 ? ", " : "") THR[t] ": " fmt_r(r)
    }
    target("gpu.kernels counting: counted / floor, every thread count", m == "" ? "-" : fmt_r(m) " (" DETAIL ")", "<= 1.10", verdict(m <= 1.10, m != ""))
    a = RMED["cb_alone"]; b = RMED["cb_beside_gpu"]
    ok = num(a) && num(b) && (b <= 1.05 * a || b <= a + 10)
    target("PAPI_read of a set without gpu.* events beside a running gpu.* set with records pending: cb_beside_gpu against cb_alone, median", (num(a) && num(b)) ? b " ns against " a " ns" : "-", "unchanged: <= 1.05x or <= +10 ns", verdict(ok, num(a) && num(b)))
    print_targets()
}
AWK
)
exec awk -v threads="${BENCH_THREADS:-1,4,16}" "$program" "$@"
