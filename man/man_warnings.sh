#!/bin/sh
# man_warnings: the component's man pages format without a warning from man --warnings at 80
# columns (troff's "can't break line" where a word is wider than the line left for it).
# cupti_cb_run.1 is the runner's, checked with it (tests/runner/run_man.sh).
set -u
command -v man > /dev/null 2>&1 || { echo "man is not installed: nothing to check"; exit 77; }
fails=0 n=0
for name in ${MAN7_PAGES:-$(cd "${srcdir:-.}" && echo cupti_cb*.7)} cupti_cb_metric_groups.1; do
    page=${srcdir:-.}/$name
    n=$((n + 1))
    w=$(MANWIDTH=80 man --warnings -E UTF-8 -l "$page" 2>&1 > /dev/null)
    if [ -z "$w" ]; then echo "ok $n - $page"; else echo "not ok $n - $page: $w"; fails=$((fails + 1)); fi
done
echo "1..$n"
[ "$fails" -eq 0 ]
