#!/bin/bash
# fresh-root-test: what scripts/fresh-root refuses, and the plan it prints
# with --dry-run (the debootstrap command, the root's apt sources, the
# commit it clones), for Debian and Ubuntu suites.  No root, no network: the
# root itself is made by .ci/run.
set -u
here=$(cd "$(dirname "$0")" && pwd)
fr=$here/fresh-root
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$here/test-lib.sh"
status() { "$fr" "$@" >/dev/null 2>&1; echo $?; }
# plan_line KEY: the first line of the dry-run plan that starts with KEY. plan_lines PATTERN:
# the lines that start with PATTERN, anchored as a whole (unanchored after its first
# alternative, 'environment\|run' also took the clone line wherever the checkout's path holds
# "run").
plan_line() { local key=$1; shift; "$fr" --dry-run "$@" 2>/dev/null | grep "^$key" | head -n 1; }
plan_lines() { local key=$1; shift; "$fr" --dry-run "$@" 2>/dev/null | grep "^\($key\)"; }

# A stand-in CUDA toolkit: only include/cupti.h is looked at.
cuda=$tmp/cuda
mkdir -p "$cuda/include"
: > "$cuda/include/cupti.h"
dr=(--cuda "$cuda")

check "--help: exit status 0" "$(status --help)" 0
check "--help: the usage line" "$("$fr" --help 2>&1 | grep -c '^Usage: scripts/fresh-root \[options\] \[--\] COMMAND$')" 1
check "no COMMAND: exit status 2" "$(status "${dr[@]}")" 2
check "no COMMAND: the sentence" "$("$fr" "${dr[@]}" 2>&1 | head -n 1)" "fresh-root: no COMMAND given"
check "an unknown option: exit status 2" "$(status --frobnicate true)" 2
check "an unknown option: the sentence" "$("$fr" --frobnicate true 2>&1 | head -n 1)" \
    "fresh-root: unknown option: --frobnicate"
check "an option without its value: exit status 2" "$(status --suite)" 2
check "an unknown suite: exit status 2" "$(status "${dr[@]}" --suite buster true)" 2
check "an unknown suite: the sentence" "$("$fr" "${dr[@]}" --suite buster true 2>&1 | head -n 1)" \
    "fresh-root: unknown suite: buster (Debian: bookworm trixie forky sid; Ubuntu: jammy noble)"
check "--env with a value, not a name: exit status 2" "$(status "${dr[@]}" --env A=1 true)" 2
check "a CUDA directory without include/cupti.h: exit status 2" "$(status --cuda "$tmp" true)" 2
check "a CUDA directory without include/cupti.h: the sentence" \
    "$("$fr" --cuda "$tmp" true 2>&1 | head -n 1)" \
    "fresh-root: $tmp is not a CUDA toolkit with CUPTI ($tmp/include/cupti.h is missing): give one with --cuda DIR"
mkdir -p "$tmp/full"
: > "$tmp/full/x"
check "--dir that is not empty: exit status 2" "$(status "${dr[@]}" --dir "$tmp/full" true)" 2
check "--dir with a space: exit status 2" "$(status "${dr[@]}" --dir "$tmp/a b" true)" 2

# The rest reads the commit of the source tree: only in a git work tree.
top=$(cd "$here/.." && pwd)
if head=$(git -C "$top" rev-parse --verify --quiet 'HEAD^{commit}' 2>/dev/null); then
    check "a commit that does not exist: exit status 2" \
        "$(status "${dr[@]}" --commit no-such-commit-here true)" 2
    check "bookworm: the debootstrap command" "$(plan_line debootstrap "${dr[@]}" true)" \
        "debootstrap --variant=minbase --include=git --keyring=/usr/share/keyrings/debian-archive-keyring.gpg bookworm ROOT http://deb.debian.org/debian /usr/share/debootstrap/scripts/sid"
    check "bookworm: the apt sources (with updates and security)" \
        "$(plan_lines 'apt source' "${dr[@]}" true | tr '\n' '|')" \
        "apt source: deb http://deb.debian.org/debian bookworm main|apt source: deb http://deb.debian.org/debian bookworm-updates main|apt source: deb http://deb.debian.org/debian-security bookworm-security main|"
    check "sid: one apt source" "$(plan_lines 'apt source' "${dr[@]}" --suite sid true | tr '\n' '|')" \
        "apt source: deb http://deb.debian.org/debian sid main|"
    check "noble: Ubuntu's mirror, keyring and script" "$(plan_line debootstrap "${dr[@]}" --suite noble true)" \
        "debootstrap --variant=minbase --include=git --keyring=/usr/share/keyrings/ubuntu-archive-keyring.gpg noble ROOT http://archive.ubuntu.com/ubuntu /usr/share/debootstrap/scripts/gutsy"
    check "jammy: universe among the apt sources (openmpi-bin and clang are there)" \
        "$(plan_line 'apt source' "${dr[@]}" --suite jammy true)" \
        "apt source: deb http://archive.ubuntu.com/ubuntu jammy main restricted universe multiverse"
    check "--mirror (a trailing / dropped) and --no-check-gpg" \
        "$(plan_line debootstrap "${dr[@]}" --mirror http://m.example/debian/ --no-check-gpg true)" \
        "debootstrap --variant=minbase --include=git --no-check-gpg bookworm ROOT http://m.example/debian /usr/share/debootstrap/scripts/sid"
    check "--keyring" "$(plan_line debootstrap "${dr[@]}" --suite noble --keyring "$tmp/k.gpg" true)" \
        "debootstrap --variant=minbase --include=git --keyring=$tmp/k.gpg noble ROOT http://archive.ubuntu.com/ubuntu /usr/share/debootstrap/scripts/gutsy"
    check "the clone: HEAD by default, as a full hash" "$(plan_line clone "${dr[@]}" true)" \
        "clone: $top at $head -> ROOT/root/cupti_cb"
    check "the command and the variables passed" \
        "$(plan_lines 'environment\|run' "${dr[@]}" --env MAKEFLAGS --env CI -- make check | tr '\n' '|')" \
        "environment: HOME=/root PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin MAKEFLAGS CI|run: bash -c 'make check'|"
    check "--cuda-ldconfig: the line of the plan" "$(plan_line ldconfig "${dr[@]}" --cuda-ldconfig true)" \
        "ldconfig: /usr/local/cuda/lib64 in /etc/ld.so.conf.d/cuda.conf"
    check "no --cuda-ldconfig: no such line" "$(plan_line ldconfig "${dr[@]}" true)" ""
    check "--keep and --dir" "$(plan_line root "${dr[@]}" --keep --dir "$tmp/r" true)" "root: $tmp/r (kept)"
else
    echo "# $top is not a git work tree: the dry-run plan (which names a commit) is not checked"
fi
tap_done
