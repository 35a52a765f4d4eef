#!/usr/bin/env bash
# Dry run of ci/nightly.sh (CTest gpuharness.nightly.dryrun, label "mpi"): three nights over the
# synthetic range n01..n08 of tests/nightly_dryrun/nightly.yaml (host backend, mpirun), with a
# regression planted at n06 in the mpi_p2p cell:
#   night 1 at n03: no baseline yet, every point passes -> exit 0, becomes the baseline
#   night 2 at n08: the mpi_p2p point regresses -> exit 1, one new regression, whose bisect
#                   (n03 good .. n08 bad) names n06 first bad and n05 last good, attached to
#                   the night's summary.md; the baseline stays night 1
#   night 3 at n08: the same regression, no longer new -> exit 1 and no second bisect
# then the results history the nights were ingested into: `history status` says the planted
# point is broken since night 2 (n08), last good night 1 (n03), `history flips` names it at
# night 2 (version n08), and night 1 ingested again as a fourth night makes that point
# alternate, which `history flaky` finds with its rate. The nights' comparison and summaries
# come from `gpuharness history regressions` and `history summary` (no Python of the nightly's).
#   bash tests/nightly_dryrun/nightly_dryrun_test.sh GPUHARNESS_BIN SOURCE_DIR FAKE_LIB
# Exit: 0 pass, 1 an assertion failed.
set -uo pipefail
bin=${1:?usage: nightly_dryrun_test.sh GPUHARNESS_BIN SOURCE_DIR FAKE_LIB}
src=${2:?usage: nightly_dryrun_test.sh GPUHARNESS_BIN SOURCE_DIR FAKE_LIB}
fake_lib=${3:?usage: nightly_dryrun_test.sh GPUHARNESS_BIN SOURCE_DIR FAKE_LIB}
history=("$bin" history)

work=$(mktemp -d "${TMPDIR:-/tmp}/gh-nightly-XXXXXX")
trap 'rm -rf "$work"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1 CI=true
export GH_NIGHTLY_TESTDATA="$src/tests/nightly_dryrun" GH_NIGHTLY_FAKE_LIB="$fake_lib"
export GH_NIGHTLY_TEST_VERSIONS="$work/versions"
mkdir -p "$GH_NIGHTLY_TEST_VERSIONS"
for v in n01 n02 n03 n04 n05 n06 n07 n08; do : >"$GH_NIGHTLY_TEST_VERSIONS/$v"; done
root="$work/results"
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

night() {  # night ID VERSION EXPECTED_EXIT
  local rc=0
  echo "=== night $1 at version $2"
  bash "$src/ci/nightly.sh" --cluster dryrun --version "$2" --results-root "$root" --night "$1" \
      --matrix "$src/tests/nightly_dryrun/nightly.yaml" --program "$bin" \
      --bisect-arg --p-bad --bisect-arg 0.9 -- --slots 2 || rc=$?
  [ "$rc" -eq "$3" ] || fail "night $1: ci/nightly.sh exited $rc, expected $3"
}

night night1 n03 0
night night2 n08 1
night night3 n08 1

python3 - "$root" "$src" <<'PY' || failures=$((failures + 1))
import json, os, sys
root = sys.argv[1]
sys.path.insert(0, os.path.join(sys.argv[2], "tests", "common"))
from results_checks import ResultsChecks
checks = ResultsChecks(root)
check, load = checks.check, checks.load

p2p = "ring_shift/bytes=4K/dtype=i32/transport=mpi_p2p/np=2"
put = "ring_shift/bytes=4K/dtype=i32/transport=mpi_put/np=2"

# Night 1: the first good night, tonight's version only, every point passing.
n1 = load("nights", "night1", "nightly.json") or {}
check(n1.get("schema_version") == 1 and n1.get("good") is True and n1.get("status") == 0 and n1.get("version") == "n03",
      f"night1 nightly.json: {n1}")
recs = [json.loads(l) for l in (load("nights", "night1", "nightly", "records.jsonl") or "").splitlines() if l.strip()]
check(sorted((r["point"], r["cell"].get("transport"), r["cell"].get("nightly"), r["outcome"]) for r in recs) ==
      [(p2p, "p2p", "n03", "pass"), (put, "put", "n03", "pass")], f"night1 records: {[(r['point'], r['cell'], r['outcome']) for r in recs]}")

