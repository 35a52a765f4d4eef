#!/usr/bin/env bash
# A throw-away three-node Slurm cluster on one machine (issue 20 item 1):
#   bash cluster.sh up DIR     # prints `export SLURM_CONF=DIR/slurm.conf`
#   bash cluster.sh down DIR   # idempotent: kills what `up DIR` started, deletes its netns and links
#   bash cluster.sh kill-node DIR K   # node ghnodeK dies: its slurmd and every process on it killed
# munged and slurmctld run in the root namespaces on the bridge address 10.213.77.1; each of
# ghnode1..3 is a slurmd in its own network namespace (gh-ghnodeK, address 10.213.77.1K on the
# bridge gh-br0 through a veth pair) and its own UTS namespace (host name ghnodeK), with 4 fake
# GPUs as gres (files under DIR/dev, so Slurm sets CUDA_VISIBLE_DEVICES) and 2 CPUs. The bridge
# has no uplink and no other address: traffic stays between these addresses. Every file
# (munge key and socket, slurm.conf, state, logs, pid files) is under DIR.
# Needs root, iproute2 (ip netns, veth, bridge), unshare (util-linux), slurm-wlm, munge.
# Exit: 0 done, 3 cannot run here (reason on stderr), 1 the cluster did not come up.
set -uo pipefail

NODES=(ghnode1 ghnode2 ghnode3)
NET=10.213.77
BRIDGE=gh-br0
CTLD_ADDR=$NET.1
CTLD_PORT=46817
SLURMD_PORT=46818
CPUS=8  # per node (Slurm's count; the jobs share the machine's cores)

source "$(dirname "${BASH_SOURCE[0]}")/../slurm/slurm_conf.sh"

log() { echo "cluster.sh: $*" >&2; }
node_addr() { echo "$NET.1$1"; }  # node K (1-based) -> 10.213.77.1K

wait_for() {  # wait_for SECONDS CMD...: until CMD succeeds
  local limit=$1 i; shift
  for ((i = 0; i < limit * 4; ++i)); do "$@" >/dev/null 2>&1 && return 0; sleep 0.25; done
  return 1
}

preflight() {
  [ "$(id -u)" -eq 0 ] || { log "needs root (network namespaces, slurmd runs jobs as any user)"; return 3; }
  local tool
  for tool in ip unshare nsenter munged slurmctld slurmd srun sinfo scontrol; do
    command -v "$tool" >/dev/null || { log "'$tool' not found (apt-get install iproute2 util-linux slurm-wlm munge)"; return 3; }
  done
  ip netns add gh-probe 2>/dev/null && ip netns del gh-probe || { log "cannot create network namespaces here"; return 3; }
  unshare --uts true 2>/dev/null || { log "cannot create UTS namespaces here"; return 3; }
  ip link show "$BRIDGE" >/dev/null 2>&1 && { log "$BRIDGE exists: another cluster is up (cluster.sh down DIR)"; return 3; }
  return 0
}

