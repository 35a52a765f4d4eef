#!/usr/bin/env bash
# Multi-node rank binding (CTest gpuharness.multinode.binding, label "mpi"): sweeps
# tests/slurm/multinode_binding.yaml, whose launcher gives each of 4 ranks a host name of its
# own (GH_HOSTNAME, from the cell's GH_TEST_RANK_HOSTS), and asserts every cell's local ranks
# (position among the ranks whose host names hash alike) and the host of every rank in the
# records. Runs as any user; mpirun as root needs the OMPI_ALLOW_RUN_AS_ROOT pair (set here).
#   bash tests/slurm/multinode_binding_test.sh GPUHARNESS_BIN SOURCE_DIR
# Exit: 0 pass, 1 an assertion failed.
set -uo pipefail
bin=${1:?usage: multinode_binding_test.sh GPUHARNESS_BIN SOURCE_DIR}
src=${2:?usage: multinode_binding_test.sh GPUHARNESS_BIN SOURCE_DIR}

source "$src/tests/slurm/sweep_or_fail.sh"
work=$(mktemp -d "${TMPDIR:-/tmp}/gh-multinode-XXXXXX")
trap 'rm -rf "$work"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 CI=true

sweep_or_fail "$bin" "$src/tests/slurm/multinode_binding.yaml" "$work/out"

python3 - "$work/out" <<'PY'
import json, os, sys
out = sys.argv[1]
# layout -> (each rank's host, each rank's expected local rank)
layouts = {
    "blocked": (["node-a", "node-a", "node-b", "node-b"], [0, 1, 0, 1]),
    "cyclic":  (["node-a", "node-b", "node-a", "node-b"], [0, 0, 1, 1]),
    "uneven":  (["node-a", "node-b", "node-b", "node-b"], [0, 0, 1, 2]),
}
failures = []
def check(cond, msg):
    if not cond: failures.append(msg)

records = [json.loads(l) for l in open(os.path.join(out, "records.jsonl")) if l.strip()]
check(len(records) == 3, f"{len(records)} records, expected 3 (one point per layout)")
for layout, (hosts, local_ranks) in layouts.items():
    env = json.load(open(os.path.join(out, "cells", f"layout={layout}", "environment.json")))
    check(env["hosts"] == hosts, f"{layout}: environment hosts {env['hosts']}, expected {hosts}")
    check(env["local_ranks"] == local_ranks,
          f"{layout}: local_ranks {env['local_ranks']}, expected {local_ranks}")
    check(env["devices"] == [-1] * 4, f"{layout}: devices {env['devices']}")
    mine = [r for r in records if r.get("cell") == {"layout": layout}]
    check(len(mine) == 1, f"{layout}: {len(mine)} records, expected 1")
    for r in mine:
        check(r["point"] == "ring_shift/bytes=4K/dtype=i32/transport=mpi_p2p/np=4", f"{layout}: point {r['point']}")
        check(r["outcome"] == "pass" and r["matched"] is True,
              f"{layout}: outcome {r['outcome']} matched {r['matched']} ({r.get('signature', '')})")
        check([k["rank"] for k in r["ranks"]] == [0, 1, 2, 3], f"{layout}: ranks {[k['rank'] for k in r['ranks']]}")
        check([k["host"] for k in r["ranks"]] == hosts,
              f"{layout}: record hosts {[k['host'] for k in r['ranks']]}, expected {hosts}")
        check(all(k["outcome"] == "pass" for k in r["ranks"]), f"{layout}: a rank did not pass")

for f in failures: print("FAIL:", f)
if failures: sys.exit(1)
print("PASS: local ranks and record hosts for blocked, cyclic and uneven layouts over two hosts")
PY
