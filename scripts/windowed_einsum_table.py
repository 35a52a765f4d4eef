#!/usr/bin/env python3
"""Shard-sweep table of windowed_einsum records, like seed 002's: one row per (scenario, dtype,
layers, np, m_shard, n_shard, k), one column group per variant (outcome, median time, TFLOP/s,
speed-up over monolithic, overlap efficiency, exposed communication).

Ranks that shared one GPU (record gpu_shared) talked over sockets: their rows say so, and carry
no speed-up or overlap figures (the harness does not record them for such runs).

Usage: scripts/windowed_einsum_table.py RESULTS_DIR_OR_RECORDS_JSONL [...]
"""
import json
import os
import sys

VARIANTS = ["monolithic", "windowed", "windowed_multistream"]


def load(paths):
    records = []
    for path in paths:
        if os.path.isdir(path):
            path = os.path.join(path, "records.jsonl")
        with open(path) as f:
            for number, line in enumerate(f, 1):
                line = line.strip()
                if not line:
                    continue
                try:
                    records.append(json.loads(line))
                except json.JSONDecodeError as e:
                    print(f"{path}:{number}: skipped a torn line ({e})", file=sys.stderr)
    return [r for r in records if r.get("kind") == "windowed_einsum"]


def metrics_of(record):
    # results/SCHEMA.md: the point's metrics (rank 0's) are top-level, beside "outcome".
    return {m["name"]: m["value"] for m in record.get("metrics", [])}


def fmt(value, pattern):
    return "" if value is None else pattern % value


def main(argv):
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    records = load(argv[1:])
    rows = {}
    for r in records:
        p = r.get("params", {})
        key = (r.get("scenario"), p.get("dtype"), p.get("layers", 1), r.get("nranks"),
               p.get("m_shard"), p.get("n_shard"), p.get("k"), bool(r.get("gpu_shared")))
        rows.setdefault(key, {})[p.get("variant")] = r
    header = ["scenario", "dtype", "layers", "np", "m_shard", "n_shard", "k"]
    for v in VARIANTS:
        short = {"monolithic": "mono", "windowed": "win", "windowed_multistream": "multi"}[v]
        header += [f"{short} outcome", f"{short} median us", f"{short} TFLOP/s"]
        if v != "monolithic":
            header += [f"{short} speed-up", f"{short} overlap"]
    header += ["GEMM step TFLOP/s (multi)", "note"]
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for key in sorted(rows, key=lambda k: tuple("" if x is None else x for x in k)):
        scenario, dtype, layers, np_, m, n, k, shared = key
        cells = [scenario, dtype, str(layers), str(np_), str(m), str(n), str(k)]
        for v in VARIANTS:
            r = rows[key].get(v)
            mt = metrics_of(r) if r else {}
            outcome = r.get("outcome", "") if r else ""
            cells += [outcome, fmt(mt.get("time_median_us"), "%.1f"), fmt(mt.get("tflops"), "%.1f")]
            if v != "monolithic":
                cells += [fmt(mt.get("speedup_vs_monolithic"), "%.3f"),
                          fmt(mt.get("overlap_efficiency"), "%.2f")]
        multi = rows[key].get("windowed_multistream")
        cells.append(fmt(metrics_of(multi).get("gemm_step_tflops") if multi else None, "%.1f"))
        cells.append("shared GPU (sockets): not an overlap result" if shared else "")
        print("| " + " | ".join(cells) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