write_conf() {
  local dir=$1 k g
  slurm_conf_common ghcluster "$(hostname -s)($CTLD_ADDR)" "$CTLD_PORT" "$SLURMD_PORT" "$dir" %n \
    >"$dir/slurm.conf"
  echo "GresTypes=gpu" >>"$dir/slurm.conf"
  # CPUS per node is more than the machine has: config_overrides makes slurmd take the
  # configured count instead of draining the node, so cells of 16 ranks fit the allocation.
  echo "SlurmdParameters=config_overrides" >>"$dir/slurm.conf"
  # A node that dies (slurmd stopped, its processes killed) is marked DOWN once it has not
  # answered slurmctld's pings for SlurmdTimeout (default 300 s); srun then says "Node failure
  # on ghnodeK". 6 s: found in about 10 s, yet far above how late a node on a loaded machine answers.
  echo "SlurmdTimeout=6" >>"$dir/slurm.conf"
  # PMIx puts each step's client directory under PMIxCliTmpDirBase, named by job and step only:
  # nodes sharing one file system would collide ("File exists"), so every node bind-mounts its
  # own directory on this path in its mount namespace (see up).
  echo "PMIxCliTmpDirBase=$dir/pmix" >"$dir/mpi.conf"
  # Slurm 22.05's default (tree) PMIx fence lets the other ranks of a step leave MPI_Init while
  # rank 0 still waits in the modex fence; their first message then reaches an ob1 handler Open
  # MPI 4.1 has not registered yet and rank 0 segfaults in MPI_Init. Under CPU load the cyclic
  # layout hit it 2 runs in 70 with tree, 0 in 220 with ring.
  echo "PMIxCollFence=ring" >>"$dir/mpi.conf"
  mkdir -p "$dir/pmix"
  : >"$dir/gres.conf"
  for k in 1 2 3; do
    echo "NodeName=ghnode$k NodeHostname=ghnode$k NodeAddr=$(node_addr $k) CPUs=$CPUS Gres=gpu:4 State=UNKNOWN" >>"$dir/slurm.conf"
    mkdir -p "$dir/dev/ghnode$k"
    # Slurm wants character devices for File=: /dev/null's numbers (1,3) stand in for GPUs.
    for g in 0 1 2 3; do mknod "$dir/dev/ghnode$k/gpu$g" c 1 3 || return 1; done
    echo "NodeName=ghnode$k Name=gpu File=$dir/dev/ghnode$k/gpu[0-3]" >>"$dir/gres.conf"
  done
  echo "PartitionName=gh Nodes=ghnode[1-3] Default=YES MaxTime=INFINITE State=UP OverSubscribe=YES" >>"$dir/slurm.conf"
}

make_network() {
  ip link add "$BRIDGE" type bridge || return 1
  ip addr add "$CTLD_ADDR/24" dev "$BRIDGE" && ip link set "$BRIDGE" up || return 1
  local k ns
  for k in 1 2 3; do
    ns=gh-ghnode$k
    ip netns add "$ns" || return 1
    ip link add "gh-veth$k" type veth peer name eth0 netns "$ns" || return 1
    ip link set "gh-veth$k" master "$BRIDGE" up || return 1
    ip -n "$ns" addr add "$(node_addr $k)/24" dev eth0 || return 1
    ip -n "$ns" link set eth0 up && ip -n "$ns" link set lo up || return 1
  done
}

up() {
  local dir=$1 k
  preflight || return $?
  mkdir -p "$dir/munge" "$dir/ctld" "$dir/spool" || return 3
  dir=$(cd "$dir" && pwd)
  chmod 700 "$dir/munge"
  head -c 1024 /dev/urandom >"$dir/munge/munge.key" && chmod 400 "$dir/munge/munge.key"
  munged --force --key-file="$dir/munge/munge.key" --socket="$dir/munge/munge.socket" \
         --pid-file="$dir/munge/munged.pid" --log-file="$dir/munge/munged.log" \
         --seed-file="$dir/munge/munged.seed" || { log "munged did not start"; return 1; }
  # The marker tells `down DIR` that this DIR's cluster owns the (fixed-name) links and
  # namespaces; a `down` of a DIR whose `up` was refused leaves another cluster's alone.
  : >"$dir/network"
  make_network || { log "could not create the bridge, namespaces or veth pairs"; return 1; }
  write_conf "$dir" || { log "could not write the configuration (mknod under $dir?)"; return 1; }
  export SLURM_CONF=$dir/slurm.conf
  slurmctld -i -f "$SLURM_CONF" >"$dir/slurmctld.out" 2>&1 || { log "slurmctld did not start"; return 1; }
  for k in 1 2 3; do
    # The UTS namespace gives the node its host name, the mount namespace its own PMIx
    # directory; slurmd daemonizes and keeps all three namespaces. nsenter, not `ip netns
    # exec`: the latter remounts /sys, hiding the cgroup file system slurmd needs.
    mkdir -p "$dir/spool/ghnode$k" "$dir/pmix-ghnode$k"
    nsenter --net="/run/netns/gh-ghnode$k" unshare --uts --mount --propagation private sh -c \
      "hostname ghnode$k && mount --bind '$dir/pmix-ghnode$k' '$dir/pmix' && exec slurmd -f '$SLURM_CONF' -N ghnode$k" >"$dir/slurmd-ghnode$k.out" 2>&1 \
      || { log "slurmd ghnode$k did not start"; return 1; }
  done
  if ! wait_for 60 sh -c '[ "$(sinfo -h -N -o %t | grep -c "^idle")" -ge 3 ]'; then
    log "the nodes did not all come up; sinfo says:"; sinfo -N >&2
    tail -n 15 "$dir/slurmctld.log" "$dir"/slurmd-*.log >&2
    return 1
  fi
  log "up: ${NODES[*]} ($CPUS CPUs, gpu:4 each) on $BRIDGE $NET.0/24"
  echo "export SLURM_CONF=$SLURM_CONF"
}

