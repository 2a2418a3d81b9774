#!/bin/sh
# bench-metrics-table.sh RESULTS.TXT > TABLE.MD: turns the results.txt written
# by run-metrics-bench into markdown: cost of each step per side (median and
# lowest over processes, ratio upstream/cupti_cb of the medians), the metric
# values of both sides, the targets.
#
# Input lines: "meta KEY text", "error ...", "note ...", and result lines
# "PART comp=SIDE key=value ... rep=N" (see bench_metrics.cu).  POSIX awk.
here=$(dirname "$0")
program=$(cat "$here/bench-lib.awk"; cat <<'AWK'
# F[key] = value for each key=value field after the first word, as text.
function parse_text(    i, p) {
    split("", F)
    for (i = 2; i <= NF; i++)
        if ((p = index($i, "=")) > 0)
            F[substr($i, 1, p - 1)] = substr($i, p + 1)
}
function isnum(v) { return v ~ /^-?[0-9]+(\.[0-9]*)?([eE][-+]?[0-9]+)?$/ }
function fmt(x,    a) {
    if (x == "") return "-"
    x += 0
    if (x == int(x)) return sprintf("%.0f", x)
    a = x < 0 ? -x : x
    if (a >= 100) return sprintf("%.1f", x)
    if (a >= 1) return sprintf("%.2f", x)
    return sprintf("%.3f", x)
}
# "median (lowest; n)" of side's values of key k, "-" when none.
function cell(k, side,    m) {
    if (!((k, side) in V)) return "-"
    m = median(V[k, side])
    MED[k, side] = m
    return fmt(m) (CNT > 1 ? " (" fmt(LO) "; " CNT ")" : "")
}
function ratio_of(k, digits,    a, b) {
    if (!((k, US) in MED) || !((k, THEM) in MED)) return "-"
    a = MED[k, THEM]; b = MED[k, US]
    if (b == 0) return "-"
    return sprintf("%." (digits ? digits : 2) "f", a / b)
}
function row(part, key, label, unit,    k, a, b) {
    k = part SUBSEP key
    if (!((k, US) in V) && !((k, THEM) in V)) return
    SEEN[k] = 1
    a = cell(k, US); b = cell(k, THEM)
    print "| " label " | " unit " | " a " | " b " | " ratio_of(k) " |"
}

BEGIN { US = "cupti_cb"; THEM = "cuda" }
$1 == "meta" {
    key = $2
    if (key == "event") {
        parse_text()
        EVENT[F["comp"], F["metric"]] = F["name"]
        next
    }
    $1 = ""; $2 = ""
    sub(/^ +/, "")
    META[key] = $0
    next
}
$1 == "note" { note($0); next }
# The same error in several processes: one note, with their count.
$1 == "error" {
    e = $0
    sub(/ rep=[0-9]+/, "", e)
    if (!(e in ERRN)) EORDER[++nerr] = e
    ERRN[e]++
    next
}
$1 == "value" {
    parse_text()
    m = F["metric"]
    if (!(m in METRIC)) { METRIC[m] = 1; MORDER[++nm] = m }
    for (f = 1; f <= 2; f++) {
        w = f == 1 ? "mid" : "end"
        if (isnum(F[w])) VAL[m, w, F["comp"]] = VAL[m, w, F["comp"]] " " F[w]
    }
    EVENT[F["comp"], m] = F["event"]
    next
}
{
    part = $1
    parse_text()
    side = F["comp"]
    if (side == "") next
    if (part == "listing" && F["complete"] == "0")
        note("a listing of " side " stopped at the time limit (" META["listing_limit"] " s) after " F["events"] " events" \
             (F["native_events"] + 0 > F["events"] + 0 && F["events"] + 0 > 0 ? " of " F["native_events"] \
              sprintf(" (at that pace the whole listing takes about %.0f s)", F["total_s"] * F["native_events"] / F["events"]) : "") \
             ": its time is a lower bound")
    for (k in F) {
        if (k == "comp" || k == "rep" || k == "complete" || k == "iters" || k == "mib" ||
            k == "blocks" || k == "threads" || !isnum(F[k])) continue
        V[part, k, side] = V[part, k, side] " " F[k]
        if (!((part, k) in KEYS)) { KEYS[part, k] = 1; KORDER[++nk] = part SUBSEP k }
    }
}
END {
    print "# Hardware metrics: cupti_cb and upstream PAPI's cuda component"
    print ""
    print "- date: " META["date"]
    print "- device: " META["device"] " (driver " META["driver"] "); CUDA " META["cuda"] "; " META["cpus"] " CPUs; host " META["host"]
    print "- cupti_cb commit: " META["commit"]
    print "- upstream PAPI: " META["upstream_version"] ", commit " META["upstream_commit"]
    print "- command: `" META["command"] "`"
    print "- processes per measurement and side: " META["reps"] " (listing: " META["listing_reps"] "); start/stop pairs and reads per process: " META["iters"] "; kernel: " META["mib"] " MiB read"
    print "- total wall time: " META["total_s"] " s"
    print ""
    print "Events:"
    print ""
    print "| metric | cupti_cb | cuda |"
    print "|---|---|---|"
    n = split(META["metrics"], ML, ",")
    for (i = 1; i <= n; i++)
        print "| " ML[i] " | `" ((US, ML[i]) in EVENT ? EVENT[US, ML[i]] : "-") "` | `" ((THEM, ML[i]) in EVENT ? EVENT[THEM, ML[i]] : "-") "` |"

    print ""
    print "## Cost"
    print ""
    print "Each cell: median over processes (lowest; number of processes).  Ratio: cuda / cupti_cb, of the medians."
    print ""
    print "| step | unit | cupti_cb | cuda | ratio |"
    print "|---|---|---:|---:|---:|"
    row("listing", "total_s", "full listing (enumerate + PAPI_get_event_info, qualifiers too)", "s")
    row("listing", "first_ms", "listing: first PAPI_enum_cmp_event (delayed init)", "ms")
    row("listing", "events", "listing: events", "count")
    row("listing", "qualifiers", "listing: qualifiers", "count")
    row("listing", "info_failed", "listing: PAPI_get_event_info failures", "count")
    row("listing", "native_events", "listing: events the component declares", "count")
    row("init", "library_init_ms", "PAPI_library_init (CUDA not initialized)", "ms")
    row("init", "first_lookup_ms", "first PAPI_event_name_to_code (delayed init)", "ms")
    row("init", "next_lookup_ms", "next PAPI_event_name_to_code", "ms")
    row("add", "cuda_init_ms", "cudaSetDevice + cudaFree(0) before PAPI (CUDA's own start-up)", "ms")
    row("add", "library_init_ms", "PAPI_library_init (CUDA initialized)", "ms")
    row("add", "first_add_ms", "first PAPI_add_named_event, CUDA initialized", "ms")
    row("add", "next_adds_ms", "the other adds, together", "ms")
    row("startstop", "first_start_ms", "first PAPI_start", "ms")
    row("startstop", "first_stop_ms", "first PAPI_stop (empty range; PAPI_stop reads first)", "ms")
    row("startstop", "start_ms", "PAPI_start, later pairs (median in a process)", "ms")
    row("startstop", "stop_ms", "PAPI_stop, empty range, later pairs", "ms")
    row("read", "first_read_ms", "first PAPI_read in a range", "ms")
    row("read", "read_ms", "PAPI_read in a range, later reads (median in a process)", "ms")
    row("read", "read_min_ms", "PAPI_read in a range, lowest in a process", "ms")
    row("kernel", "first_ms", "streaming kernel + sync, counted (first)", "ms")
    row("kernel", "second_ms", "streaming kernel + sync, counted (after PAPI_read)", "ms")
    for (i = 1; i <= nk; i++) {
        split(KORDER[i], kp, SUBSEP)
        if (!(KORDER[i] in SEEN) && kp[1] != "kernel")
            row(kp[1], kp[2], kp[1] " " kp[2], "")
    }

    print ""
    print "## Values"
    print ""
    print "PAPI_start, the kernel, PAPI_read (mid), the kernel again, PAPI_stop (end): for a sum, end covers both"
    print "kernels.  Median over processes (lowest; number).  Ratio: cuda / cupti_cb, of the medians of end."
    if (META["mib"] != "")
        printf "The kernel reads %s MiB = %.0f bytes per run (%.0f for both).\n", META["mib"], META["mib"] * 1048576, 2 * META["mib"] * 1048576
    print ""
    print "| metric | cupti_cb mid | cupti_cb end | cuda mid | cuda end | ratio |"
    print "|---|---:|---:|---:|---:|---:|"
    for (i = 1; i <= nm; i++) {
        m = MORDER[i]
        line = "| " m
        for (s = 1; s <= 2; s++) {
            side = s == 1 ? US : THEM
            for (f = 1; f <= 2; f++) {
                w = f == 1 ? "mid" : "end"
                k = m SUBSEP w
                if ((m, w, side) in VAL) {
                    V[k, side] = VAL[m, w, side]
                    line = line " | " cell(k, side)
                } else
                    line = line " | -"
            }
        }
        print line " | " ratio_of(m SUBSEP "end", 4) " |"
    }

    print ""
    print "## Targets"
    print ""
    print "| target | measured | limit | result |"
    print "|---|---|---|---|"
    k = "add" SUBSEP "first_add_ms"
    if ((k, US) in MED)
        print "| cupti_cb: first add of a metric, CUDA initialized (median) | " fmt(MED[k, US]) " ms | <= 50 ms | " (MED[k, US] <= 50 ? "PASS" : "MISS") " |"
    else
        print "| cupti_cb: first add of a metric, CUDA initialized (median) | - | <= 50 ms | n/a |"

    for (i = 1; i <= nerr; i++) {
        e = EORDER[i]
        if (ERRN[e] > 1) sub(/:/, " (" ERRN[e] " processes):", e)
        note(e)
    }
    if (nnotes) {
        print ""
        print "## Notes"
        print ""
        for (i = 1; i <= nnotes; i++) print "- " NOTES[i]
    }
}
AWK
)
exec awk "$program" "$@"
