#!/bin/sh
# run_report_metrics: hardware metrics over ranks (--report), over the
# processes of a run, and over devices (--compare metric:). Only a plain
# .sum adds up; .max and .min stay the extreme; every other metric (a
# percentage of peak, a rate per second or per cycle, an average, a ratio)
# is the mean over the processes that measured it, shown with its min and
# max. Before, two ranks at 60% of peak printed 120%, and .per_second
# values were summed. In the per-rank table, wall time has no total.
. "$LIB_SH"

# rank R PCT RATE SUM MAX: a report of rank R with one process.
rank() {
	cat > "r$1.json" <<EOF
{"schema": "cupti_cb_run/1", "run": {"argv": ["./app"], "exit_status": 0, "wall_ns": 1000, "rank": $1},
 "processes": [{"pid": 10$1, "host": "n", "rank": $1, "argv": ["./app"], "wall_ns": 1000}],
 "status": {"counting": true, "reason": null}, "totals": {"api.calls": 1},
 "api": [], "devices": [],
 "metrics": [
  {"name": "dram__bytes_read.sum.pct_of_peak_sustained_elapsed", "device": 0, "value": $2, "units": "%"},
  {"name": "dram__bytes_read.sum.per_second", "device": 0, "value": $3, "units": "byte/second"},
  {"name": "dram__bytes_read.sum", "device": 0, "value": $4, "units": "byte"},
  {"name": "sm__cycles_active.max", "device": 0, "value": $5, "units": "cycle"}],
 "notes": []}
EOF
}
rank 0 60.0 1000000000.0 1000 7
rank 1 60.0 3000000000.0 3000 9
rank 2 30.0 2000000000.0 2000 8

rc 0 "$RUNNER" --report r0.json r1.json --json two.json
# A percentage has one decimal, as the man page says (it printed "60").
row out "dram__bytes_read.sum.pct_of_peak_sustained_elapsed 0 60.0 % mean of 2 (min 60.0, max 60.0)"
row out "dram__bytes_read.sum.per_second 0 2000000000 byte/second mean of 2 (min 1000000000, max 3000000000)"
row out "dram__bytes_read.sum 0 4000 byte sum of 2"
row out "sm__cycles_active.max 0 9 cycle max of 2"
js two.json '/metrics[name=dram__bytes_read.sum.pct_of_peak_sustained_elapsed]/value' 60
js two.json '/metrics[name=dram__bytes_read.sum.per_second]/value' 2000000000
js two.json '/metrics[name=dram__bytes_read.sum]/value' 4000
js two.json '/metrics[name=dram__bytes_read.sum]/processes' 2
noline out "120"
# Nor do the ranks' wall times add up: they run at the same time.
row out "wall time ns - 1000 1000 1000.0 1.00"
row out "API calls calls 2 1 1 1.0 1.00"

# A report of two ranks merged with a third: the mean is over the three
# processes (weighted), not over the two files.
rc 0 "$RUNNER" --report two.json r2.json --json three.json
js three.json '/metrics[name=dram__bytes_read.sum.pct_of_peak_sustained_elapsed]/value' 50
js three.json '/metrics[name=dram__bytes_read.sum.pct_of_peak_sustained_elapsed]/min' 30
js three.json '/metrics[name=dram__bytes_read.sum.pct_of_peak_sustained_elapsed]/max' 60
js three.json '/metrics[name=dram__bytes_read.sum.pct_of_peak_sustained_elapsed]/processes' 3
js three.json '/metrics[name=dram__bytes_read.sum.per_second]/value' 2000000000
js three.json '/metrics[name=dram__bytes_read.sum]/value' 6000

# --compare metric: over two devices of one run, the same rules.
cat > dev.json <<EOF
{"schema": "cupti_cb_run/1", "processes": [{"pid": 1}], "status": {"counting": true},
 "metrics": [
  {"name": "lts__t_sector_hit_rate.pct", "device": 0, "value": 80.0, "units": "%"},
  {"name": "lts__t_sector_hit_rate.pct", "device": 1, "value": 40.0, "units": "%"},
  {"name": "dram__bytes_read.sum", "device": 0, "value": 100, "units": "byte"},
  {"name": "dram__bytes_read.sum", "device": 1, "value": 200, "units": "byte"}]}
EOF
rc 0 "$RUNNER" -o t.txt --compare dev.json --fail-above 'metric:lts__t_sector_hit_rate.pct=100%,metric:dram__bytes_read.sum=1000%' \
	-- sh -c 'cp dev.json "$CUPTI_CB_RUN_DIR/proc-1.json"'
row t.txt "metric:lts__t_sector_hit_rate.pct 60 60 0.0 100 ok"
row t.txt "metric:dram__bytes_read.sum 300 300 0.0 1000 ok"
finish
