#!/usr/bin/env bash
# Tests on the three-node Slurm cluster of cluster.sh (CTest label "slurm-cluster"); each case
# brings its own cluster up under a fresh temporary directory and down by the EXIT trap:
#   bash tests/slurm_cluster/cluster_test.sh GPUHARNESS_BIN SOURCE_DIR CASE [FAKE_LIB]
# CASE: nodes    - 3 nodes idle in sinfo; `srun -w ghnodeK hostname` answers ghnodeK
#       mpi      - `gpuharness run` of ring_shift (host backend) under srun --mpi=pmix -N 3 -n 6
#                  passes, and the records and environment.json name the three hosts
#       binding  - local rank and device of every rank in blocked, cyclic and uneven (3+2+1)
#                  layouts across the three hosts, against Slurm's own SLURM_LOCALID and the
#                  fake GPUs Slurm hands the rank (CUDA_VISIBLE_DEVICES)
#       teardown - `down` (also from a failing script's trap) leaves no daemon, netns or link
#       packing  - inside `salloc -N 3 --ntasks-per-node=8`, `gpuharness sweep` packs 8 cells of 2..16
#                  ranks as job steps across the nodes (packing_check.py: placement, capacity,
#                  side by side, wall time within 1.15x of the ideal); a 32-rank cell is exit 2
#       submit   - `gpuharness sweep --slurm "-N 3 --ntasks-per-node=8"` from outside an allocation: one
#                  batch job whose sweep spreads its cells over the nodes; the report as usual
#       faults   - a job step Slurm refuses to start is an infra outcome with srun's message (exit
#                  3); `scancel` of a `sweep --slurm` job mid-sweep leaves a DIR a rerun resumes
#       nodefail - a node killed (slurmd and its processes) under a running cell: that attempt is
#                  infra naming the node, the cell is retried on a live node and passes
#       nodesdead- every node killed mid-sweep: every cell infra naming the dead nodes, exit 3
#       bisect   - `gpuharness bisect --jobs 3` in an allocation (FAKE_LIB: the synthetic range's
#                  library): probes run as job steps on several nodes at once; it names n06
#       nightly  - ci/slurm/nightly-ghcluster.sbatch submitted with `sbatch --wait`, two nights
#                  over the synthetic range of tests/nightly_dryrun (FAKE_LIB: its fake MPI
#                  library): night 1 at n03 passes, night 2 at n08 regresses and its bisect names
#                  n06; the cells ran across the nodes; the night's summary and history
# Exit: 0 pass, 1 an assertion failed, 77 skip (not root, no netns, no Slurm; reason printed).
set -uo pipefail
bin=${1:?usage: cluster_test.sh GPUHARNESS_BIN SOURCE_DIR CASE}
src=${2:?usage: cluster_test.sh GPUHARNESS_BIN SOURCE_DIR CASE}
case_name=${3:?usage: cluster_test.sh GPUHARNESS_BIN SOURCE_DIR CASE}
cluster="$src/tests/slurm_cluster/cluster.sh"
bin=$(readlink -f "$bin")

work=$(mktemp -d "${TMPDIR:-/tmp}/gh-cluster-XXXXXX")
# GH_CLUSTER_TEST_KEEP=1 keeps the work directory (results, logs) for a look afterwards.
cleanup() { bash "$cluster" down "$work/c"; [ -n "${GH_CLUSTER_TEST_KEEP:-}" ] || rm -rf "$work"; }
trap cleanup EXIT
trap 'exit 130' INT TERM
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 CI=true

fail() { echo "FAIL: $*"; exit 1; }

cluster_up() {
  mkdir -p "$work/c"
  local status=0
  bash "$cluster" up "$work/c" >/dev/null || status=$?
  if [ "$status" -eq 3 ]; then echo "SKIP: the cluster cannot run here (reason above)"; exit 77; fi
  [ "$status" -eq 0 ] || fail "cluster.sh up exited $status"
  export SLURM_CONF=$work/c/slurm.conf
}

case_nodes() {
  cluster_up
  local states k got
  states=$(sinfo -h -N -o '%N %t' | sort)
  [ "$states" = $'ghnode1 idle\nghnode2 idle\nghnode3 idle' ] || fail "sinfo says: $states"
  for k in 1 2 3; do
    got=$(timeout 30 srun -w "ghnode$k" hostname) || fail "srun -w ghnode$k hostname failed"
    [ "$got" = "ghnode$k" ] || fail "srun -w ghnode$k hostname answered '$got'"
  done
  echo "PASS: 3 nodes idle; each srun -w ghnodeK answers its own host name"
}

