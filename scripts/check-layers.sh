#!/bin/bash
# scripts/check-layers.sh: the component's shape, checked from its #include lines.
#
#   - The sources are those of components/cupti_cb/cupti_cb_sources.c (X(cupti_cb_<name>_source));
#     a source's files are cupti_cb_<name>_*.{c,h}.
#   - The adapter (cupti_cb.c) includes no source's header: only the source interface, the
#     list and the services.
#   - No source includes another source's header.
#   - The services and the core (every other file) include no source's header.
#   - No header of the component includes itself through others (src/ has its own check,
#     src/check-cycles.sh, on includes and symbols).
#
# Usage: scripts/check-layers.sh [TOP]   (TOP: the repository, default: this script's parent)
# Prints one line per rule broken and exits 1 if any, else prints a summary and exits 0.
set -uo pipefail
top=${1:-$(cd "$(dirname "$0")/.." && pwd)}
comp=$top/components/cupti_cb
list=$comp/cupti_cb_sources.c
[ -r "$list" ] || { echo "check-layers: $list: missing" >&2; exit 2; }
sources=$(sed -n 's/.*X(cupti_cb_\([a-z0-9_]*\)_source).*/\1/p' "$list" | sort -u)
[ -n "$sources" ] || { echo "check-layers: no source in $list" >&2; exit 2; }
bad=0
# owner FILE: the source FILE belongs to, or "" (adapter, core, services).
owner() {
    local b=${1##*/} s
    for s in $sources; do
        case $b in cupti_cb_"$s"_*) echo "$s"; return ;; esac
    done
    echo ""
}
includes() { sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$1"; }
n_files=0
for f in "$comp"/*.c "$comp"/*.h; do
    n_files=$((n_files + 1))
    me=$(owner "$f")
    for h in $(includes "$f"); do
        [ -e "$comp/$h" ] || continue
        his=$(owner "$h")
        [ -n "$his" ] || continue
        if [ "${f##*/}" = cupti_cb.c ]; then
            echo "check-layers: the adapter cupti_cb.c includes $h, a header of the $his source"
            bad=1
        elif [ -z "$me" ]; then
            echo "check-layers: ${f##*/} (services or core) includes $h, a header of the $his source"
            bad=1
        elif [ "$me" != "$his" ]; then
            echo "check-layers: ${f##*/} (the $me source) includes $h, a header of the $his source"
            bad=1
        fi
    done
done
# Include cycles among the headers of one directory tree.
cycles() {
    local dir=$1
    local -A edges=()
    local h
    while IFS= read -r h; do
        edges[${h##*/}]=$(includes "$h" | tr '\n' ' ')
    done < <(find "$dir" -name '*.h' 2>/dev/null)
    local -A state=()
    visit() {	# 1: on the path, 2: done
        local n=$1 path=$2 m
        state[$n]=1
        for m in ${edges[$n]:-}; do
            [ -n "${edges[$m]+x}" ] || continue
            if [ "${state[$m]:-0}" = 1 ]; then
                echo "check-layers: include cycle in ${dir#"$top"/}: $path -> $m"
                bad=1
            elif [ "${state[$m]:-0}" = 0 ]; then
                visit "$m" "$path -> $m"
            fi
        done
        state[$n]=2
    }
    for h in "${!edges[@]}"; do
        [ "${state[$h]:-0}" = 0 ] && visit "$h" "$h"
    done
}
cycles "$comp"
if [ "$bad" = 0 ]; then
    echo "check-layers: $n_files files of components/cupti_cb; sources: $(echo $sources); the adapter, the" \
        "services and the core include no source's header, no source another's; no include cycle"
fi
exit "$bad"
