#!/usr/bin/env python3
"""Regressions of one night's sweep against the last good night's, for ci/nightly.sh.

The nightly matrices carry the night's version on their version axis, so tonight's cells
(`nightly=2026-11-29`) never have the same id as the baseline's (`nightly=2026-11-28`):
`gpuharness sweep --baseline` would see only new and vanished points. Here a point is keyed by
its name and its flag-axis labels, the version axis left out, and the rule is gpuharness's:
a regression is a point whose baseline trials all passed and of which a trial now failed
(fail, error, crash or timeout). A regression is "new" when the results history says its
point turned to a failure tonight (--flips: `gpuharness history flips --night NIGHT --format
tsv`, whose columns are matrix, cell, point, from, to, night, ...), so bisect runs once per
regression, not every night; without --flips every regression is new.

usage: compare_nights.py NIGHT_DIR BASELINE_DIR [--flips FLIPS_TSV] --out FILE
  NIGHT_DIR, BASELINE_DIR: sweep results directories (records.jsonl, sweep.json)
writes FILE: {"version_axis", "regressions": [{point, cell, cell_arg, baseline, now,
signature, new}]} and prints one line per regression. Exit 0 (written), 2 bad input.
"""
import argparse
import json
import os
import sys

FAILED = {"fail", "error", "crash", "timeout"}


def fail(message):
    print(f"compare_nights.py: {message}", file=sys.stderr)
    sys.exit(2)


def load_json(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        fail(f"{path}: {e}")


def version_axes(results_dir):
    sweep = load_json(os.path.join(results_dir, "sweep.json"))
    return {a["name"] for a in sweep.get("axes", []) if a.get("is_version")}


def load_points(results_dir, drop_axes):
    """(point, flag cell) -> {"outcomes": [...], "signature": first failed signature}"""
    path = os.path.join(results_dir, "records.jsonl")
    points = {}
    try:
        with open(path) as f:
            for n, line in enumerate(f, 1):
                if not line.strip():
                    continue
                try:
                    r = json.loads(line)
                except ValueError as e:
                    fail(f"{path}:{n}: {e}")
                cell = tuple(sorted((k, v) for k, v in r.get("cell", {}).items() if k not in drop_axes))
                entry = points.setdefault((r["point"], cell), {"outcomes": [], "signature": ""})
                entry["outcomes"].append(r["outcome"])
                if r["outcome"] in FAILED and not entry["signature"]:
                    entry["signature"] = r.get("signature", "") or r["outcome"]
    except OSError as e:
        fail(f"{path}: {e}")
    return points


def worst(outcomes):
    for o in ("crash", "timeout", "error", "fail", "skip", "pass"):
        if o in outcomes:
            return o
    return outcomes[0] if outcomes else "none"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("night")
    parser.add_argument("baseline")
    parser.add_argument("--flips")
    parser.add_argument("--out", required=True)
    args = parser.parse_args()

    drop = version_axes(args.night) | version_axes(args.baseline)
    now = load_points(args.night, drop)
    base = load_points(args.baseline, drop)
    matrix = load_json(os.path.join(args.night, "sweep.json")).get("matrix_name", os.path.basename(args.night))
    turned = None  # (point, cell_arg) that became a failure tonight; None: no history given
    if args.flips:
        turned = set()
        try:
            with open(args.flips) as f:
                for n, line in enumerate(f, 1):
                    fields = line.rstrip("\n").split("\t")
                    if len(fields) < 6:
                        fail(f"{args.flips}:{n}: expected matrix, cell, point, from, to, night")
                    if fields[0] == matrix and fields[4] in FAILED and fields[3] not in FAILED:
                        turned.add((fields[2], fields[1]))
        except OSError as e:
            fail(f"{args.flips}: {e}")

    regressions = []
    for (point, cell), entry in now.items():
        before = base.get((point, cell))
        if before is None or not before["outcomes"] or any(o != "pass" for o in before["outcomes"]):
            continue
        if not any(o in FAILED for o in entry["outcomes"]):
            continue
        cell_arg = ",".join(f"{k}={v}" for k, v in cell)
        regressions.append({
            "point": point,
            "cell": dict(cell),
            "cell_arg": cell_arg,
            "baseline": "pass",
            "now": worst(entry["outcomes"]),
            "failed_trials": sum(o in FAILED for o in entry["outcomes"]),
            "trials": len(entry["outcomes"]),
            "signature": entry["signature"],
            "new": turned is None or (point, cell_arg) in turned,
        })
    result = {"version_axis": sorted(drop), "regressions": regressions}
    tmp = args.out + ".tmp"
    with open(tmp, "w") as f:
        json.dump(result, f, indent=2)
        f.write("\n")
    os.replace(tmp, args.out)
    for r in regressions:
        print(f"regression{' (new)' if r['new'] else ''}: {r['point']} [{r['cell_arg'] or 'all'}]: "
              f"pass -> {r['now']} ({r['failed_trials']}/{r['trials']} trials failed): {r['signature']}")


if __name__ == "__main__":
    main()