# run_layout NAME SRUN_ARGS...: `gpuharness run` of ring_shift under srun; each rank first writes
# "rank localid host CUDA_VISIBLE_DEVICES" (as Slurm set them) to $work/NAME/slurm-RANK.
run_layout() {
  local name=$1; shift
  mkdir -p "$work/$name"
  timeout 120 srun --mpi=pmix -O --gres=gpu:4 "$@" sh -c \
    'echo "$SLURM_PROCID $SLURM_LOCALID $(hostname) ${CUDA_VISIBLE_DEVICES:-}" >"$0/slurm-$SLURM_PROCID"; exec "$1" run "$2" --out "$0/out" --backend host --filter "*/bytes=4K/dtype=i32/transport=mpi_p2p/*"' \
    "$work/$name" "$bin" "$src/scenarios/ring_shift.yaml" >"$work/$name/srun.log" 2>&1 \
    || { tail -n 30 "$work/$name/srun.log"; fail "$name: srun $* exited non-zero"; }
}

# check_layout NAME "HOST per rank" "LOCAL RANK per rank"
check_layout() {
  python3 - "$work/$1" "$2" "$3" <<'PY'
import glob, json, os, sys
d, hosts, local_ranks = sys.argv[1], sys.argv[2].split(), [int(x) for x in sys.argv[3].split()]
name, n = os.path.basename(d), len(hosts)
failures = []
def check(cond, msg):
    if not cond: failures.append(f"{name}: {msg}")
slurm = {}
for f in glob.glob(os.path.join(d, "slurm-*")):
    w = open(f).read().split()
    slurm[int(w[0])] = (int(w[1]), w[2], w[3] if len(w) > 3 else "")
check(sorted(slurm) == list(range(n)), f"Slurm started ranks {sorted(slurm)}, expected 0..{n-1}")
check([slurm[r][1] for r in sorted(slurm)] == hosts, f"Slurm put ranks on {[slurm[r][1] for r in sorted(slurm)]}, expected {hosts}")
check([slurm[r][0] for r in sorted(slurm)] == local_ranks, f"SLURM_LOCALID {[slurm[r][0] for r in sorted(slurm)]}, expected {local_ranks}")
envs = glob.glob(os.path.join(d, "out", "**", "environment.json"), recursive=True)
check(len(envs) == 1, f"{len(envs)} environment.json files, expected 1")
for e in envs:
    env = json.load(open(e))
    check(env["hosts"] == hosts, f"environment hosts {env['hosts']}, expected {hosts}")
    check(env["local_ranks"] == local_ranks, f"environment local_ranks {env['local_ranks']}, expected {local_ranks}")
    # Host backend: no rank binds a GPU (-1). On the cuda backend a rank drives device
    # <local rank>, which must be one Slurm handed its node (CUDA_VISIBLE_DEVICES).
    check(env["devices"] == [-1] * n, f"devices {env['devices']}, expected all -1 (host backend)")
    for r in range(n):
        visible = slurm.get(r, (0, "", ""))[2].split(",")
        check(str(local_ranks[r]) in visible,
              f"rank {r}: device {local_ranks[r]} (its local rank) not among CUDA_VISIBLE_DEVICES={visible}")
recs = glob.glob(os.path.join(d, "out", "**", "records.jsonl"), recursive=True)
check(len(recs) == 1, f"{len(recs)} records.jsonl files, expected 1")
for f in recs:
    records = [json.loads(l) for l in open(f) if l.strip()]
    check(len(records) == 1, f"{len(records)} records, expected 1")
    for rec in records:
        check(rec["point"] == f"ring_shift/bytes=4K/dtype=i32/transport=mpi_p2p/np={n}", f"point {rec['point']}")
        check(rec["outcome"] == "pass" and rec["matched"] is True,
              f"outcome {rec['outcome']} matched {rec['matched']} ({rec.get('signature', '')})")
        check([k["rank"] for k in rec["ranks"]] == list(range(n)), f"record ranks {[k['rank'] for k in rec['ranks']]}")
        check([k["host"] for k in rec["ranks"]] == hosts, f"record hosts {[k['host'] for k in rec['ranks']]}, expected {hosts}")
for f in failures: print("FAIL:", f)
sys.exit(1 if failures else 0)
PY
}

