#!/bin/sh
# bench-sampling-table.sh RESULTS.TXT > TABLE.MD: turns the results.txt written by
# run-sampling-bench into markdown (read cost, cost to the application per sampling interval,
# TAU-pattern step, targets).  Plain POSIX awk (mawk works).
here=$(dirname "$0")
program=$(cat "$here/bench-lib.awk"; cat <<'AWK'
function us(x) { return !num(x) ? "-" : (x < 10 ? sprintf("%.2f", x) : (x < 1000 ? sprintf("%.1f", x) : sprintf("%.0f", x))) }
function spread(s,    m) { m = median(s); return !num(m) ? "-" : us(m) (CNT > 1 ? " (" us(LO) ".." us(HI) ")" : "") }
function target(what, measured, limit, ok, have) {
    TGT[++ntgt] = "| " what " | " measured " | " limit " | " verdict(ok, have) " |"
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
$1 == "read" {
    RMED[F["set"]] = RMED[F["set"]] " " F["median_us"]
    RP99[F["set"]] = RP99[F["set"]] " " F["p99_us"]
    RN[F["set"]] = F["reads"]
    next
}
$1 == "app" {
    k = F["mode"] (F["mode"] == "sampled" ? "@" F["interval_us"] : "")
    if (!(k in AL)) AORDER[++napp] = k
    AL[k] = AL[k] " " F["launch_ms"]
    AS[k] = AS[k] " " F["stream_ms"]
    if (F["check"] == "FAIL")
        note("check FAILED for app mode " k ": the set's value at PAPI_stop was wrong (bench.log has it)")
    next
}
$1 == "tau" {
    TS[F["set"]] = TS[F["set"]] " " F["step_us"]
    TN[F["set"]] = F["steps"]
    if (F["check"] == "FAIL")
        note("check FAILED for tau set " F["set"] ": the reads did not add up to the launches")
    next
}
$1 == "edges" {
    if (!(F["set"] in ES)) EORDER[++nedge] = F["set"]
    ES[F["set"]] = ES[F["set"]] " " F["start_ms"]
    ER[F["set"]] = ER[F["set"]] " " F["read_ms"]
    EP[F["set"]] = EP[F["set"]] " " F["stop_ms"]
    EN[F["set"]] = F["reps"]
    if (F["check"] == "FAIL")
        note("check FAILED for edges set " F["set"] ": a stop's value was off the bytes moved by more than 2%")
    next
}
END {
    print "# cupti_cb sampled-metrics benchmark"
    print ""
    print "- commit: " META["commit"]
    print "- date: " META["date"]
    print "- host: " META["host"] " (" META["cpus"] " CPUs)"
    print "- device: " META["device"]
    print "- rounds: " META["rounds"] "; " META["app"]
    print ""
    print "Medians over rounds, (lowest..highest round)."
    print ""
    print "## PAPI_read cost (us)"
    print ""
    print "| set | reads per process | median | p99 |"
    print "|---|---|---|---|"
    n = split("sampled callback range", S, " ")
    for (i = 1; i <= n; i++)
        if (S[i] in RMED) {
            print "| " S[i] " | " RN[S[i]] " | " spread(RMED[S[i]]) " | " spread(RP99[S[i]]) " |"
            RM[S[i]] = median(RMED[S[i]])
        }
    r = ratio(RM["sampled"], RM["callback"])
    print ""
    print "sampled / callback (medians): " fmt_r(r) "; range / sampled: " fmt_r(ratio(RM["range"], RM["sampled"]))
    target("sampled PAPI_read, median", us(RM["sampled"]) " us", "<= 10 us", RM["sampled"] <= 10, num(RM["sampled"]))
    print ""
    print "## Cost to the application (ms per repetition; ratio to bare)"
    print ""
    print "| mode | empty launches | ratio | streaming kernels | ratio |"
    print "|---|---|---|---|---|"
    bl = median(AL["bare"]); bs = median(AS["bare"])
    for (i = 1; i <= napp; i++) {
        k = AORDER[i]
        l = median(AL[k]); s = median(AS[k])
        print "| " k " | " spread(AL[k]) " | " fmt_r(ratio(l, bl)) " | " spread(AS[k]) " | " fmt_r(ratio(s, bs)) " |"
    }
    print ""
    print "## TAU-pattern step (us per step: 3 nested timers, read + reset at 6 boundaries, one kernel + sync)"
    print ""
    print "| set | steps per process | step | ratio to callback |"
    print "|---|---|---|---|"
    cb = median(TS["callback"])
    n = split("callback sampled range", S, " ")
    for (i = 1; i <= n; i++)
        if (S[i] in TS) {
            m = median(TS[S[i]])
            TM[S[i]] = m
            print "| " S[i] " | " TN[S[i]] " | " spread(TS[S[i]]) " | " fmt_r(ratio(m, cb)) " |"
        }
    r = ratio(TM["sampled"], cb)
    target("TAU step with a sampled metric / callback only", fmt_r(r), "<= 1.2", r != "" && r <= 1.2, r != "")
    if (nedge) {
        print ""
        print "## A window's edges right after synchronized work (ms per call, medians)"
        print ""
        print "sampled: PAPI_start and PAPI_stop cut at their moment by the samples' timestamps; exact:"
        print "CUPTI_CB_SAMPLING_EXACT=1, where a read cuts too; range: the Range Profiler."
        print ""
        print "| set | calls per process | PAPI_start | PAPI_read | PAPI_stop |"
        print "|---|---|---|---|---|"
        for (i = 1; i <= nedge; i++) {
            k = EORDER[i]
            print "| " k " | " EN[k] " | " spread(ES[k]) " | " spread(ER[k]) " | " spread(EP[k]) " |"
        }
        sp = median(EP["sampled"]); rp = median(EP["range"])
        target("sampled PAPI_stop / the Range Profiler's", fmt_r(ratio(sp, rp)), "< 1", num(sp) && num(rp) && sp < rp, num(sp) && num(rp))
    }
    print_targets()
}
AWK
)
awk "$program" "$@"
