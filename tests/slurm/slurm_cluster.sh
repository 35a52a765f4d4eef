#!/usr/bin/env bash
# A throw-away one-node Slurm cluster on localhost for tests, sourced by the test scripts:
#   source slurm_cluster.sh; slurm_cluster_start DIR; ...; slurm_cluster_stop
# munged, slurmctld and slurmd run as root with every file under DIR (their own munge socket
# and key, slurm.conf, state, logs, pid files) and ports picked from the free range, so a test
# never touches a system munge or Slurm. The caller must `trap slurm_cluster_stop EXIT` so the
# daemons stop however the test ends. Needs the slurm-wlm and munge packages (scripts/setup.sh).

source "$(dirname "${BASH_SOURCE[0]}")/slurm_conf.sh"

slurm_cluster_dir=""

slurm_cluster_log() { echo "slurm_cluster: $*" >&2; }

# A TCP port nobody listens on (127.0.0.1), from a range above the usual services.
slurm_cluster_free_port() {
  python3 - <<'PY'
import socket
s = socket.socket()
s.bind(("127.0.0.1", 0))
print(s.getsockname()[1])
s.close()
PY
}

# Waits up to $2 seconds for the command $1 to succeed.
slurm_cluster_wait() {
  local what=$1 limit=$2 i
  for ((i = 0; i < limit * 4; ++i)); do
    if eval "$what" >/dev/null 2>&1; then return 0; fi
    sleep 0.25
  done
  return 1
}

slurm_cluster_start() {
  local dir=$1
  slurm_cluster_dir=$dir
  for tool in munged slurmctld slurmd srun sinfo scontrol python3; do
    if ! command -v "$tool" >/dev/null; then
      slurm_cluster_log "'$tool' not found: install slurm-wlm and munge (bash scripts/setup.sh)"
      return 3
    fi
  done
  if [ "$(id -u)" -ne 0 ]; then slurm_cluster_log "needs root (slurmd runs jobs as any user)"; return 3; fi
  mkdir -p "$dir/munge" "$dir/ctld" "$dir/spool" || return 3
  chmod 700 "$dir/munge"
  # A fresh key for this cluster only: munged refuses keys others can read.
  head -c 1024 /dev/urandom >"$dir/munge/munge.key" && chmod 400 "$dir/munge/munge.key" || return 3
  munged --force --key-file="$dir/munge/munge.key" --socket="$dir/munge/munge.socket" \
         --pid-file="$dir/munge/munged.pid" --log-file="$dir/munge/munged.log" \
         --seed-file="$dir/munge/munged.seed" || { slurm_cluster_log "munged did not start"; return 3; }

  local host cpus ctld_port slurmd_port
  host=$(hostname -s)
  cpus=$(nproc)
  ctld_port=$(slurm_cluster_free_port)
  slurmd_port=$(slurm_cluster_free_port)
  slurm_conf_common ghtest "${host}(127.0.0.1)" "$ctld_port" "$slurmd_port" "$dir" >"$dir/slurm.conf"
  cat >>"$dir/slurm.conf" <<CONF
NodeName=${host} NodeAddr=127.0.0.1 CPUs=${cpus} State=UNKNOWN
PartitionName=ghtest Nodes=${host} Default=YES MaxTime=INFINITE State=UP OverSubscribe=YES
CONF
  export SLURM_CONF="$dir/slurm.conf"
  # -i: ignore any state a previous run left (there is none: the dir is fresh).
  slurmctld -i -f "$SLURM_CONF" >"$dir/slurmctld.out" 2>&1 || { slurm_cluster_log "slurmctld did not start"; return 3; }
  slurmd -f "$SLURM_CONF" -N "$host" >"$dir/slurmd.out" 2>&1 || { slurm_cluster_log "slurmd did not start"; return 3; }
  if ! slurm_cluster_wait "sinfo -h -N -o %t | grep -Eq '^(idle|mix|alloc)'" 60; then
    slurm_cluster_log "the node did not come up; sinfo says:"; sinfo -N >&2 || true
    tail -n 20 "$dir/slurmctld.log" "$dir/slurmd.log" >&2 || true
    return 3
  fi
  slurm_cluster_log "up: node $host, $cpus CPUs, SLURM_CONF=$SLURM_CONF"
}

# Stops the daemons this script started, by their pid files (never by name), then waits for
# them to exit so the next test can start its own.
slurm_cluster_stop() {
  [ -n "$slurm_cluster_dir" ] || return 0
  local pidfile pid i
  for pidfile in "$slurm_cluster_dir/slurmd.pid" "$slurm_cluster_dir/slurmctld.pid" \
                 "$slurm_cluster_dir/munge/munged.pid"; do
    [ -s "$pidfile" ] || continue
    pid=$(cat "$pidfile")
    kill "$pid" 2>/dev/null || continue
    for ((i = 0; i < 40; ++i)); do kill -0 "$pid" 2>/dev/null || break; sleep 0.25; done
    kill -9 "$pid" 2>/dev/null || true
  done
  source "$(dirname "${BASH_SOURCE[0]}")/slurm_conf.sh"

slurm_cluster_dir=""
}
