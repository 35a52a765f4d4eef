#!/usr/bin/env python3
"""Side-by-side table: ring_shift through the harness (records.jsonl of
scenarios/ring_shift_bandwidth.yaml at 1 rank) against raw NCCL (bench/nccl_sendrecv_baseline's
table), both from the same device run. Usage: compare_ring_shift_bandwidth.py BASELINE.txt RECORDS.jsonl"""
import json
import sys


def size_text(n):
    for unit in ["", "K", "M", "G"]:
        if n % 1024 or n < 1024 or unit == "G":
            return f"{n}{unit}"
        n //= 1024
    return str(n)


def parse_size(text):
    scale = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}.get(text[-1], 1)
    return int(text.rstrip("KMG")) * scale


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    raw = {}
    with open(sys.argv[1]) as f:
        for line in f:
            fields = line.split()
            # Only the table's rows: a size, then numbers (skip comments, the header, echoed commands).
            if len(fields) < 5 or not fields[0][0].isdigit():
                continue
            raw[parse_size(fields[0])] = {"median": float(fields[1]), "loop": float(fields[4])}
    harness = {}
    with open(sys.argv[2]) as f:
        for line in f:
            record = json.loads(line)
            ranks = record.get("ranks") or [{}]
            metrics = {m["name"]: m["value"] for m in ranks[0].get("metrics") or record.get("metrics", [])}
            harness[record["params"]["bytes"]] = {
                "outcome": record["outcome"],
                "median": metrics.get("time_median_us"),
                "loop": metrics.get("time_loop_mean_us"),
            }
    print(f"{'bytes':>6} | {'raw NCCL us':>11} {'harness us':>10} | {'raw GB/s':>9} {'harness GB/s':>12} "
          f"{'ratio':>6} | {'raw loop us':>11} {'harness loop us':>15} | outcome")
    for size in sorted(set(raw) | set(harness)):
        r, h = raw.get(size), harness.get(size)
        if not r or not h or not h["median"]:
            print(f"{size_text(size):>6} | missing in {'harness' if r else 'baseline'}")
            continue
        raw_bw, h_bw = size / (r["median"] * 1e3), size / (h["median"] * 1e3)
        print(f"{size_text(size):>6} | {r['median']:11.2f} {h['median']:10.2f} | {raw_bw:9.1f} {h_bw:12.1f} "
              f"{h_bw / raw_bw:6.3f} | {r['loop']:11.2f} {h['loop'] or 0:15.2f} | {h['outcome']}")


if __name__ == "__main__":
    main()
