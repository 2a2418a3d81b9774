#!/bin/bash
# papi-patches-test.sh: scripts/papi-patches on a small tree laid out as
# PAPI's (src/papi.h): a patch that applies, one the tree already has, one
# that does not apply (nothing changed, exit status 1), --check (nothing
# changed), and the repository's own patches against a tree without the
# file they fix (refused, never half applied).
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/test-lib.sh"
pp=$here/papi-patches
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

mkdir -p "$dir/old/src" "$dir/new/src"
printf 'int a;\nint b;\nint c;\n' > "$dir/old/src/f.c"
printf 'int a;\nint b = 1;\nint c;\n' > "$dir/new/src/f.c"
(cd "$dir" && diff -u old/src/f.c new/src/f.c | sed '1s|.*|--- a/src/f.c|; 2s|.*|+++ b/src/f.c|') > "$dir/fix.patch"
sed -i '1i Subject: [PATCH] f: b starts at 1\n' "$dir/fix.patch"

tree() { rm -rf "$dir/t"; mkdir -p "$dir/t/src"; : > "$dir/t/src/papi.h"; printf "$1" > "$dir/t/src/f.c"; }

tree 'int a;\nint b;\nint c;\n'
out=$("$pp" --check "$dir/t" "$dir/fix.patch" 2>&1); rc=$?
check "--check: would apply" "$rc $out" "0   PAPI     patch would apply: f: b starts at 1"
check "--check changes nothing" "$(cat "$dir/t/src/f.c")" "$(printf 'int a;\nint b;\nint c;')"
out=$("$pp" "$dir/t" "$dir/fix.patch" 2>&1); rc=$?
check "applied" "$rc $out" "0   PAPI     patch applied: f: b starts at 1"
check "the file is fixed" "$(sed -n 2p "$dir/t/src/f.c")" "int b = 1;"
out=$("$pp" "$dir/t" "$dir/fix.patch" 2>&1); rc=$?
check "already in the tree" "$rc $out" "0   PAPI     patch already in this PAPI: f: b starts at 1"
check "no backup or reject files" "$(find "$dir/t" -name '*.orig' -o -name '*.rej' | wc -l)" 0

tree 'int a;\nint b = 2;\nint c;\n'
out=$("$pp" "$dir/t" "$dir/fix.patch" 2>&1); rc=$?
check "does not apply: exit status" "$rc" 1
case $out in *"does not apply to the PAPI tree"*"not one the build knows"*) r=said ;; *) r=$out ;; esac
check "does not apply: one sentence" "$r" said
check "does not apply: nothing changed" "$(sed -n 2p "$dir/t/src/f.c")" "int b = 2;"

out=$("$pp" "$dir/nowhere" "$dir/fix.patch" 2>&1); rc=$?
check "not a PAPI tree" "$rc" 2
tree 'int a;\n'
out=$("$pp" "$dir/t" "$here"/../patches/papi/*.patch 2>&1); rc=$?
check "the repository's patches refused on a tree without their file" "$rc" 1
tap_done
