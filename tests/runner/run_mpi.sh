#!/bin/sh
# run_mpi: every rank's runner names its files after its rank (%r, %p, %h;
# .rank<N> before the extension when the name has no %r), the rank coming
# from OMPI_COMM_WORLD_RANK, PMI_RANK or SLURM_PROCID in that order; then
# 2 ranks under mpirun, and --report over their files: totals, per-rank
# min, max, mean and imbalance (max/mean), exact.
. "$LIB_SH"

# --- file names, without mpirun
mkdir d.x
rc 0 env OMPI_COMM_WORLD_RANK=3 PMI_RANK=5 "$RUNNER" -o t.txt --json out.json --csv d.x/res -- "$FAKE_APP" a
test -f t.rank3.txt || fail "-o t.txt at rank 3 did not write t.rank3.txt"
test -f out.rank3.json || fail "--json out.json at rank 3 did not write out.rank3.json"
test -f d.x/res.rank3 || fail "--csv d.x/res at rank 3 did not write d.x/res.rank3"
js out.rank3.json /run/rank 3
rc 0 env PMI_RANK=5 SLURM_PROCID=6 "$RUNNER" -o /dev/null --json 'r%r-%h-%p.json' -- "$FAKE_APP" a
ls r5-"$(hostname)"-[0-9]*.json > /dev/null 2>&1 || fail "r%r-%h-%p.json at PMI rank 5: $(ls r5* 2>&1)"
rc 0 env SLURM_PROCID=6 "$RUNNER" -o /dev/null --json '%%r.json' -- "$FAKE_APP" a
test -f %r.rank6.json || fail "%%r.json at rank 6 did not write %r.rank6.json"
rc 0 "$RUNNER" -o /dev/null --json 'plain%r.json' -- "$FAKE_APP" a
test -f plain0.json || fail "outside MPI, %r is 0"

# --- 2 ranks
if ! command -v mpirun > /dev/null 2>&1; then
	echo "SKIP: no mpirun (Debian/Ubuntu: openmpi-bin)"
	test "$fails" = 0 || finish
	exit 77
fi
OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_ALLOW_RUN_AS_ROOT OMPI_ALLOW_RUN_AS_ROOT_CONFIRM
rc 0 mpirun --allow-run-as-root --oversubscribe -n 2 \
	"$RUNNER" --json r%r.json -o t.txt --csv c.csv -- "$FAKE_APP" rank
for r in 0 1; do
	test -f r$r.json && test -f t.rank$r.txt && test -f c.rank$r.csv || fail "rank $r's files are missing: $(ls)"
done
js r0.json /run/rank 0
js r1.json /run/rank 1
js r0.json /totals/api.calls 10
js r1.json /totals/api.calls 20
js r1.json /processes/0/rank 1
row t.rank1.txt "100.0 4000 20 200.0 51 400 0 cudaLaunchKernel"
line c.rank0.csv "device,kernel.launches,0,2,launches"
line c.rank1.csv "device,kernel.launches,0,3,launches"

# --- --report over the ranks' files (options may follow the files)
rc 0 "$RUNNER" --report r0.json r1.json --json total.json
row out "Per rank (2 ranks: 0 1)"
row out "Quantity Unit Total Min Max Mean Imbalance (max/mean)"
row out "API calls calls 30 10 20 15.0 1.33"
row out "API time ns 5000 1000 4000 2500.0 1.60"
row out "API errors errors 0 0 0 0.0 -"
row out "kernel launches launches 5 2 3 2.5 1.20"
row out "bytes copied bytes 3000 1000 2000 1500.0 1.33"
# The totals' own tables: min over the ranks, max over the ranks, the peak the larger.
row out "100.0 5000 30 166.7 50 400 0 cudaLaunchKernel"
row out "peak live memory bytes 200"
js total.json /totals/api.calls 30
js total.json /processes/# 2
js total.json /run/rank null
js total.json '/api[function=cudaLaunchKernel]/min_ns' 50
js total.json '/api[function=cudaLaunchKernel]/max_ns' 400
js total.json '/devices[device=0]/events/alloc.peak_bytes' 200
js total.json '/devices[device=0]/events/memcpy.bytes_htod' 3000

# A process file is a report of one process.
rc 0 env TMPDIR="$work" "$RUNNER" --keep -o /dev/null -- "$FAKE_APP" a
rc 0 "$RUNNER" --report r0.json "$work"/cupti_cb_run.*/proc-1001.json --json mixed.json
row out "Per rank (2 ranks: 0 ?)"
row out "API calls calls 22 10 12 11.0 1.09"
js mixed.json /processes/1/pid 1001
rc 2 "$RUNNER" --report r0.json missing.json
line err "cupti_cb_run: --report missing.json: the file cannot be read: No such file or directory"
# Why a file cannot be read, never a line number (jansson's -1 was printed).
mkdir adir
rc 2 "$RUNNER" --report adir
line err "cupti_cb_run: --report adir: the file cannot be read: Is a directory"
noline err "line"
printf '{"schema": "cupti_cb_run/1",\n "processes": [}\n' > broken.json
rc 2 "$RUNNER" --report broken.json
grep -q '^cupti_cb_run: --report broken.json: .* (line 2)$' err || fail "a parse error does not say its line: $(cat err)"
finish