case_mpi() {
  cluster_up
  run_layout mpi -N 3 -n 6 --ntasks-per-node=2
  check_layout mpi "ghnode1 ghnode1 ghnode2 ghnode2 ghnode3 ghnode3" "0 1 0 1 0 1" || exit 1
  echo "PASS: ring_shift under srun --mpi=pmix -N 3 -n 6 passed on ghnode1..3"
}

case_binding() {
  cluster_up
  run_layout blocked -N 3 -n 6 --ntasks-per-node=2 --distribution=block
  check_layout blocked "ghnode1 ghnode1 ghnode2 ghnode2 ghnode3 ghnode3" "0 1 0 1 0 1" || exit 1
  run_layout cyclic -N 3 -n 6 --ntasks-per-node=2 --distribution=cyclic
  check_layout cyclic "ghnode1 ghnode2 ghnode3 ghnode1 ghnode2 ghnode3" "0 0 0 1 1 1" || exit 1
  # 3+2+1: a host file with one line per rank, in rank order (--distribution=arbitrary).
  printf '%s\n' ghnode1 ghnode1 ghnode1 ghnode2 ghnode2 ghnode3 >"$work/hostfile"
  SLURM_HOSTFILE=$work/hostfile run_layout uneven -n 6 --distribution=arbitrary
  check_layout uneven "ghnode1 ghnode1 ghnode1 ghnode2 ghnode2 ghnode3" "0 1 2 0 1 0" || exit 1
  echo "PASS: local ranks and devices for blocked, cyclic and uneven (3+2+1) layouts on 3 hosts"
}

# No daemon, namespace or link of the cluster in $1 is left.
assert_gone() {
  local dir=$1 pid left
  for pid in $(pgrep -f -- "$dir" || true); do
    [ "$pid" = "$$" ] && continue
    left+=" $(ps -o pid=,args= -p "$pid")"
  done
  [ -z "${left:-}" ] || fail "processes of $dir left:$left"
  ! ip netns list | grep -q '^gh-ghnode' || fail "namespaces left: $(ip netns list | grep '^gh-')"
  ! ip -o link show | grep -Eq 'gh-(veth|br)' || fail "links left: $(ip -o link show | grep -E 'gh-(veth|br)')"
}

case_teardown() {
  cluster_up
  timeout 30 srun -N 3 -n 3 sleep 1 || fail "srun -N 3 sleep failed"
  bash "$cluster" down "$work/c"
  assert_gone "$work/c"
  bash "$cluster" down "$work/c" || fail "a second down exited non-zero (not idempotent)"
  # A script that fails while the cluster is up: its trap must take everything down.
  mkdir -p "$work/c2"
  bash -c 'trap "kill -9 \$(jobs -p) 2>/dev/null; bash \"$0\" down \"$1\"" EXIT; bash "$0" up "$1" >/dev/null || exit 3
           SLURM_CONF=$1/slurm.conf srun -N 3 -n 3 sleep 300 & sleep 3; exit 1' "$cluster" "$work/c2"
  [ $? -eq 1 ] || fail "the failing script did not exit 1"
  assert_gone "$work/c2"
  echo "PASS: down (and a failing script's trap) leaves no daemon, namespace or link"
}

# A 32-rank cell in a 24-CPU allocation: exit 2 naming the cell, before DIR is even made.
check_too_big() {
  local status=0
  timeout 60 salloc -N 3 --ntasks-per-node=8 "$bin" sweep "$src/tests/slurm_cluster/too_big.yaml" \
    --out "$work/too_big" >"$work/too_big.log" 2>&1 || status=$?
  [ "$status" -eq 2 ] || { cat "$work/too_big.log"; fail "too_big: sweep exited $status, expected 2"; }
  grep -q "gpuharness sweep: cell np=32 needs 32 ranks; the Slurm job [0-9]*: 3 node(s) ghnode\[1-3\], 24 CPUs, 0 GPUs holds at most 24 (one CPU a rank)" \
    "$work/too_big.log" || { cat "$work/too_big.log"; fail "too_big: not the expected message"; }
  [ ! -e "$work/too_big" ] || fail "too_big: the refused sweep wrote $work/too_big"
}

