#!/usr/bin/env python3
"""Side-by-side tables of ring_shift at one rank on the cuda backend, from one device run.

  compare_ring_shift_bandwidth.py BASELINE.txt RECORDS.jsonl
      ring_shift nccl_p2p (scenarios/ring_shift_bandwidth.yaml) against raw NCCL
      (bench/nccl_sendrecv_baseline's table): medians of per-iteration events, and loops.

  compare_ring_shift_bandwidth.py --nccl-tests SENDRECV_PERF.txt --records LABEL=RECORDS.jsonl ...
      nccl-tests' sendrecv_perf against one or more gpuharness runs (scripts/device-perf-gaps.sh).
      nccl-tests' `time` is the mean of back-to-back iterations with nothing between them (host
      clock); gpuharness's time_loop_mean_us is the same statistic (CUDA events around the same
      kind of loop), its time_median_us the median of per-iteration events. With
      --nccl-tests-graph (sendrecv_perf -G N: the iterations captured in a CUDA graph, launched N
      times), a third pair: that time against time_graph_mean_us (graph_replays: the median over
      replays of the per-exchange mean; nccl-tests: the mean over its launches). The nccl_p2p table
      compares both with nccl-tests; the device table compares nccl_device and nccl_ce with the
      in-run device-to-device copy (bandwidth_vs_copy: medians; bandwidth_loop_vs_copy: loops)."""
import argparse
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


def read_records(path):
    """{(transport, bytes): {"outcome": ..., metric: value}} of rank 0."""
    points = {}
    with open(path) as f:
        for line in f:
            record = json.loads(line)
            ranks = record.get("ranks") or [{}]
            metrics = {m["name"]: m["value"] for m in ranks[0].get("metrics") or record.get("metrics", [])}
            metrics["outcome"] = record["outcome"]
            params = record["params"]
            points[(params.get("transport", "nccl_p2p"), params["bytes"])] = metrics
    return points


def line_fields(path):
    """Each line of a text table, split on whitespace."""
    with open(path) as f:
        for line in f:
            yield line.split()


def read_raw_baseline(path):
    raw = {}
    for fields in line_fields(path):
        # Only the table's rows: a size, then numbers (skip comments, the header, echoed commands).
        if len(fields) < 5 or not fields[0][0].isdigit():
            continue
        # Columns: bytes median min p90 loop [bare] ...; the bare loop compares with the
        # harness's time_loop_mean_us (older tables have none: their paired-event loop).
        has_bare = len(fields) >= 9
        raw[parse_size(fields[0])] = {"median": float(fields[1]),
                                      "loop": float(fields[5] if has_bare else fields[4])}
    return raw


def read_nccl_tests(path):
    """{bytes: out-of-place time in us} from sendrecv_perf's table."""
    return {int(fields[0]): float(fields[5]) for fields in line_fields(path)
            if len(fields) >= 8 and fields[0].isdigit() and fields[1].isdigit()}


def raw_table(baseline_path, records_path):
    raw = read_raw_baseline(baseline_path)
    harness = {size: m for (transport, size), m in read_records(records_path).items()}
    print(f"{'bytes':>6} | {'raw NCCL us':>11} {'harness us':>10} | {'raw GB/s':>9} {'harness GB/s':>12} "
          f"{'ratio':>6} | {'raw loop us':>11} {'harness loop us':>15} | outcome")
    for size in sorted(set(raw) | set(harness)):
        r, h = raw.get(size), harness.get(size)
        if not r or not h or not h.get("time_median_us"):
            print(f"{size_text(size):>6} | missing in {'harness' if r else 'baseline'}")
            continue
        raw_bw, h_bw = size / (r["median"] * 1e3), size / (h["time_median_us"] * 1e3)
        print(f"{size_text(size):>6} | {r['median']:11.2f} {h['time_median_us']:10.2f} | {raw_bw:9.1f} "
              f"{h_bw:12.1f} {h_bw / raw_bw:6.3f} | {r['loop']:11.2f} "
              f"{h.get('time_loop_mean_us') or 0:15.2f} | {h['outcome']}")


