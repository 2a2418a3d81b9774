#!/bin/sh
# run_man: cupti_cb_run(1) formats without a warning at 80 columns (man
# --warnings: groff's, such as a table wider than the line or a line that
# cannot be broken). Before, the cost table's "--no-time --no-gpu-activity"
# row made a table wider than 80 columns, and the default --fail-above rules
# a word that could not be broken. Skipped (77) without man.
. "$LIB_SH"

if ! command -v man > /dev/null 2>&1; then
	echo "man is not installed: the man page was not checked"
	exit 77
fi
MANWIDTH=80 man --warnings -E UTF-8 -l "$MAN_PAGE" > page.txt 2> warnings.txt
got=$?
test "$got" = 0 || fail "man -l $MAN_PAGE exited with $got"
if test -s warnings.txt; then
	fail "man --warnings warns at 80 columns:"
	sed 's/^/  /' warnings.txt
fi
# The page was formatted: its name line is there.
grep -q "cupti_cb_run - " page.txt || fail "the formatted page lacks its NAME line"
finish