case_packing() {
  cluster_up
  check_too_big
  local status=0 wall
  # The sweep's own wall time, inside the allocation: salloc's grant and release are not packing.
  GH_TEST_SLEEP=4 timeout 240 salloc -N 3 --ntasks-per-node=8 sh -c \
    't0=$(date +%s.%N); "$@"; s=$?; t1=$(date +%s.%N); echo "sweep wall: $(echo "$t1 - $t0" | bc)"; exit $s' \
    sh "$bin" sweep "$src/tests/slurm_cluster/packing.yaml" --out "$work/packing" >"$work/packing.log" 2>&1 || status=$?
  [ "$status" -eq 0 ] || { tail -n 40 "$work/packing.log"; tail -n 20 "$work"/packing/cells/*/job.log; fail "packing: sweep exited $status"; }
  grep -q "Slurm job [0-9]*: 3 node(s) ghnode\\[1-3\\], 24 CPUs, 0 GPUs, cells as job steps across the nodes" \
    "$work/packing.log" || { cat "$work/packing.log"; fail "packing: the sweep did not say it packs across the allocation"; }
  wall=$(sed -n 's/^sweep wall: //p' "$work/packing.log")
  python3 "$src/tests/slurm_cluster/packing_check.py" "$work/packing" "$wall" 24 || fail "packing: see above"
  echo "PASS: 8 cells packed as job steps over ghnode1..3 (sweep ${wall} s); a 32-rank cell is refused (exit 2)"
}

case_submit() {
  cluster_up
  local status=0 out=$work/submit
  (cd "$work" && GH_TEST_SLEEP=1 timeout 240 "$bin" sweep "$src/tests/slurm_cluster/packing.yaml" \
     --slurm "-N 3 --ntasks-per-node=8" --out "$out") >"$work/submit.log" 2>&1 || status=$?
  [ "$status" -eq 0 ] || { tail -n 40 "$work/submit.log"; fail "submit: sweep --slurm exited $status"; }
  grep -q "^gpuharness sweep --slurm: \$ sbatch --wait --parsable --output=$out/slurm-sweep.log --job-name=gpuharness-sweep -N 3 --ntasks-per-node=8 --wrap " \
    "$work/submit.log" || { cat "$work/submit.log"; fail "submit: no sbatch command line"; }
  grep -q "Slurm job [0-9]*: 3 node(s) ghnode\[1-3\], 24 CPUs" "$work/submit.log" \
    || { cat "$work/submit.log"; fail "submit: the batch job's sweep did not pack across the allocation"; }
  grep -q "^cells: 8 run, 0 resumed, 0 set-up failed, 0 with failures; results in $out" "$work/submit.log" \
    || { cat "$work/submit.log"; fail "submit: no cells line"; }
  python3 - "$out" <<'PY' || fail "submit: see above"
import json, os, sys
records = [json.loads(l) for l in open(os.path.join(sys.argv[1], "records.jsonl")) if l.strip()]
hosts = {k["host"] for r in records for k in r["ranks"]}
bad = [r["point"] for r in records if r["outcome"] != "pass"]
ok = len(records) == 8 and not bad and hosts == {"ghnode1", "ghnode2", "ghnode3"}
print(("PASS" if ok else "FAIL") + f": {len(records)} records, not passed {bad}, hosts {sorted(hosts)}")
sys.exit(0 if ok else 1)
PY
  echo "PASS: sweep --slurm ran the sweep as one batch job across ghnode1..3"
}

case_faults() {
  cluster_up
  local status=0 out=$work/refused
  timeout 120 salloc -N 3 --ntasks-per-node=8 "$bin" sweep "$src/tests/slurm_cluster/step_refused.yaml" \
    --out "$out" >"$work/refused.log" 2>&1 || status=$?
  [ "$status" -eq 3 ] || { cat "$work/refused.log"; fail "refused step: sweep exited $status, expected 3"; }
  python3 - "$out" <<'PY' || fail "refused step: see above"
import json, os, sys
records = [json.loads(l) for l in open(os.path.join(sys.argv[1], "records.jsonl")) if l.strip()]
sig = records[0]["signature"] if records else ""
ok = (len(records) == 1 and records[0]["outcome"] == "infra" and
      sig == "infrastructure: srun: error: Step requested GRES but job doesn't have GRES (job exited with status 1) (on all 3 attempts)")
print(("PASS" if ok else "FAIL") + f": refused step: {[(r['outcome'], r['signature']) for r in records]}")
sys.exit(0 if ok else 1)
PY
  # scancel mid-sweep: the batch job's sweep is killed; its DIR keeps the done cells and resumes.
  out=$work/cancelled
  (cd "$work" && GH_TEST_SLEEP=3 "$bin" sweep "$src/tests/slurm_cluster/packing.yaml" \
     --slurm "-N 3 --ntasks-per-node=8" --out "$out" >"$work/cancelled.log" 2>&1) &
  local submitter=$! i job
  for ((i = 0; i < 240; ++i)); do
    [ -n "$(ls "$out"/cells/*/done.json 2>/dev/null)" ] && break
    sleep 0.5
  done
  job=$(squeue -h -o %i -n gpuharness-sweep)
  [ -n "$job" ] || fail "scancel: no gpuharness-sweep job in squeue"
  scancel "$job"
  wait "$submitter"; status=$?
  [ "$status" -eq 3 ] || { cat "$work/cancelled.log"; fail "scancel: sweep --slurm exited $status for a cancelled job, expected 3"; }
  grep -q "^gpuharness sweep --slurm: batch job $job ended CANCELLED; $out keeps the finished cells: run the same command again to resume" \
    "$work/cancelled.log" || { cat "$work/cancelled.log"; fail "scancel: sweep --slurm did not say the job was cancelled"; }
  local done_before
  done_before=$(ls "$out"/cells/*/done.json | wc -l)
  [ "$done_before" -ge 1 ] && [ "$done_before" -lt 8 ] || fail "scancel: $done_before cells done before the cancel"
  status=0
  GH_TEST_SLEEP=1 timeout 240 salloc -N 3 --ntasks-per-node=8 "$bin" sweep "$src/tests/slurm_cluster/packing.yaml" \
    --out "$out" >"$work/resumed.log" 2>&1 || status=$?
  [ "$status" -eq 0 ] || { tail -n 30 "$work/resumed.log"; fail "scancel: the resumed sweep exited $status"; }
  grep -q "^cells: $((8 - done_before)) run, $done_before resumed, 0 set-up failed, 0 with failures" "$work/resumed.log" \
    || { tail -n 5 "$work/resumed.log"; fail "scancel: the rerun did not resume the $done_before done cells"; }
  echo "PASS: a refused step is infra with srun's message; after scancel $done_before cells were kept and the rest resumed"
}

# step_host CELL_DIR: the first host of the cell's last job step (its srun -w list).
step_host() {
  python3 -c 'import json,sys; a=json.load(open(sys.argv[1]))["jobs"][-1]["argv"]; print(a[a.index("-w")+1].split(",")[0])' "$1/cell.json"
}

# start_node_death_sweep OUT: node_death.yaml in `salloc --no-kill` (a dead node must not end the
# allocation) in the background; waits until both cells' ranks have started (start.0 written).
start_node_death_sweep() {
  local out=$1 i
  GH_TEST_SLEEP=${GH_TEST_SLEEP:-10} timeout 240 salloc --no-kill -N 3 --ntasks-per-node=8 "$bin" sweep \
    "$src/tests/slurm_cluster/node_death.yaml" --out "$out" >"$out.log" 2>&1 &
  sweep_pid=$!
  for ((i = 0; i < 240; ++i)); do
    [ -e "$out/cells/cell=a5/start.0" ] && [ -e "$out/cells/cell=b5/start.0" ] && return 0
    sleep 0.25
  done
  cat "$out.log"; fail "node death: the cells did not start"
}

case_nodefail() {
  cluster_up
  local out=$work/nodefail status=0 dead k t_kill t_seen i
  start_node_death_sweep "$out"
  dead=$(step_host "$out/cells/cell=b5")
  [ "$dead" != "$(step_host "$out/cells/cell=a5")" ] || fail "nodefail: both cells on $dead"
  t_kill=$(date +%s.%N)
  bash "$cluster" kill-node "$work/c" "${dead#ghnode}"
  for ((i = 0; i < 480; ++i)); do
    grep -q "Node failure on $dead" "$out.log" && break
    sleep 0.25
  done
  t_seen=$(date +%s.%N)
  wait "$sweep_pid" || status=$?
  [ "$status" -eq 0 ] || { cat "$out.log"; tail -n 20 "$out"/cells/*/job*.log; fail "nodefail: sweep exited $status, expected 0 (the retry passes)"; }
  grep -q "^cell=b5: srun: error: Node failure on $dead: running it again on the live nodes (attempt 2 of 3; $dead left out)$" "$out.log" \
    || { cat "$out.log"; fail "nodefail: the sweep did not say it retries cell=b5 without $dead"; }
  python3 - "$out" "$dead" <<'PY' || fail "nodefail: see above"
import json, os, sys
out, dead = sys.argv[1], sys.argv[2]
failures = []
def check(cond, msg):
    if not cond: failures.append(msg)
done = json.load(open(os.path.join(out, "cells", "cell=b5", "done.json")))
end = f"infrastructure: srun: error: Node failure on {dead} (job exited with status 0)"
retry = done.get("retry_of") or {}
check(done.get("attempt") == 2, f"b5 done.json attempt {done.get('attempt')}, expected 2")
check(retry.get("attempt") == 1 and retry.get("died_on") == [dead] and retry.get("end") == end
      and retry.get("hosts") == [dead], f"b5 retry_of {retry}")
jobs = done["jobs"]
check(len(jobs) == 2 and jobs[0]["end"] == end and jobs[1]["log"].endswith("/job.retry1.log"),
      f"b5 jobs: {[(j['log'], j.get('end')) for j in jobs]}")
retry_hosts = jobs[1]["argv"][jobs[1]["argv"].index("-w") + 1].split(",")
check(dead not in retry_hosts, f"the retry ran on {retry_hosts}, with the dead node {dead}")
check(os.path.exists(jobs[0]["log"]), "the first attempt's log is gone")
a = json.load(open(os.path.join(out, "cells", "cell=a5", "done.json")))
check("attempt" not in a and "retry_of" not in a, f"a5 was not retried: {a.get('attempt')}")
records = [json.loads(l) for l in open(os.path.join(out, "records.jsonl")) if l.strip()]
by_cell = {r["cell"]["cell"]: r for r in records}
check(len(records) == 2 and all(r["outcome"] == "pass" for r in records),
      f"records: {[(r['cell'], r['outcome'], r['signature']) for r in records]}")
b_hosts = {k["host"] for k in by_cell.get("b5", {}).get("ranks", [])}
check(b_hosts and dead not in b_hosts, f"b5's record ran on {b_hosts}")
sweep = json.load(open(os.path.join(out, "sweep.json")))
details = {c["id"]: c.get("detail", "") for c in sweep["cells"]}
check(details.get("cell=b5") == f"attempt 2 after {end}", f"sweep.json details {details}")
for f in failures: print("FAIL:", f)
if failures: sys.exit(1)
print(f"PASS: b5's node {dead} died, the retry (job.retry1, {jobs[1]['wall_s']:.1f} s) passed on {sorted(b_hosts)}")
PY
  echo "PASS: $dead died under cell=b5: infra naming it, $(echo "$t_seen - $t_kill" | bc) s after the kill; retried elsewhere, passed"
}

