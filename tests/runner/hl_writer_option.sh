#!/bin/sh
# hl_writer_option.sh WRITER: prints the option through which PAPI's papi_hl_output_writer.py
# WRITER takes the directory of the ranks' files, as its --help lists it: --source_dir (PAPI 7.2
# and later, upstream a1000f570, which added --source_file next to it) or --source (7.0, 7.1).
# Asking the writer itself, not guessing from a version: with 7.2's writer, --source is an
# ambiguous prefix of its two options and argparse stops.  Exit status 1 and a sentence on stderr
# when WRITER cannot be run or lists neither.
[ $# -eq 1 ] || { echo "usage: hl_writer_option.sh WRITER" >&2; exit 2; }
help=$(python3 "$1" --help 2>&1) || {
    echo "hl_writer_option.sh: python3 $1 --help failed: $help" >&2
    exit 1
}
# argparse lists an option as "--name NAME" (or "--name" alone for a flag) at the start of a
# line or after "[" in the usage line.
has() { printf '%s\n' "$help" | grep -Eq -- "(^|[[ ])$1([] ]|\$)"; }
if has --source_dir; then
    echo --source_dir
elif has --source; then
    echo --source
else
    echo "hl_writer_option.sh: $1 --help lists neither --source_dir nor --source" >&2
    exit 1
fi
