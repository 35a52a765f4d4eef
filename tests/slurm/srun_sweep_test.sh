#!/usr/bin/env bash
# Slurm end-to-end (CTest gpuharness.slurm.srun_sweep, label "slurm"): starts a one-node Slurm
# cluster on localhost (munged, slurmctld, slurmd; stopped by the trap however the test ends),
# runs tests/slurm/srun_sweep.yaml through the shipped srun launcher (srun --mpi=pmix -O), and
# asserts the records point by point, each cell's rank layout, and that Slurm really ran one
# job per cell with the cell's task count.
#   bash tests/slurm/srun_sweep_test.sh GPUHARNESS_BIN SOURCE_DIR
# Exit: 0 pass, 1 an assertion failed, 3 the cluster could not be started, 77 not root (skip).
set -uo pipefail
bin=${1:?usage: srun_sweep_test.sh GPUHARNESS_BIN SOURCE_DIR}
src=${2:?usage: srun_sweep_test.sh GPUHARNESS_BIN SOURCE_DIR}
here="$src/tests/slurm"

if [ "$(id -u)" -ne 0 ]; then echo "SKIP: the one-node Slurm cluster needs root"; exit 77; fi

work=$(mktemp -d "${TMPDIR:-/tmp}/gh-slurm-XXXXXX")
source "$here/slurm_cluster.sh"
source "$here/sweep_or_fail.sh"
cleanup() { slurm_cluster_stop; rm -rf "$work"; }
trap cleanup EXIT
trap 'exit 130' INT TERM

slurm_cluster_start "$work/cluster" || exit 3
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 CI=true

sweep_or_fail "$bin" "$here/srun_sweep.yaml" "$work/out"

scontrol show jobs -o >"$work/jobs.txt" || { echo "FAIL: scontrol show jobs"; exit 1; }

python3 - "$work/out" "$work/jobs.txt" <<'PY'
import json, os, re, socket, sys
out, jobs_file = sys.argv[1], sys.argv[2]
host = socket.gethostname()
failures = []
def check(cond, msg):
    if not cond: failures.append(msg)

records = [json.loads(l) for l in open(os.path.join(out, "records.jsonl")) if l.strip()]
dtypes = ["f32", "bf16", "i32", "f64"]
for np_ in (2, 4):
    expected = {f"ring_shift/bytes=4K/dtype={d}/transport=mpi_p2p/np={np_}" for d in dtypes}
    mine = [r for r in records if r.get("cell") == {"np": str(np_)}]
    check({r["point"] for r in mine} == expected and len(mine) == len(expected),
          f"np={np_}: points {sorted(r['point'] for r in mine)}, expected {sorted(expected)}")
    for r in mine:
        where = f"np={np_} {r['point']}"
        check(r["outcome"] == "pass", f"{where}: outcome {r['outcome']} ({r.get('signature', '')})")
        check(r["matched"] is True, f"{where}: matched {r['matched']}")
        check(r["backend"] == "host", f"{where}: backend {r['backend']}")
        check(r["nranks"] == np_, f"{where}: nranks {r['nranks']}")
        check([k["rank"] for k in r["ranks"]] == list(range(np_)), f"{where}: ranks {[k['rank'] for k in r['ranks']]}")
        for k in r["ranks"]:
            check(k["outcome"] == "pass", f"{where}: rank {k['rank']} outcome {k['outcome']}")
            check(k["host"] == host, f"{where}: rank {k['rank']} host {k['host']!r}, expected {host!r}")
            check(k["device"] == -1, f"{where}: rank {k['rank']} device {k['device']}")
    env = json.load(open(os.path.join(out, "cells", f"np={np_}", "environment.json")))
    check(env["nranks"] == np_, f"np={np_}: environment nranks {env['nranks']}")
    check(env["hosts"] == [host] * np_, f"np={np_}: hosts {env['hosts']}")
    check(env["local_ranks"] == list(range(np_)), f"np={np_}: local_ranks {env['local_ranks']}")
check(len(records) == 8, f"{len(records)} records, expected 8")

# Slurm's own account: one completed job per cell, with the cell's task count, in its directory.
jobs = {}
for line in open(jobs_file):
    fields = dict(f.split("=", 1) for f in line.split() if "=" in f)
    if "JobId" in fields: jobs[os.path.basename(fields.get("WorkDir", ""))] = fields
for np_ in (2, 4):
    job = jobs.get(f"np={np_}")
    check(job is not None, f"np={np_}: no Slurm job ran in cells/np={np_} (jobs: {sorted(jobs)})")
    if job:
        check(job["JobState"] == "COMPLETED", f"np={np_}: Slurm job state {job['JobState']}")
        check(job["NumTasks"] == str(np_), f"np={np_}: Slurm job NumTasks {job['NumTasks']}")
        check(job["ExitCode"] == "0:0", f"np={np_}: Slurm job exit code {job['ExitCode']}")
check(len(jobs) == 2, f"{len(jobs)} Slurm jobs, expected 2")

for f in failures: print("FAIL:", f)
if failures: sys.exit(1)
print(f"PASS: 8 records (2 cells through srun, ranks 2 and 4) and 2 completed Slurm jobs on {host}")
PY