case_nodesdead() {
  cluster_up
  local out=$work/nodesdead status=0
  GH_TEST_SLEEP=20 start_node_death_sweep "$out"
  local k killers=()
  for k in 1 2 3; do bash "$cluster" kill-node "$work/c" "$k" & killers+=($!); done
  wait "${killers[@]}"
  wait "$sweep_pid" || status=$?
  [ "$status" -eq 3 ] || { cat "$out.log"; fail "nodesdead: sweep exited $status, expected 3 (infra)"; }
  python3 - "$out" <<'PY' || { cat "$out.log"; fail "nodesdead: see above"; }
import json, os, re, sys
records = [json.loads(l) for l in open(os.path.join(sys.argv[1], "records.jsonl")) if l.strip()]
# The record keeps the last attempt's cause (a node failure, or the job Slurm ended once every
# node was gone); the console names each dead node as it leaves it out (checked below).
named = re.compile(r"^infrastructure: srun: error: (Node failure on ghnode[1-3]|Slurm job \d+ has expired) "
                   r"\(job exited with status \d+\)( \(on all 3 attempts\))?$")
got = [(r["cell"]["cell"], r["outcome"], r["signature"]) for r in records]
ok = len(records) == 2 and all(o == "infra" and named.search(s) for _, o, s in got)
print(("PASS" if ok else "FAIL") + f": every node died: {got}")
sys.exit(0 if ok else 1)
PY
  grep -Eq "ghnode[1-3].* left out" "$out.log" || { cat "$out.log"; fail "nodesdead: the console names no dead node it left out"; }
  echo "PASS: every node died mid-sweep: each cell infra, the dead nodes named as they were left out, exit 3"
}