def fmt(value, spec):
    """`value` formatted by `spec` ("9.1f"), or "-" right-aligned to the same width."""
    return format(value, spec) if value is not None else format("-", ">" + spec.split(".")[0])


def nccl_tests_tables(nccl_tests_path, labelled, nccl_tests_graph_path=None):
    nt = read_nccl_tests(nccl_tests_path)
    ntg = read_nccl_tests(nccl_tests_graph_path) if nccl_tests_graph_path else {}
    runs = [(label, read_records(path)) for label, path in labelled]
    print("nccl_p2p against nccl-tests sendrecv_perf (us per iteration; ratio = nccl-tests time / ours, > 1 is faster)")
    header = f"{'bytes':>6} | {'nccl-tests':>10}" + (f" {'nt graph':>9}" if ntg else "")
    for label, _ in runs:
        header += f" | {label + ' loop':>14} {'ratio':>6} {label + ' median':>16} {'ratio':>6}"
        if ntg:
            header += f" {label + ' graph':>15} {'ratio':>6}"
    print(header)
    for size in sorted(nt):
        g = ntg.get(size)
        row = f"{size_text(size):>6} | {nt[size]:10.2f}" + (f" {fmt(g, '9.2f')}" if ntg else "")
        for _, points in runs:
            m = points.get(("nccl_p2p", size))
            if not m:
                row += f" | {'-':>14} {'-':>6} {'-':>16} {'-':>6}" + (f" {'-':>15} {'-':>6}" if ntg else "")
                continue
            loop, median = m.get("time_loop_mean_us"), m.get("time_median_us")
            row += (f" | {fmt(loop, '14.2f')} {fmt(nt[size] / loop if loop else None, '6.3f')}"
                    f" {fmt(median, '16.2f')} {fmt(nt[size] / median if median else None, '6.3f')}")
            if ntg:
                graph = m.get("time_graph_mean_us")
                row += f" {fmt(graph, '15.2f')} {fmt(g / graph if graph and g else None, '6.3f')}"
            if m["outcome"] != "pass":
                row += f" ({m['outcome']})"
        print(row)
    print()
    print("device transports against the in-run device-to-device copy (GB/s; vs copy = copy time / transport time)")
    print(f"{'run':>10} {'transport':>11} {'bytes':>6} | {'copy':>7} {'median':>7} {'vs copy':>7} | "
          f"{'copy loop':>9} {'loop':>7} {'vs copy':>7} | outcome")
    for label, points in runs:
        for (transport, size), m in sorted(points.items()):
            if transport == "nccl_p2p":
                continue
            print(f"{label:>10} {transport:>11} {size_text(size):>6} | {fmt(m.get('copy_bandwidth_GBps'), '7.1f')} "
                  f"{fmt(m.get('bandwidth_GBps'), '7.1f')} {fmt(m.get('bandwidth_vs_copy'), '7.3f')} | "
                  f"{fmt(m.get('copy_bandwidth_loop_GBps'), '9.1f')} {fmt(m.get('bandwidth_loop_GBps'), '7.1f')} "
                  f"{fmt(m.get('bandwidth_loop_vs_copy'), '7.3f')} | {m['outcome']}")


def main():
    if len(sys.argv) == 3 and not sys.argv[1].startswith("--"):
        raw_table(sys.argv[1], sys.argv[2])
        return
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--nccl-tests", required=True, help="sendrecv_perf's console output")
    parser.add_argument("--nccl-tests-graph", help="sendrecv_perf -G N's console output (CUDA graph launches)")
    parser.add_argument("--records", action="append", default=[], metavar="LABEL=RECORDS.jsonl")
    args = parser.parse_args()
    labelled = []
    for item in args.records:
        label, sep, path = item.partition("=")
        if not sep:
            parser.error(f"--records wants LABEL=PATH, got '{item}'")
        labelled.append((label, path))
    nccl_tests_tables(args.nccl_tests, labelled, args.nccl_tests_graph)


if __name__ == "__main__":
    main()
