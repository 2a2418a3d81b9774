# bench-lib.awk: the functions the benchmark table scripts share (bench-table.sh,
# bench-activity-table.sh, bench-metrics-table.sh); each puts this text before its own program.
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
# A note of the table, once however often it is made.
function note(s) { if (!(s in NOTED)) { NOTED[s] = 1; NOTES[++nnotes] = s } }
# Median of the numbers in the space-separated list s ("" when none); sets LO, HI, CNT.
function median(s,    v, n, i, j, x) {
    n = split(s, v, " ")
    if (n == 0) { CNT = 0; return "" }
    for (i = 2; i <= n; i++) {
        x = v[i] + 0
        for (j = i - 1; j >= 1 && v[j] + 0 > x; j--)
            v[j + 1] = v[j]
        v[j + 1] = x
    }
    LO = v[1] + 0; HI = v[n] + 0; CNT = n
    return n % 2 ? v[(n + 1) / 2] + 0 : (v[n / 2] + v[n / 2 + 1]) / 2
}
function num(x) { return x != "" && x != "-" }
function fmt_ns(x) { return !num(x) ? "-" : (x < 1000 ? sprintf("%.1f", x) : sprintf("%.0f", x)) }
function ratio(a, b) { return (num(a) && num(b) && b > 0) ? a / b : "" }
function fmt_r(r) { return r == "" ? "-" : sprintf("%.2f", r) }
function verdict(ok, have) { return !have ? "n/a" : (ok ? "PASS" : "MISS") }
