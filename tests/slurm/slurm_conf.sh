# Sourced by the test clusters (tests/slurm/slurm_cluster.sh, tests/slurm_cluster/cluster.sh):
# the slurm.conf lines they share, so both run the same daemons the same way.
#
#   slurm_conf_common CLUSTER CTLD_HOST CTLD_PORT SLURMD_PORT DIR [NODE]
# Prints them: cluster CLUSTER, slurmctld on CTLD_HOST ("name(address)") at CTLD_PORT, slurmd at
# SLURMD_PORT, both as root with munge through DIR/munge, every state, spool, pid and log file
# under DIR (NODE, e.g. "%n", gives each slurmd its own), and the plugins a container without
# cgroups can run. The caller appends its nodes and partitions.
slurm_conf_common() {
  local cluster=$1 ctld_host=$2 ctld_port=$3 slurmd_port=$4 dir=$5 node=${6:-}
  cat <<CONF
ClusterName=${cluster}
SlurmctldHost=${ctld_host}
SlurmctldPort=${ctld_port}
SlurmdPort=${slurmd_port}
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=${dir}/munge/munge.socket
StateSaveLocation=${dir}/ctld
SlurmdSpoolDir=${dir}/spool${node:+/$node}
SlurmctldPidFile=${dir}/slurmctld.pid
SlurmdPidFile=${dir}/slurmd${node:+-$node}.pid
SlurmctldLogFile=${dir}/slurmctld.log
SlurmdLogFile=${dir}/slurmd${node:+-$node}.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
MpiDefault=none
ReturnToService=2
SchedulerType=sched/builtin
CONF
}
