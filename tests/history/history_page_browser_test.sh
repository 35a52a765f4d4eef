#!/usr/bin/env bash
# The history page in a real browser (CTest gpuharness.history.page_browser, label "browser"):
# six nights of a nightly matrix of seven points (one broken since night 4 with a traceback, an
# unexpected crash, an expected crash, a flaky point, steady ones) go into a history database; the page
# `history report` writes is opened in headless Chromium. Asserts that the page leads with
# "Broken now", "Changed on the latest night" and "Flaky", in that order, before the grid, with
# letters in the verdict boxes, and that on the first screen's pixels the pass colour stays at
# least Delta E 40 (CIE76) from every failure colour under simulated deuteranopia and
# protanopia (tests/history/page_colours.py). Without Chromium: skipped (exit 77).
# GH_HISTORY_SHOTS=DIR keeps the page, its screenshot and the screenshot as a deuteranope sees it.
#   bash tests/history/history_page_browser_test.sh GPUHARNESS_BIN
set -uo pipefail
bin=${1:?usage: history_page_browser_test.sh GPUHARNESS_BIN}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
browser=""
for b in chromium chromium-browser google-chrome; do
  if command -v "$b" >/dev/null; then browser=$(command -v "$b"); break; fi
done
[ -n "$browser" ] || { echo "SKIP: no chromium (apt-get install chromium)"; exit 77; }
work=$(mktemp -d "${TMPDIR:-/tmp}/gh-history-page-XXXXXX")
trap 'rm -rf "$work"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

python3 - "$work" <<'PY' || { echo "FAIL: writing the nights"; exit 1; }
import json, os, sys
work = sys.argv[1]
P = "ring_shift/bytes={}/dtype=i32/transport={}/np=2"
# point -> per night (outcome, expected outcome, signature); a night left out: not run.
tb = "RuntimeError: NCCL error in: ring.cc:88\nTraceback (most recent call last):\n  File \"repro.py\", line 12"
plan = {}
for size in ("4K", "1M", "16M"):
    plan[P.format(size, "mpi_put")] = [("pass", "pass", "")] * 6
plan[P.format("4K", "mpi_p2p")] = [("pass", "pass", "")] * 3 + [("error", "pass", tb)] * 3
plan[P.format("1M", "mpi_p2p")] = [("pass", "pass", "")] * 5 + [("crash", "pass", "crash: rank 1 killed by SIGSEGV")]
plan[P.format("16M", "mpi_p2p")] = [("crash", "crash", "crash: rank 0 killed by SIGABRT")] * 6
plan[P.format("64M", "mpi_p2p")] = [("pass", "pass", ""), ("fail", "pass", "wrong data [ranks 1]"), ("pass", "pass", ""),
                                    ("pass", "pass", ""), ("fail", "pass", "wrong data [ranks 0]"), ("pass", "pass", "")]
for night in range(6):
    version = f"2026-11-{23 + night:02d}"
    d = os.path.join(work, "nights", f"202611{23 + night:02d}T020000Z", "nightly")
    os.makedirs(d)
    with open(os.path.join(d, "records.jsonl"), "w") as f:
        for point, nights in plan.items():
            outcome, expected, signature = nights[night]
            size = point.split("bytes=")[1].split("/")[0]
            f.write(json.dumps({
                "schema_version": 1, "scenario": "ring_shift", "kind": "ring_shift", "file": "scenarios/ring_shift.yaml",
                "point": point, "params": {"bytes": size}, "backend": "host", "nranks": 2, "trial": 0, "trials": 1,
                "outcome": outcome, "signature": signature, "ranks": [],
                "expected": {"outcome": expected, "reason": ""}, "matched": outcome == expected,
                "metrics": [{"name": "iterations", "unit": "count", "value": 2},
                            {"name": "time_median_us", "unit": "us", "value": 15.94321 + night * 0.731}],
                "started_at": f"2026-11-{23 + night:02d}T02:00:00Z", "duration_s": 0.5,
                "cell": {"transport": "p2p" if "p2p" in point else "put", "nightly": version}}) + "\n")
    with open(os.path.join(d, "sweep.json"), "w") as f:
        json.dump({"matrix_name": "nightly", "axes": [{"name": "transport", "is_version": False, "labels": ["p2p", "put"]},
                                                      {"name": "nightly", "is_version": True, "labels": [version]}]}, f)