# The nightly's synthetic versions n01..n08 (first bad n06) for bisects on the cluster.
synthetic_versions() {
  local fake_lib=${1:?needs FAKE_LIB (libgh_bisect_fake_version.so)} v
  export GH_NIGHTLY_TESTDATA="$src/tests/nightly_dryrun" GH_NIGHTLY_FAKE_LIB="$fake_lib"
  export GH_NIGHTLY_TEST_VERSIONS="$work/versions"
  mkdir -p "$GH_NIGHTLY_TEST_VERSIONS"
  for v in n01 n02 n03 n04 n05 n06 n07 n08; do : >"$GH_NIGHTLY_TEST_VERSIONS/$v"; done
}

case_bisect() {
  cluster_up
  synthetic_versions "${1:-}"
  local out=$work/bisect status=0
  GH_TEST_SLEEP=3 timeout 280 salloc -N 3 --ntasks-per-node=8 "$bin" bisect "$src/tests/slurm_cluster/bisect_nodes.yaml" \
    --good n01 --bad n08 --jobs 3 --p-bad 0.9 --estimate-trials 0 --out "$out" >"$work/bisect.log" 2>&1 || status=$?
  [ "$status" -le 1 ] || { cat "$work/bisect.log"; tail -n 20 "$out"/probes/*/trial*/job.log; fail "bisect: exited $status"; }
  grep -q "^probes: Slurm job [0-9]*: 3 node(s) ghnode\[1-3\], 24 CPUs, 0 GPUs, cells as job steps across the nodes$" \
    "$work/bisect.log" || { cat "$work/bisect.log"; fail "bisect: it did not say the probes run across the nodes"; }
  python3 - "$out" <<'PY' || { cat "$work/bisect.log"; fail "bisect: see above"; }
import glob, json, os, sys
out = sys.argv[1]
failures = []
def check(cond, msg):
    if not cond: failures.append(msg)
answer = json.load(open(os.path.join(out, "summary.json"))).get("answer", {})
check(answer.get("first_bad") == "n06" and answer.get("last_good") == "n05", f"answer {answer}")
probes = []  # (config/trial, step hosts, record hosts, start, end)
for job in sorted(glob.glob(os.path.join(out, "probes", "*", "trial*", "job.json"))):
    d = os.path.dirname(job)
    j = json.load(open(job))
    records = [json.loads(l) for l in open(os.path.join(d, "records.jsonl")) if l.strip()]
    rec_hosts = sorted({k["host"] for r in records for k in r["ranks"]})
    starts = [float(open(f).read()) for f in glob.glob(os.path.join(d, "start.*"))]
    ends = [float(open(f).read()) for f in glob.glob(os.path.join(d, "end.*"))]
    check(len(starts) == 6 and len(ends) == 6, f"{d}: {len(starts)} start and {len(ends)} end files")
    step = sorted(set(j.get("hosts", [])))
    check(step and rec_hosts == step, f"{d}: ran on {rec_hosts}, its step named {step}")
    if starts and ends:
        probes.append((os.path.relpath(d, out), step, min(starts), max(ends)))
overlaps = [(a[0], b[0], a[1], b[1]) for i, a in enumerate(probes) for b in probes[i + 1:]
            if a[2] < b[3] and b[2] < a[3] and a[1] != b[1]]
check(overlaps, f"no two probes overlapped in time on different nodes: {probes}")
check(len({h for p in probes for h in p[1]}) >= 2, f"the probes ran on {probes}")
for f in failures: print("FAIL:", f)
if failures: sys.exit(1)
a, b, ha, hb = overlaps[0]
print(f"PASS: {len(probes)} probes; e.g. {a} on {ha} and {b} on {hb} at the same time; first bad {answer['first_bad']}")
PY
  echo "PASS: bisect --jobs 3 in an allocation packed its probes across the nodes and named n06"
}