# Night 2: one new regression (mpi_p2p only), bisected to the planted version.
n2 = load("nights", "night2", "nightly.json") or {}
check(n2.get("good") is False and n2.get("status") == 1, f"night2 good/status: {n2.get('good')}/{n2.get('status')}")
check(n2.get("baseline_night") == "night1" and n2.get("baseline_version") == "n03", f"night2 baseline: {n2.get('baseline_night')} {n2.get('baseline_version')}")
regs = (load("nights", "night2", "nightly", "regressions.json") or {}).get("regressions", [])
check([(r["point"], r["cell_arg"], r["baseline"], r["now"], r["new"], r["baseline_version"], r["version"]) for r in regs] ==
      [(p2p, "transport=p2p", "pass", "fail", True, "n03", "n08")], f"night2 regressions: {regs}")
bisect = load("nights", "night2", "bisect", "nightly-1", "summary.json") or {}
answer = bisect.get("answer", {})
check(answer.get("first_bad") == "n06", f"night2 bisect first_bad {answer.get('first_bad')!r}, expected 'n06' (the planted version)")
check(answer.get("last_good") == "n05", f"night2 bisect last_good {answer.get('last_good')!r}, expected 'n05'")
summary = load("nights", "night2", "summary.md") or ""
check("First bad version **n06**, last good n05" in summary, "night2 summary.md does not name n06 first bad, n05 last good")
check("bisect summary.md" in summary and "n06" in summary.split("bisect summary.md", 1)[-1],
      "night2 summary.md does not attach the bisect's summary.md")
check(f"| {p2p} | transport=p2p | pass | fail |" in summary, "night2 summary.md lacks the regression row")
check(f"| {p2p} | transport=p2p | fail | night2 (version n08) | night1 (version n03) | " in summary,
      "night2 summary.md does not say the point is broken since night2, last good night1")
check(not os.path.exists(os.path.join(root, "nights", "night2", "bisect", "nightly-2")), "night2 ran a second bisect")

# Night 3: the same regression again: reported, not new, not bisected again.
regs3 = (load("nights", "night3", "nightly", "regressions.json") or {}).get("regressions", [])
check([(r["point"], r["new"]) for r in regs3] == [(p2p, False)], f"night3 regressions: {regs3}")
check(os.listdir(os.path.join(root, "nights", "night3", "bisect")) == [], "night3 ran a bisect for a known regression")
check("(bisected on an earlier night)" in (load("nights", "night3", "summary.md") or ""), "night3 summary.md does not say the regression was bisected earlier")

# The baseline stayed on night 1; last-night moved to night 3.
check(os.readlink(os.path.join(root, "last-good")) == "nights/night1", f"last-good -> {os.readlink(os.path.join(root, 'last-good'))}")
check(os.readlink(os.path.join(root, "last-night")) == "nights/night3", f"last-night -> {os.readlink(os.path.join(root, 'last-night'))}")

checks.finish()
print("PASS: night1 baseline, night2 regression bisected to n06 (planted), night3 not re-bisected")
PY
# The history database the nights were ingested into.
p2p="ring_shift/bytes=4K/dtype=i32/transport=mpi_p2p/np=2"
db="$root/history.sqlite"
flips=$("${history[@]}" flips --format tsv --db "$db") || fail "history flips exited $?"
[ "$(printf '%s\n' "$flips" | cut -f1-8)" = "$(printf 'nightly\ttransport=p2p\t%s\tpass\tfail\tnight2\tn08\tnight1' "$p2p")" ] \
  || fail "history flips: '$flips', expected the planted point turning pass -> fail at night2 (n08)"
status=$("${history[@]}" status --db "$db") || fail "history status exited $?"
[ "$status" = "as of night night3 (3 nights): 1 of 2 points broken
nightly [transport=p2p] :: $p2p: fail since night2 (version n08), 2 nights; last good night1 (version n03): 1 of 1024 elements wrong, first at 0 [ranks 1]" ] \
  || fail "history status: '$status'"
shown=$("${history[@]}" show "$p2p" --db "$db") || fail "history show exited $?"
[ "$(printf '%s\n' "$shown" | grep -c '^  night')" -eq 3 ] || fail "history show: '$shown', expected three nights"
cp "$db" "$work/h4.sqlite"
"${history[@]}" ingest "$root/nights/night1" --night night4 --db "$work/h4.sqlite" >/dev/null || fail "ingesting night4 exited $?"
flaky=$("${history[@]}" flaky --db "$work/h4.sqlite") || fail "history flaky exited $?"
[ "$flaky" = "nightly [transport=p2p] :: $p2p: failed 2 of 4 trials (50 %, 95 % interval 15-85 %) on 2 of 4 nights; verdicts pass fail fail pass (2 changes)" ] \
  || fail "history flaky: '$flaky'"
"${history[@]}" report --out "$work/history.html" --db "$work/h4.sqlite" >/dev/null || fail "history report exited $?"
grep -q '<polyline' "$work/history.html" || fail "history report has no trend line"

[ "$failures" -eq 0 ] || { echo "nightly dry run: $failures failure(s); results were in $root"; exit 1; }