PY
for night in "$work"/nights/*; do
  "$bin" history ingest "$night/nightly" --night "$(basename "$night")" --db "$work/h.sqlite" >/dev/null \
    || fail "ingesting $night exited $?"
done
"$bin" history report --out "$work/history.html" --db "$work/h.sqlite" >/dev/null || fail "history report exited $?"

page="file://$work/history.html"
flags=(--headless --disable-gpu --no-sandbox --hide-scrollbars --force-device-scale-factor=1 --window-size=1280,800)
"$browser" "${flags[@]}" --dump-dom "$page" >"$work/dom.html" 2>"$work/browser.log" || fail "chromium --dump-dom exited $?"
"$browser" "${flags[@]}" --screenshot="$work/first-screen.png" "$page" >>"$work/browser.log" 2>&1 \
  || fail "chromium --screenshot exited $?"
[ -s "$work/first-screen.png" ] || { fail "no screenshot: $(tail -5 "$work/browser.log")"; exit 1; }

python3 - "$work/dom.html" <<'PY' || failures=$((failures + 1))
import re, sys
dom = open(sys.argv[1], encoding="utf-8").read()
order = [dom.find(h) for h in ("<h2>Broken now (2)</h2>", "<h2>Changed on the latest night, 20261128T020000Z (2)</h2>",
                               "<h2>Flaky (1)</h2>", "<h2>Every point, night by night</h2>")]
problems = []
if -1 in order or order != sorted(order):
    problems.append(f"sections missing or out of order: {order}")
broken = dom[order[0]:order[1]] if -1 not in order else ""
for want in ("20261126T020000Z (version 2026-11-26), 3 nights", "RuntimeError: NCCL error in: ring.cc:88\\nTraceback",
             "crash: rank 1 killed by SIGSEGV", ">C!</span> crash<", ">E!</span> error<"):
    if want not in broken:
        problems.append(f"'Broken now' lacks {want!r}")
if "SIGABRT" in broken:
    problems.append("'Broken now' lists the expected crash")
if not re.search(r'class="v v-crash expected"[^>]*>C</span>', dom):
    problems.append("no expected-crash box")
if "2 of 6 trials (33.3 %, 95 % interval" not in dom:
    problems.append("no flaky rate")
if '<li class="constant">iterations: 2 count on every night</li>' not in dom:
    problems.append("the constant metric is not one line")
grid = dom[dom.find('<table class="grid">'):]
letters = re.findall(r'<span class="v v-[a-z]+[^"]*"[^>]*>([A-Z]!?|·)</span>', grid)
if len(letters) != 7 * 6:
    problems.append(f"{len(letters)} verdict boxes with letters in the grid, expected 42 (7 points, 6 nights)")
for p in problems:
    print("FAIL:", p)
sys.exit(1 if problems else 0)
PY

python3 "$here/page_colours.py" "$work/history.html" "$work/first-screen.png" --min-delta-e 40 \
    --simulated "$work/first-screen-deuteranopia.png" || fail "pass and failure colours too close (above)"
if [ -n "${GH_HISTORY_SHOTS:-}" ]; then
  mkdir -p "$GH_HISTORY_SHOTS" && cp "$work/history.html" "$work/first-screen.png" "$work/first-screen-deuteranopia.png" \
    "$GH_HISTORY_SHOTS"/ && echo "kept the page and its screenshots in $GH_HISTORY_SHOTS"
fi
[ "$failures" -eq 0 ] || { echo "history page: $failures failure(s)"; exit 1; }
echo "PASS: the page leads with broken, changed and flaky; letters in every box; pass and failure colours apart for deuteranopia and protanopia"