# night ID VERSION EXPECTED_EXIT: one night, the batch file submitted from the source tree.
night() {
  local rc=0 t0 t1
  t0=$(date +%s.%N)
  (cd "$src" && GH_NIGHTLY_ROOT=$work/results GH_NIGHTLY_VERSION=$2 GH_NIGHTLY_NIGHT=$1 GH_NIGHTLY_PROGRAM=$bin \
     timeout 600 sbatch --wait --output="$work/$1.log" ci/slurm/nightly-ghcluster.sbatch) >"$work/$1.sbatch.log" 2>&1 || rc=$?
  t1=$(date +%s.%N)
  echo "night $1 at $2: sbatch --wait exited $rc after $(echo "$t1 - $t0" | bc) s"
  [ "$rc" -eq "$3" ] || { cat "$work/$1.sbatch.log"; tail -n 60 "$work/$1.log"; fail "night $1: exited $rc, expected $3"; }
}

case_nightly() {
  local fake_lib=${1:?nightly needs FAKE_LIB (libgh_bisect_fake_version.so)}
  cluster_up
  synthetic_versions "$fake_lib"
  night night1 n03 0
  night night2 n08 1
  python3 - "$work/results" <<'PY' || fail "nightly: see above"
import glob, json, os, sys
root = sys.argv[1]
failures = []
def check(cond, msg):
    if not cond: failures.append(msg)
def load(*parts):
    path = os.path.join(root, *parts)
    try:
        with open(path) as f: return json.load(f) if path.endswith(".json") else f.read()
    except (OSError, ValueError) as e:
        failures.append(f"{path}: {e}"); return None
p2p = "ring_shift/bytes=4K/dtype=i32/transport=mpi_p2p/np=10"
n1 = load("nights", "night1", "nightly.json") or {}
check(n1.get("good") is True and n1.get("status") == 0, f"night1 nightly.json: {n1}")
n2 = load("nights", "night2", "nightly.json") or {}
check(n2.get("good") is False and n2.get("status") == 1 and n2.get("baseline_night") == "night1", f"night2 nightly.json: {n2}")
regs = (load("nights", "night2", "nightly", "regressions.json") or {}).get("regressions", [])
check([(r["point"], r["cell_arg"], r["new"]) for r in regs] == [(p2p, "transport=p2p", True)], f"night2 regressions: {regs}")
answer = (load("nights", "night2", "bisect", "nightly-1", "summary.json") or {}).get("answer", {})
check(answer.get("first_bad") == "n06" and answer.get("last_good") == "n05", f"night2 bisect answer {answer}")
check("First bad version **n06**, last good n05" in (load("nights", "night2", "summary.md") or ""),
      "night2 summary.md does not name n06 first bad, n05 last good")
# Across the nodes: the nights' cells and the bisect's probes.
for night in ("night1", "night2"):
    recs = [json.loads(l) for l in (load("nights", night, "nightly", "records.jsonl") or "").splitlines() if l.strip()]
    hosts = {r["cell"]["transport"]: sorted({k["host"] for k in r["ranks"]}) for r in recs}
    check(len(recs) == 2 and len(hosts.get("p2p", [])) == 2, f"{night}: {len(recs)} records, hosts per cell {hosts}")
probe_hosts = set()
for f in glob.glob(os.path.join(root, "nights", "night2", "bisect", "nightly-1", "**", "records.jsonl"), recursive=True):
    for l in open(f):
        if l.strip():
            probe_hosts |= {k["host"] for k in json.loads(l)["ranks"]}
check(len(probe_hosts) >= 2, f"the bisect's probes ran on {sorted(probe_hosts)}, expected several nodes")
for f in failures: print("FAIL:", f)
if failures: sys.exit(1)
print(f"PASS: night2's regression bisected to n06 on the cluster; probes on {sorted(probe_hosts)}")
PY
  local flips
  flips=$("$bin" history flips --format tsv --db "$work/results/history.sqlite") || fail "history flips exited $?"
  [ "$(printf '%s\n' "$flips" | cut -f1-7)" = "$(printf 'nightly\ttransport=p2p\tring_shift/bytes=4K/dtype=i32/transport=mpi_p2p/np=10\tpass\tfail\tnight2\tn08')" ] \
    || fail "history flips: '$flips'"
  echo "PASS: two nights through sbatch --wait on ghnode1..3; night 2's regression bisected to n06"
}

case "$case_name" in
  nodes | mpi | binding | teardown | packing | submit | faults | nodefail | nodesdead) "case_$case_name" ;;
  nightly) case_nightly "${4:-}" ;;
  bisect) case_bisect "${4:-}" ;;
  *) echo "unknown CASE '$case_name' (nodes, mpi, binding, teardown, packing, submit, faults, nodefail, nodesdead, bisect, nightly)"; exit 2 ;;
esac
