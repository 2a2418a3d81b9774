#!/bin/sh
# run_hl_writer_option: hl_writer_option.sh names the option each papi_hl_output_writer.py takes
# for the ranks' directory, from the writer's own --help. Two stand-ins with argparse as PAPI's
# writers declare them: 7.0's and 7.1's --source, 7.2's --source_dir and --source_file (to which
# --source is an ambiguous prefix: run_hl failed with PAPI 7.2 before, when it always gave
# --source). A writer with neither, and one that cannot run, are refused with a sentence.
. "$LIB_SH"

if ! command -v python3 > /dev/null 2>&1; then
	echo "SKIP: python3 is missing (the writers are Python programs)"
	exit 77
fi

writer() { # FILE OPTION...: a writer whose argparse has OPTION... (each taking a value)
	f=$1
	shift
	{
		echo 'import argparse'
		echo 'parser = argparse.ArgumentParser()'
		for o in "$@"; do echo "parser.add_argument('$o', type=str, required=False)"; done
		echo "parser.add_argument('--type', type=str, required=False, default='summary')"
		echo 'parser.parse_args()'
	} > "$f"
}
writer old.py --source
writer new.py --source_dir --source_file
writer other.py --input
echo 'raise SystemExit(3)' > broken.py

rc 0 "$HL_OPTION" old.py
line out "--source"
rc 0 "$HL_OPTION" new.py
line out "--source_dir"
# What the option found does with the writer: the new writer takes it, and takes no --source.
rc 0 python3 new.py --source_dir hl
rc 2 python3 new.py --source hl
rc 1 "$HL_OPTION" other.py
line err "hl_writer_option.sh: other.py --help lists neither --source_dir nor --source"
rc 1 "$HL_OPTION" broken.py
grep -q "^hl_writer_option.sh: python3 broken.py --help failed" err || fail "no sentence for a writer that fails"
rc 2 "$HL_OPTION"
finish
