#!/usr/bin/env python3
"""Tables of what sliced_collective observed on the device, from scripts/device-check-sliced.sh's
result directories.

Usage: sliced_signature_table.py DIR   (DIR holds nccl-<v>_cumem-<c>_np<n>/results/records.jsonl)

The first table gives one row per registration point (allocator, placement, registration) and one
column per configuration (NCCL version, NCCL_CUMEM_ENABLE, ranks). Each cell is the outcome and a
short signature, marked '!' where the scenario file's expectation was not met. The second table
gives the device ring shift's bandwidth beside the device-to-device copy's.
"""
import json
import pathlib
import re
import sys

SHORT = [
    (r"Cuda failure 1 'invalid argument'", "Cuda failure 1"),
    (r"suitably aligned", "not aligned"),
    (r"GIN not supported", "GIN not supported"),
    (r"does not support symmetric memory", "no symmetric memory"),
]


def short(outcome, signature):
    if outcome == "pass":
        return "pass"
    for pattern, text in SHORT:
        if re.search(pattern, signature):
            return f"{outcome}: {text}"
    return f"{outcome}: {signature[:60]}"


def placement(params):
    offset = params.get("offset", 0)
    if params.get("allocator") == "arena":
        align = params.get("alignment", 256)
        return -(-offset // align) * align
    return offset


def main():
    root = pathlib.Path(sys.argv[1])
    configs = sorted(p for p in root.iterdir() if (p / "results" / "records.jsonl").exists())
    rows, cells, bandwidth = [], {}, []
    for config in configs:
        for line in (config / "results" / "records.jsonl").read_text().splitlines():
            try:
                rec = json.loads(line)
            except json.JSONDecodeError:
                continue
            p = rec["params"]
            if rec["kind"] == "ring_shift":
                metrics = {m["name"]: m["value"] for m in rec["metrics"]}
                bandwidth.append((config.name, p.get("bytes"), rec["outcome"], rec["signature"],
                                  metrics.get("bandwidth_GBps"), metrics.get("copy_bandwidth_GBps"),
                                  metrics.get("bandwidth_vs_copy")))
                continue
            if rec["scenario"] == "sliced_user_buffers":
                key = (rec["scenario"], p["allocator"], placement(p),
                       f'{p["registration"]}/{p["collective"]}/{p["slice"]}')
            elif rec["scenario"] == "sliced_device_ring_shift":
                key = (rec["scenario"], p["allocator"], placement(p), f'{p["collective"]}/{p["slice"]}')
            else:
                key = (rec["scenario"], p["allocator"] + (f'@{p["alignment"]}' if p["allocator"] == "arena" else ""),
                       placement(p), p["registration"])
            if key not in cells:
                rows.append(key)
                cells[key] = {}
            mark = "" if rec["matched"] else " **!**"
            cells[key][config.name] = short(rec["outcome"], rec["signature"]) + mark
    names = [c.name for c in configs]
    print("| scenario | allocator | offset | registration | " + " | ".join(names) + " |")
    print("|---|---|---|---|" + "---|" * len(names))
    for key in rows:
        print("| " + " | ".join(str(k) for k in key) + " | " +
              " | ".join(cells[key].get(n, "-") for n in names) + " |")
    if bandwidth:
        print()
        print("| config | bytes | outcome | device store GB/s | d2d copy GB/s | store/copy |")
        print("|---|---|---|---|---|---|")
        for name, size, outcome, sig, bw, copy, ratio in bandwidth:
            fmt = lambda v: "-" if v is None else f"{v:.0f}" if v > 10 else f"{v:.2f}"
            print(f"| {name} | {size} | {short(outcome, sig)} | {fmt(bw)} | {fmt(copy)} | {fmt(ratio)} |")


if __name__ == "__main__":
    main()
