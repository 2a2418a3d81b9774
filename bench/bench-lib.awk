# bench-lib.awk: the functions the benchmark table scripts share (bench-table.sh,
# bench-activity-table.sh, bench-metrics-table.sh, bench-sampling-table.sh,
# bench-runner-table.sh); each puts this text before its own program.
# Plain POSIX awk (mawk works).

# F[key] = value for each key=value field of the line; numbers as numbers.
function parse(    i, p, v) {
    split("", F)
    for (i = 1; i <= NF; i++)
        if ((p = index($i, "=")) > 0) {
            v = substr($i, p + 1)
            F[substr($i, 1, p - 1)] = v ~ /^-?[0-9]+(\.[0-9]*)?$/ ? v + 0 : v
        }
}
# A profile's file (DIR/where/PROFILE.PID): its name without the directory, and its profile.
function base_of(file) { sub(/.*\//, "", file); return file }
function profile_of(file) { file = base_of(file); sub(/\.[0-9]+$/, "", file); return file }
# The names a[1..n], sorted in place.
function sort_names(a, n,    i, j, t) {
    for (i = 1; i <= n; i++)
        for (j = i + 1; j <= n; j++)
            if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
}
# A note of the table, once however often it is made.
function note(s) { if (!(s in NOTED)) { NOTED[s] = 1; NOTES[++nnotes] = s } }
# The numbers of the space-separated list s into v[1..n], ascending; returns n.
function sorted(s, v,    n, i, j, x) {
    n = split(s, v, " ")
    for (i = 2; i <= n; i++) {
        x = v[i] + 0
        for (j = i - 1; j >= 1 && v[j] + 0 > x; j--)
            v[j + 1] = v[j]
        v[j + 1] = x
    }
    return n
}
# Median of the sorted v[1..n] ("" when n is 0); sets LO, HI, CNT.
function median_of(v, n) {
    CNT = n
    if (n == 0) return ""
    LO = v[1] + 0; HI = v[n] + 0
    return n % 2 ? v[(n + 1) / 2] + 0 : (v[n / 2] + v[n / 2 + 1]) / 2
}
# Median of the numbers in the space-separated list s ("" when none); sets LO, HI, CNT.
function median(s,    v) { return median_of(v, sorted(s, v)) }
# Median of s, and an interval for the median that holds whatever the distribution (order
# statistics x(k) and x(n+1-k), k the largest whose coverage 1 - 2 P(Bin(n, 1/2) < k) is at
# least 90%; k = 1 when even that covers less): sets CILO, CIHI and COVER (per cent).
function median_ci(s,    v, n, m, k, c, cdf, best) {
    n = sorted(s, v)
    m = median_of(v, n)
    if (n == 0) return ""
    best = 1; cdf = 0; c = 1
    for (k = 1; k <= (n + 1) / 2; k++) {
        # cdf = P(Bin(n, 1/2) <= k - 1); c = C(n, k - 1)
        cdf += c / 2 ^ n
        if (1 - 2 * cdf >= 0.9) best = k
        c = c * (n - k + 1) / k
    }
    # coverage of x(best)..x(n+1-best)
    cdf = 0; c = 1
    for (k = 0; k < best; k++) { cdf += c / 2 ^ n; c = c * (n - k) / (k + 1) }
    CILO = v[best] + 0; CIHI = v[n + 1 - best] + 0; COVER = 100 * (1 - 2 * cdf)
    if (COVER < 0) COVER = 0
    return m
}
function num(x) { return x != "" && x != "-" }
function fmt_ns(x) { return !num(x) ? "-" : (x < 1000 ? sprintf("%.1f", x) : sprintf("%.0f", x)) }
function ratio(a, b) { return (num(a) && num(b) && b > 0) ? a / b : "" }
function fmt_r(r) { return r == "" ? "-" : sprintf("%.2f", r) }
function verdict(ok, have) { return !have ? "n/a" : (ok ? "PASS" : "MISS") }
# The targets recorded with target() (TGT[1..ntgt]) and the notes, as every table ends.
function print_targets(    i) {
    print ""
    print "## Targets"
    print ""
    print "| target | measured | limit | result |"
    print "|---|---|---|---|"
    for (i = 1; i <= ntgt; i++) print TGT[i]
    if (nnotes) {
        print ""
        print "## Notes"
        print ""
        for (i = 1; i <= nnotes; i++) print "- " NOTES[i]
    }
}