# Kills the daemons of the given pid files (never by name) together, then waits for them to go
# (each takes 1-2 s to shut down) and SIGKILLs any still there after 10 s.
kill_pidfiles() {
  local pidfile pid pids=() i
  for pidfile in "$@"; do
    [ -s "$pidfile" ] && pid=$(cat "$pidfile") && kill "$pid" 2>/dev/null && pids+=("$pid")
    rm -f "$pidfile"
  done
  for pid in "${pids[@]}"; do
    for ((i = 0; i < 40; ++i)); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$pid" 2>/dev/null
  done
  return 0
}

down() {
  local dir=$1 k ns pid
  kill_pidfiles "$dir"/slurmd-ghnode{1,2,3}.pid
  # Job steps left over (slurmstepd and tasks) live in the node namespaces: kill them there.
  for k in 1 2 3; do
    ns=gh-ghnode$k
    [ -e "$dir/network" ] || continue
    ip netns list 2>/dev/null | grep -qw "$ns" || continue
    for pid in $(ip netns pids "$ns" 2>/dev/null); do kill -9 "$pid" 2>/dev/null; done
  done
  kill_pidfiles "$dir/slurmctld.pid" "$dir/munge/munged.pid"
  [ -e "$dir/network" ] || return 0
  for k in 1 2 3; do
    ip link del "gh-veth$k" 2>/dev/null
    ip netns del "gh-ghnode$k" 2>/dev/null
  done
  ip link del "$BRIDGE" 2>/dev/null
  rm -f "$dir/network"
  return 0
}

# A node dying mid-job, as on a real cluster: its slurmd stopped (by pid file) and every process
# left in its namespaces (slurmstepd and the tasks) SIGKILLed, so nothing tells slurmctld or srun
# what became of the step; slurmctld marks the node DOWN once it misses SlurmdTimeout.
kill_node() {
  local dir=$1 k=$2 pid
  kill_pidfiles "$dir/slurmd-ghnode$k.pid"
  for pid in $(ip netns pids "gh-ghnode$k" 2>/dev/null); do kill -9 "$pid" 2>/dev/null; done
  return 0
}

case "${1:-}" in
  kill-node) [ -n "${2:-}" ] && [ -n "${3:-}" ] || { log "usage: cluster.sh kill-node DIR K"; exit 2; }; kill_node "$2" "$3" ;;
  up) [ -n "${2:-}" ] || { log "usage: cluster.sh up DIR"; exit 2; }; up "$2" ;;
  down) [ -n "${2:-}" ] || { log "usage: cluster.sh down DIR"; exit 2; }; down "$2" ;;
  *) log "usage: cluster.sh up|down DIR | kill-node DIR K"; exit 2 ;;
esac
