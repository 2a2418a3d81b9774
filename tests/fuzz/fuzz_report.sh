#!/bin/sh
# fuzz_report.sh: the libFuzzer target on cupti_cb_run's report and baseline
# loader (fuzz_report.c), run by fuzz_names.sh from fuzz-corpus-report/ for
# FUZZ_SECONDS seconds (default 10 here: it runs in every make check).
# Inputs are whole files: up to 8 KiB.
FUZZ_SECONDS=${FUZZ_SECONDS:-10} FUZZ_TARGET=fuzz_report FUZZ_CORPUS=fuzz-corpus-report \
	exec sh "${srcdir:-.}/fuzz_names.sh" -max_len=8192 "$@"
