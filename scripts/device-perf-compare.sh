#!/usr/bin/env bash
# On a GPU node (under scripts/node-run.sh --package TGZ [--tests TESTS]): the perf comparison's
# acceptance in one run (docs/performance.md, "Perf comparison on the H200"), about 5 s per process.
#   1. scenarios/ring_shift_bandwidth.yaml (1K..4G) in 2N separate processes (baseline and now
#      alternating, N each), then N more under a slowing environment (default
#      NCCL_MAX_NCHANNELS=1);
#   2. each side's records one after the other in one directory (the comparison tells the
#      processes apart by their trial numbers) and `gpuharness report` of now and of slow against
#      the baseline: every flag of the A/A report is a false alarm; the slow report's verdicts
#      with their intervals;
#   3. when the test archive has bench/perf_comparison_power, that bench over these processes: false
#      alarms over every pair and every N-vs-N grouping, and the power for a planted 5 % drop,
#      once for the per-iteration median and once for the CUDA-graph replay (graph_replays).
# Usage: scripts/device-perf-compare.sh [--out OUT] [--processes N] [--env 'VAR=VALUE ...']
#        [--threshold PCT]. Results under OUT/perf_compare/; summary to OUT/perf_compare.txt.
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
source "$root/scripts/device-flags.sh"
out=$PWD/gpu-results
processes=3
env_text="NCCL_MAX_NCHANNELS=1"
threshold=5%
gh_device_flags device-perf-compare.sh --out:out --processes:processes --env:env_text --threshold:threshold -- "$@"
cd "$root"
gh=$(gh_node_program gpuharness)
bench=${GH_TESTS_BUILD:-/nonexistent}/bin/perf_comparison_power
dir=$out/perf_compare
rm -rf "$dir"
mkdir -p "$dir"
scenario=scenarios/ring_shift_bandwidth.yaml

# run LABEL [VAR=VALUE...]: one process of the scenario into $dir/runs/LABEL.
run() {
  local label=$1
  shift
  env "$@" "$gh" run "$scenario" --backend cuda --out "$dir/runs/$label" >"$dir/runs/$label.log" 2>&1 ||
    echo "run $label: exit $? (see runs/$label.log)"
}
# merge SIDE LABEL...: the records of those runs, one after the other, as the side's results.
merge() {
  local side=$1
  shift
  mkdir -p "$dir/$side"
  cp "$dir/runs/$1/environment.json" "$dir/$side/" 2>/dev/null
  for label in "$@"; do cat "$dir/runs/$label/records.jsonl"; done >"$dir/$side/records.jsonl"
}

mkdir -p "$dir/runs"
base=() now=() slow=()
for i in $(seq 1 "$processes"); do
  run "base$i"; base+=("base$i")
  run "now$i"; now+=("now$i")
done
# The slow side stops at 256M: under NCCL_MAX_NCHANNELS=1 the GiB points take 10-45 s each (with
# the graph replays); the comparison covers the points both sides have.
slow_scenario=$dir/ring_shift_bandwidth_slow.yaml
sed -e 's/^  bytes: .*/  bytes: [1K, 4K, 16K, 64K, 256K, 1M, 4M, 16M, 64M, 256M]/' "$scenario" >"$slow_scenario"
# shellcheck disable=SC2086  # VAR=VALUE words on purpose
scenario=$slow_scenario
for i in $(seq 1 "$processes"); do run "slow$i" $env_text; slow+=("slow$i"); done
# The statistics compared: every metric with samples (the scenario's graph_replays adds the graph's).
has_graph=0
grep -q time_graph_mean_us "$dir/runs/base1/records.jsonl" 2>/dev/null && has_graph=1
if [[ $has_graph == 1 ]]; then
  compared=52 metric_names="time_median_us, bandwidth_GBps, time_graph_mean_us, bandwidth_graph_GBps"
else
  compared=26 metric_names="time_median_us, bandwidth_GBps"
fi
merge base "${base[@]}"
merge now "${now[@]}"
merge slow "${slow[@]}"

# report SIDE: the side against the baseline; prints the headline and every flagged metric.
report() {
  "$gh" report "$dir/$1" --baseline "$dir/base" --perf-threshold "$threshold" >"$dir/report_$1.log" 2>&1
  echo "report exit status: $?"
  tail -n 2 "$dir/report_$1.log"
  sed -n '/^## Performance vs baseline/,/^## [^P]/p' "$dir/$1/summary.md" | grep '^|' || echo "(no metric flagged)"
}

{
  echo "# perf compare, $(date -u +%FT%TZ), threshold $threshold, $processes processes per side"
  echo
  echo "## A/A: $processes vs $processes processes (every flagged metric is a false alarm)"
  report now
  flagged=$(sed -n '/^## Performance vs baseline/,/^## [^P]/p' "$dir/now/summary.md" | grep -c -E 'slower by|faster by')
  echo "A/A false alarms: $flagged of $compared metrics (13 sizes x $metric_names)"
  echo
  echo "## slow: $processes processes under $env_text vs the $processes baseline processes"
  report slow
  if [ -x "$bench" ]; then
    echo
    echo "## bench: every grouping of the $((2 * processes)) A/A processes, $processes slow"
    aa=()
    for label in "${base[@]}" "${now[@]}"; do aa+=("$dir/runs/$label"); done
    s=()
    for label in "${slow[@]}"; do s+=("$dir/runs/$label"); done
    # One set of tables per statistic: the per-iteration median, and the graph replay.
    "$bench" --metrics time_median_us,bandwidth_GBps "${aa[@]}" --slow "${s[@]}"
    if [[ $has_graph == 1 ]]; then
      echo
      "$bench" --metrics time_graph_mean_us,bandwidth_graph_GBps "${aa[@]}" --slow "${s[@]}"
    fi
  fi
} | tee "$out/perf_compare.txt"
