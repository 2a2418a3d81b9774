# lib.sh: what the runner's tests share (sourced). The Makefile gives
# RUNNER, JSON_GET, FAKE_APP, PKGLIBDIR, HL_WRITER.
set -u
fails=0
work=$(mktemp -d "${TMPDIR:-/tmp}/runtests.XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$work"
# No process file of these tests comes from CUDA. The injected library is
# the one built here (the runner loads it to say why, when nothing was
# measured); the driver probe finds libc.
CUPTI_CB_RUN_INJECT=$INJ_LIB
CUPTI_CB_CUDA_LIB=libc.so.6
export CUPTI_CB_RUN_INJECT CUPTI_CB_CUDA_LIB
unset OMPI_COMM_WORLD_RANK PMI_RANK SLURM_PROCID

fail() {
	echo "FAIL: $*"
	fails=$((fails + 1))
}

# rc WANT CMD...: runs CMD (stdout to out, stderr to err), checks its status.
rc() {
	want=$1
	shift
	"$@" > out 2> err
	got=$?
	if test "$got" != "$want"; then
		fail "$* exited with $got, not $want"
		sed 's/^/  err: /' err | head -20
	fi
}

# line FILE TEXT: FILE has the exact line TEXT.
line() {
	if ! grep -Fxq -- "$2" "$1"; then
		fail "$1 lacks the line: $2"
		sed "s/^/  $1: /" "$1" | head -80
	fi
}

# row FILE CELLS: FILE has a line whose words are CELLS (a table row,
# whatever the column widths).
row() {
	if ! tr -s ' ' < "$1" | sed 's/^ //' | grep -Fxq -- "$2"; then
		fail "$1 lacks the row: $2"
		sed "s/^/  $1: /" "$1" | head -80
	fi
}

# noline FILE TEXT: FILE has no line containing TEXT.
noline() {
	if grep -Fq -- "$2" "$1"; then
		fail "$1 has: $2"
	fi
}

# js FILE PATH WANT: the JSON value at PATH is WANT.
js() {
	got=$("$JSON_GET" "$1" "$2")
	if test "$got" != "$3"; then
		fail "$1 $2 is '$got', not '$3'"
	fi
}

finish() {
	if test "$fails" != 0; then
		echo "$fails check(s) failed"
		exit 1
	fi
	echo "all checks passed"
	exit 0
}
