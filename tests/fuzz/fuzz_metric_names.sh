#!/bin/sh
# fuzz_metric_names.sh: the libFuzzer target on hardware-metric names
# (fuzz_metric_names.c), run by fuzz_names.sh from fuzz-corpus-metrics/.
FUZZ_TARGET=fuzz_metric_names FUZZ_CORPUS=fuzz-corpus-metrics exec sh "${srcdir:-.}/fuzz_names.sh" "$@"
