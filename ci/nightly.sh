#!/usr/bin/env bash
# One night of gpuharness on a cluster: build, sweep the cluster's nightly matrices at the
# night's version, compare with the last good night, bisect each new regression over the
# nightly version axis, write the night's summary, and move the baseline when the night is good.
# Run inside a Slurm allocation (ci/slurm/nightly-*.sbatch) so the matrices' srun jobs land on
# its nodes; docs/how-to/nightly.md explains the set-up, the baseline policy and the report.
#
#   ci/nightly.sh --cluster NAME --version V --results-root DIR [--matrix FILE]...
#                 [--program BIN] [--night ID] [--accept-as-baseline] [--bisect-arg ARG]...
#                 [-- SWEEP/BISECT OPTIONS]
#
#   --cluster NAME        gb200 or h100: the CMake preset built, and ci/matrices/NAME.yaml
#   --version V           the night's label on the matrices' version axis (e.g. 2026-11-29)
#   --results-root DIR    keeps nights/<ID>/, last-good -> nights/<ID>, last-night -> nights/<ID>
#   --matrix FILE         a matrix to sweep instead of ci/matrices/NAME.yaml (repeatable)
#   --program BIN         a built gpuharness (skips the build; installed, the prefix's binary)
#   --night ID            the night's directory name (default: UTC time, 20261129T020000Z);
#                         running the same ID again resumes its sweeps and bisects
#   --accept-as-baseline  make this night the baseline even with regressions (after triage)
#   --bisect-arg ARG      one more argument for `gpuharness bisect` only (repeatable), e.g.
#                         --bisect-arg --p-bad --bisect-arg 0.9 for deterministic failures
#   -- ...                passed to every `gpuharness sweep` and `gpuharness bisect` (--gpus N,
#                         --slots N, --kill-grace T, --setup-timeout T)
#
# Every sweep, then the whole night (its bisects too), is ingested into the results history
# database ROOT/history.sqlite (`gpuharness history`, docs/reference/history.md). The comparison with the
# baseline night, which regressions are new (turned to a failure tonight, per the history) and
# the night's summary all come from `gpuharness history regressions` and `history summary`:
# the same rule as every report's baseline comparison.
# Writes nights/<ID>/: <matrix>/ (the sweep: records.jsonl, junit.xml, summary.md,
# report.html, regressions.json), bisect/<matrix>-<k>/ (one bisect per new regression),
# summary.md (the night: headlines, what is broken since when, regressions, each bisect's answer
# and summary attached), nightly.json (results/SCHEMA.md). Exit: 0 every expectation met and no
# regression; 1 regressions or unmet expectations; 2 bad input; 3 infrastructure (build, sweep,
# history or results directory failed).
set -uo pipefail

src=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
usage() { sed -n '7,10p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2; }
bad_input() { echo "ci/nightly.sh: $*" >&2; usage; exit 2; }

cluster="" version="" root="" program="" night="" accept=0
matrices=() passthrough=() bisect_args=()
while [ $# -gt 0 ]; do
  case "$1" in
    --cluster|--version|--results-root|--matrix|--program|--night|--bisect-arg)
      [ $# -ge 2 ] && [ -n "$2" ] || bad_input "$1 needs a value"
      case "$1" in
        --cluster) cluster=$2 ;; --version) version=$2 ;; --results-root) root=$2 ;;
        --matrix) matrices+=("$2") ;; --program) program=$2 ;; --night) night=$2 ;;
        --bisect-arg) bisect_args+=("$2") ;;
      esac
      shift 2 ;;
    --accept-as-baseline) accept=1; shift ;;
    --) shift; passthrough=("$@"); break ;;
    -h|--help) usage; exit 0 ;;
    *) bad_input "unknown argument '$1'" ;;
  esac
