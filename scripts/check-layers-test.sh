#!/bin/bash
# check-layers-test.sh: scripts/check-layers.sh passes on the tree, and catches each broken rule
# in a copy of the component with one include added.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
. "$here/test-lib.sh"
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
out=$("$here/check-layers.sh" "$top" 2>&1)
check "the tree keeps the rules" "$?" 0
# broken RULE FILE HEADER WANT: FILE includes HEADER in a copy; check-layers fails, saying WANT.
broken() {
    rm -rf "$tmp/t" && mkdir -p "$tmp/t/components" && cp -r "$top/components/cupti_cb" "$tmp/t/components/"
    sed -i "1i #include \"$3\"" "$tmp/t/components/cupti_cb/$2"
    out=$("$here/check-layers.sh" "$tmp/t" 2>&1)
    check "$1: refused" "$?" 1
    case $out in *"$4"*) check "$1: says so" 0 0 ;; *) check "$1: says so ($out)" 1 0 ;; esac
}
broken "adapter" cupti_cb.c cupti_cb_callback_catalog.h "the adapter cupti_cb.c includes cupti_cb_callback_catalog.h"
broken "services" cupti_cb_services.h cupti_cb_activity_buffers.h \
    "cupti_cb_services.h (services or core) includes cupti_cb_activity_buffers.h, a header of the activity source"
broken "source" cupti_cb_metric_source.c cupti_cb_callback_state.h \
    "cupti_cb_metric_source.c (the metric source) includes cupti_cb_callback_state.h"
broken "cycle" cupti_cb_thread_counters.h cupti_cb_services.h "include cycle"
tap_done
