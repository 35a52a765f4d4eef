#!/usr/bin/env python3
"""Checks a packed sweep on the three-node cluster and computes its packing ratio.

  packing_check.py OUT_DIR SWEEP_WALL_S CAPACITY [MAX_RATIO]

OUT_DIR is the sweep's results directory (tests/slurm_cluster/packing.yaml through
launchers/srun_timed.yaml, whose ranks leave start.RANK / end.RANK in their cell's directory).
Asserts: every record passed on the hosts its job step was given (the step's `-w` list, in rank
order); at no moment did the running cells' ranks on a node exceed its CPUs (capacity / 3);
the 16-rank cell ran beside a 2-rank cell.

The ideal packing is computed from the cells' measured durations d_i (done.json wall_s, the
driver's view: step start to end) and ranks r_i on three nodes of CAPACITY/3 CPUs: the shortest
makespan of any start order (all 8! of them), each order list-scheduled (at time 0 and at every
cell end, start the cells in that order that fit now, placed as the sweep's packer places them,
slurm_packer.h). A cell never splits over time, so this is what a perfect scheduler would reach
with the same placement rule. The ratio is the sweep's wall time over it; above MAX_RATIO
(default 1.15) fails. Also printed: the plain lower bound max(max_i d_i, sum_i r_i d_i / CAPACITY),
which ignores that ranks of a cell are placed on whole nodes at once. Exit 0 pass, 1 fail.
"""
import glob
import heapq
import itertools
import json
import os
import sys


def place(free, ranks):
    """The sweep's packer (slurm_packer.cc, CPU mode): best fit on one node, else the freest
    nodes first; a list of (node, tasks) or None."""
    fits = [i for i, f in enumerate(free) if f >= ranks]
    if fits:
        best = min(fits, key=lambda i: (free[i], i))
        return [(best, ranks)]
    placed, left = [], ranks
    for i in sorted(range(len(free)), key=lambda i: (-free[i], i)):
        if left == 0 or free[i] == 0:
            break
        take = min(left, free[i])
        placed.append((i, take))
        left -= take
    return placed if left == 0 else None


def list_schedule(order, cells, per_node):
    """Makespan of starting `order` (cell labels) greedily as resources free up."""
    free = [per_node] * 3
    pending = list(order)
    running = []  # (end, tie, placement)
    now, tie = 0.0, 0
    while pending or running:
        for label in list(pending):
            p = place(free, cells[label]["ranks"])
            if p is None:
                continue
            for node, tasks in p:
                free[node] -= tasks
            tie += 1
            heapq.heappush(running, (now + cells[label]["wall"], tie, p))
            pending.remove(label)
        if not running:
            return float("inf")  # a cell that never fits
        now, _, p = heapq.heappop(running)
        for node, tasks in p:
            free[node] += tasks
    return now


def ideal_makespan(cells, per_node):
    return min(list_schedule(order, cells, per_node) for order in itertools.permutations(sorted(cells)))


def main():
    out, wall, capacity = sys.argv[1], float(sys.argv[2]), int(sys.argv[3])
    max_ratio = float(sys.argv[4]) if len(sys.argv) > 4 else 1.15
    per_node = capacity // 3
    failures = []

    def check(cond, msg):
        if not cond:
            failures.append(msg)

    records = [json.loads(l) for l in open(os.path.join(out, "records.jsonl")) if l.strip()]
    cells = {}
    for done_path in sorted(glob.glob(os.path.join(out, "cells", "*", "done.json"))):
        d = os.path.dirname(done_path)
        done = json.load(open(done_path))
        argv = done["jobs"][0]["argv"]
        check("--exact" in argv and "-w" in argv, f"{d}: the job is not a placed step: {argv}")
        hosts = argv[argv.index("-w") + 1].split(",") if "-w" in argv else []
        starts = [float(open(f).read()) for f in glob.glob(os.path.join(d, "start.*"))]
        ends = [float(open(f).read()) for f in glob.glob(os.path.join(d, "end.*"))]
        label = os.path.basename(d).split("=", 1)[1]
        cells[label] = {"hosts": hosts, "ranks": len(hosts), "wall": done["wall_s"],
                        "start": min(starts) if starts else 0, "end": max(ends) if ends else 0}
        check(len(starts) == len(hosts) == len(ends),
              f"{label}: {len(starts)} ranks started, {len(ends)} ended, {len(hosts)} placed")
    check(len(cells) == 8, f"{len(cells)} cells done, expected 8")
    for r in records:
        label = r["cell"]["cell"]
        check(r["outcome"] == "pass" and r["matched"] is True,
              f"{label}: outcome {r['outcome']} ({r.get('signature', '')})")
        want = cells.get(label, {}).get("hosts")
        got = [k["host"] for k in r["ranks"]]
        check(got == want, f"{label}: ranks ran on {got}, the step was placed on {want}")
    check(len(records) == 8, f"{len(records)} records, expected 8")

    # Per node, the ranks of the cells running at each cell's start never exceed its CPUs.
    for label, c in cells.items():
        t = c["start"]
        load = {}
        for other in cells.values():
            if other["start"] <= t < other["end"]:
                for h in other["hosts"]:
                    load[h] = load.get(h, 0) + 1
        for h, n in load.items():
            check(n <= per_node, f"at {label}'s start {h} ran {n} ranks (> {per_node} CPUs)")
    big = cells.get("a16")
    beside = [l for l, c in cells.items() if c["ranks"] == 2 and big and c["start"] < big["end"] and big["start"] < c["end"]]
    check(bool(beside), "no 2-rank cell ran beside the 16-rank cell")

    work = sum(c["ranks"] * c["wall"] for c in cells.values())
    longest = max((c["wall"] for c in cells.values()), default=0)
    bound = max(longest, work / capacity)
    ideal = ideal_makespan(cells, per_node) if cells else 0
    ratio = wall / ideal if ideal else float("inf")
    for label in sorted(cells):
        c = cells[label]
        print(f"  {label}: {c['ranks']:2d} ranks on {','.join(sorted(set(c['hosts'])))} "
              f"wall {c['wall']:.2f}s")
    print(f"packing: sweep wall {wall:.2f}s, ideal packing {ideal:.2f}s (best of 8! start orders), "
          f"ratio {ratio:.3f}; lower bound {bound:.2f}s (max(longest {longest:.2f}s, "
          f"rank-seconds {work:.1f} / {capacity} CPUs)), ratio to it {wall / bound:.3f}")
    check(ratio <= max_ratio, f"packing ratio {ratio:.3f} > {max_ratio}")
    for f in failures:
        print("FAIL:", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