done
[ -n "$cluster" ] || bad_input "--cluster is required"
[ -n "$version" ] || bad_input "--version is required"
[ -n "$root" ] || bad_input "--results-root is required"
case "$night" in */*|.|..) bad_input "--night '$night' must be a plain directory name" ;; esac
[ ${#matrices[@]} -gt 0 ] || matrices=("$src/ci/matrices/$cluster.yaml")
for m in "${matrices[@]}"; do [ -f "$m" ] || bad_input "no matrix file '$m'"; done
[ -n "$night" ] || night=$(date -u +%Y%m%dT%H%M%SZ)

# Installed (<prefix>/share/gpuharness/ci/nightly.sh, no checkout): the prefix's own binary.
if [ -z "$program" ] && [ ! -f "$src/CMakeLists.txt" ] && [ -x "$src/../../bin/gpuharness" ]; then
  program=$(cd "$src/../../bin" && pwd)/gpuharness
fi
if [ -z "$program" ]; then
  build_dir="$src/build-nightly-$cluster"
  echo "== building gpuharness (preset $cluster) in $build_dir"
  mkdir -p "$root" || { echo "ci/nightly.sh: cannot create $root" >&2; exit 3; }
  (cd "$src" && cmake --preset "$cluster" -B "$build_dir") || { echo "ci/nightly.sh: configuring with preset '$cluster' failed" >&2; exit 3; }
  cmake --build "$build_dir" -j "$(nproc)" --target gpuharness || { echo "ci/nightly.sh: build failed" >&2; exit 3; }
  program="$build_dir/bin/gpuharness"
fi
[ -x "$program" ] || bad_input "--program '$program' is not an executable"
history=("$program" history)
history_db="$root/history.sqlite"

night_dir="$root/nights/$night"
mkdir -p "$night_dir/bisect" || { echo "ci/nightly.sh: cannot create $night_dir" >&2; exit 3; }
baseline_dir=""
if [ -e "$root/last-good/nightly.json" ]; then baseline_dir=$(cd "$root/last-good" && pwd -P); fi
echo "== night $night on $cluster at version $version; baseline: ${baseline_dir:-none}"

status=0
bisects="$night_dir/bisects.tsv"   # matrix, point, cell_arg, bisect dir, bisect exit, note
: >"$bisects"
sweeps="$night_dir/sweeps.tsv"     # matrix, sweep exit
: >"$sweeps"
worse() { [ "$1" -gt "$status" ] && status=$1; return 0; }

for m in "${matrices[@]}"; do
  name=$(basename "$m" .yaml)
  out="$night_dir/$name"
  echo "== sweep $name (version $version) -> $out"
  rc=0
  GH_NIGHTLY_ONLY="$version" "$program" sweep "$m" --out "$out" "${passthrough[@]}" || rc=$?
  printf '%s\t%s\n' "$name" "$rc" >>"$sweeps"
  case "$rc" in
    0|1) worse "$rc" ;;
    2) echo "ci/nightly.sh: the sweep of $m rejected its input (exit 2)" >&2; exit 2 ;;
    *) echo "ci/nightly.sh: the sweep of $m failed (exit $rc)" >&2; worse 3; continue ;;
  esac
  "${history[@]}" ingest "$out" --night "$night" --db "$history_db" \
      || { echo "ci/nightly.sh: ingesting $out into $history_db failed" >&2; worse 3; continue; }
  if [ -z "$baseline_dir" ] || [ ! -f "$baseline_dir/$name/records.jsonl" ]; then
    echo "== $name: no baseline yet"
    continue
  fi
  # Tab-separated: point, cell, new|known, baseline version, tonight's version, outcome, signature.
  regressions="$out/regressions.tsv"
  rrc=0
  "${history[@]}" regressions "$out" --baseline "$baseline_dir/$name" --night "$night" --db "$history_db" \
      --format tsv >"$regressions" || rrc=$?
  case "$rrc" in
    0) ;;
    1) worse 1 ;;
    *) echo "ci/nightly.sh: comparing $out with the baseline failed (exit $rrc)" >&2; worse 3; continue ;;
  esac
  # One bisect per new regression, from the baseline's version of its point to tonight's.
  k=0
  while IFS= read -r line; do
    # Split on every tab: `read` would merge the two around an empty cell.
    fields=()
    while [[ $line == *$'\t'* ]]; do fields+=("${line%%$'\t'*}"); line=${line#*$'\t'}; done
    fields+=("$line")
    point=${fields[0]} cell_arg=${fields[1]:-} newness=${fields[2]:-}
    good_version=${fields[3]:-} bad_version=${fields[4]:-}
    echo "regression ($newness): $point [${cell_arg:-all}]: ${fields[5]:-} at version $bad_version (baseline version $good_version): ${fields[6]:-}"
    [ "$newness" = new ] || continue
    k=$((k + 1))
    dir="$night_dir/bisect/$name-$k"
    if [ "$good_version" = "$bad_version" ]; then
      printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "$point" "$cell_arg" "$dir" "-" \
        "not bisected: the baseline night ran the same version" >>"$bisects"
      continue
    fi
    cell=()
    [ -n "$cell_arg" ] && cell=(--cell "$cell_arg")
    echo "== bisect $point [${cell_arg:-all}] from $good_version (good) to $bad_version (bad) -> $dir"
    brc=0
    env -u GH_NIGHTLY_ONLY "$program" bisect "$m" --good "$good_version" --bad "$bad_version" \
        --points "$point" "${cell[@]}" --out "$dir" "${bisect_args[@]}" "${passthrough[@]}" </dev/null || brc=$?
    printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "$point" "$cell_arg" "$dir" "$brc" "" >>"$bisects"
  done <"$regressions"
done

# The whole night again: its sweeps add nothing (ingest is idempotent), its bisects' probes land.
"${history[@]}" ingest "$night_dir" --night "$night" --db "$history_db" >/dev/null \
    || { echo "ci/nightly.sh: ingesting $night_dir into $history_db failed" >&2; worse 3; }

good=0
if [ "$status" -eq 0 ] || { [ "$accept" -eq 1 ] && [ "$status" -le 1 ]; }; then good=1; fi
summary_args=()
[ "$good" -eq 1 ] && summary_args+=(--good)
[ -n "$baseline_dir" ] && summary_args+=(--baseline "$baseline_dir")
"${history[@]}" summary "$night_dir" --night "$night" --cluster "$cluster" --version "$version" \
    --status "$status" "${summary_args[@]}" --db "$history_db" >/dev/null \
    || { echo "ci/nightly.sh: writing the summary failed" >&2; exit 3; }

# The baseline moves only to a good night; last-night always moves (new-regression detection).
relink() { ln -sfn "nights/$night" "$root/.$1.tmp" && mv -Tf "$root/.$1.tmp" "$root/$1"; }
relink last-night || status=3
if [ "$good" -eq 1 ]; then relink last-good || status=3; echo "== baseline is now night $night"; fi
echo "== night summary: $night_dir/summary.md (exit $status)"
exit "$status"
