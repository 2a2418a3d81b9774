#!/bin/sh
# make check: no two files of src/ call each other in a circle, by their #include lines and by
# the symbols their objects define and use (scripts/check-src-cycles; --graph shows the edges).
command -v python3 >/dev/null 2>&1 || { echo "python3 is missing: not checked"; exit 77; }
exec python3 "$CHECK_SRC_CYCLES" --build "$SRC_BUILDDIR" "$SRC_SRCDIR"
