#!/usr/bin/env python3
"""Puts the collective kind's times beside nccl-tests' for the same op, size and placement.

Reads nccl-tests' JSON output (`-J FILE`, one file per op and mode: its `time` column in full
precision) and gpuharness records.jsonl (kind collective), and prints one markdown table per
statistic: nccl-tests' default `time` against the harness's `time_loop_mean_us` (the same
statistic: a host clock around the iterations back to back), and `-G` against
`time_graph_mean_us`. ratio = nccl-tests time / harness time (> 1: the harness is faster); the
target is >= 0.98 at every size >= 1 MiB.

Usage: compare_collective_nccl_tests.py --nccl-tests DIR --records FILE [--records FILE ...]
  DIR holds <op>_loop_<pass>.json and <op>_graph_<pass>.json; each --records file is one pass,
  in the same order as the passes of DIR's files (1, 2, ...).
"""
import argparse
import collections
import glob
import json
import os
import re
import sys


def walk(node):
    """Every dict in a JSON tree."""
    if isinstance(node, dict):
        yield node
        for value in node.values():
            yield from walk(value)
    elif isinstance(node, list):
        for value in node:
            yield from walk(value)


def nccl_tests_times(path):
    """{(size, in_place): time_us} from one nccl-tests JSON file."""
    with open(path) as f:
        text = f.read()
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        sys.exit(f"{path}: not JSON ({error})")
    times = {}
    for entry in walk(data):
        if "size" not in entry:
            continue
        for key, in_place in (("out_of_place", False), ("in_place", True)):
            result = entry.get(key)
            if isinstance(result, dict) and "time" in result:
                times[(int(entry["size"]), in_place)] = float(result["time"])
    return times


def harness_times(path):
    """{(op, bytes, in_place): {metric: value}} from records.jsonl (rank 0's metrics)."""
    out = {}
    with open(path) as f:
        for line in f:
            record = json.loads(line)
            if record.get("kind") != "collective" or record.get("outcome") != "pass":
                continue
            params = record["params"]
            ranks = record.get("ranks") or []
            metrics = {m["name"]: m["value"] for m in (ranks[0].get("metrics", []) if ranks else [])}
            out[(params["op"], int(params["bytes"]), bool(params.get("in_place", False)))] = metrics
    return out


def size_label(size):
    for unit, name in ((1 << 30, "G"), (1 << 20, "M"), (1 << 10, "K")):
        if size >= unit and size % unit == 0:
            return f"{size // unit}{name}"
    return str(size)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--nccl-tests", required=True)
    parser.add_argument("--records", action="append", required=True)
    parser.add_argument("--target", type=float, default=0.98)
    args = parser.parse_args()

    nt = collections.defaultdict(dict)  # (op, mode, pass) -> times
    for path in glob.glob(os.path.join(args.nccl_tests, "*.json")):
        match = re.match(r"(.+)_(loop|graph)_(\d+)\.json$", os.path.basename(path))
        if match:
            nt[(match.group(1), match.group(2), int(match.group(3)))] = nccl_tests_times(path)
    passes = [harness_times(path) for path in args.records]
    ops = sorted({op for op, _, _ in nt})
    misses = 0
    for mode, metric, title in (("loop", "time_loop_mean_us", "default timing (`time`) vs time_loop_mean_us"),
                                ("graph", "time_graph_mean_us", "`-G` vs time_graph_mean_us")):
        print(f"\n### {title}\n")
        print("| op | bytes | in place | nccl-tests µs (per pass) | harness µs (per pass) | ratio (per pass) |")
        print("|---|---|---|---|---|---|")
        for op in ops:
            keys = sorted({k for p in range(1, len(passes) + 1) for k in nt.get((op, mode, p), {})})
            for size, in_place in keys:
                nts, hs, ratios = [], [], []
                for p, records in enumerate(passes, start=1):
                    t = nt.get((op, mode, p), {}).get((size, in_place))
                    h = records.get((op, size, in_place), {}).get(metric)
                    nts.append(f"{t:.2f}" if t else "–")
                    hs.append(f"{h:.2f}" if h else "–")
                    if t and h:
                        ratio = t / h
                        bad = ratio < args.target and size >= (1 << 20)
                        misses += bad
                        ratios.append(f"**{ratio:.3f}**" if bad else f"{ratio:.3f}")
                    else:
                        ratios.append("–")
                print(f"| {op} | {size_label(size)} | {'yes' if in_place else 'no'} | {' / '.join(nts)} | "
                      f"{' / '.join(hs)} | {' / '.join(ratios)} |")
    print(f"\ncells below {args.target} at >= 1M: {misses}")


if __name__ == "__main__":
    main()
