#!/usr/bin/env bash
# End-to-end test of `packlab slurm` on a real Slurm: starts a one-node cluster on this machine,
# submits an experiment as 4 shards and a merge job, waits for the merge, and compares the merged
# outputs with a one-machine run of the same file byte for byte. Stops every daemon it started.
#
# Needs root (it installs Debian's slurm-wlm and munge when they are missing and runs the
# daemons as root) and the release binary: `cargo build --release` first.
#
#   scripts/slurm-test.sh [EXPERIMENT.toml]    (default: experiments/fig4a_uniform_small.toml)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
exp=${1:-experiments/fig4a_uniform_small.toml}
packlab="$root/target/release/packlab"
[ -x "$packlab" ] || { echo "slurm-test: build first: cargo build --release" >&2; exit 2; }
[ "$(id -u)" = 0 ] || { echo "slurm-test: must run as root (it starts slurmctld, slurmd, munged)" >&2; exit 2; }

say() { echo "slurm-test: $*"; }

# --- install -------------------------------------------------------------------------------
if ! command -v slurmctld >/dev/null || ! command -v slurmd >/dev/null \
  || ! command -v sbatch >/dev/null || ! command -v munged >/dev/null; then
  say "installing slurm-wlm and munge from Debian"
  export DEBIAN_FRONTEND=noninteractive
  apt-get install -y -q slurm-wlm munge >/dev/null \
    || { apt-get update -q >/dev/null && apt-get install -y -q slurm-wlm munge >/dev/null; }
fi

tmp=$(mktemp -d /tmp/packlab-slurm.XXXXXX)
started_munge=no
cleanup() {
  status=$?
  for pid in "$tmp/slurmd.pid" "$tmp/slurmctld.pid"; do
    if [ -s "$pid" ]; then kill "$(cat "$pid")" 2>/dev/null || true; fi
  done
  if [ "$started_munge" = yes ] && [ -s /run/munge/munged.pid ]; then
    kill "$(cat /run/munge/munged.pid)" 2>/dev/null || true
  fi
  # give the daemons a moment to go, then say what is left in their logs if the test failed
  sleep 1
  if [ "$status" -ne 0 ]; then
    for log in "$tmp"/*.log "$tmp"/out/slurm/*.out; do
      [ -f "$log" ] && { echo "--- $log"; tail -20 "$log"; }
    done
  fi
  rm -rf "$tmp"
  exit "$status"
}
trap cleanup EXIT

# --- munge ---------------------------------------------------------------------------------
if ! (munge -n | unmunge) >/dev/null 2>&1; then
  mkdir -p /etc/munge /run/munge /var/log/munge /var/lib/munge
  if [ ! -s /etc/munge/munge.key ]; then
    if command -v mungekey >/dev/null; then mungekey --create --force >/dev/null
    else dd if=/dev/urandom of=/etc/munge/munge.key bs=1024 count=1 2>/dev/null; fi
  fi
  chown -R munge:munge /etc/munge /run/munge /var/log/munge /var/lib/munge
  chmod 0700 /etc/munge /var/log/munge /var/lib/munge
  chmod 0400 /etc/munge/munge.key
  munged --force
  started_munge=yes
  for _ in $(seq 50); do (munge -n | unmunge) >/dev/null 2>&1 && break; sleep 0.1; done
fi
(munge -n | unmunge) >/dev/null || { say "munge does not work"; exit 1; }

# --- a one-node cluster --------------------------------------------------------------------
node=$(hostname -s)
# the machine as slurmd sees it (CPUs, sockets, cores, memory)
hw=$(slurmd -C | head -1 | sed 's/^NodeName=[^ ]* //')
mkdir -p "$tmp/state" "$tmp/spool"
cat >"$tmp/slurm.conf" <<EOF
ClusterName=packlab-test
SlurmctldHost=$node
SlurmUser=root
AuthType=auth/munge
CryptoType=crypto/munge
MpiDefault=none
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SwitchType=switch/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
ReturnToService=2
StateSaveLocation=$tmp/state
SlurmdSpoolDir=$tmp/spool
SlurmctldPidFile=$tmp/slurmctld.pid
SlurmdPidFile=$tmp/slurmd.pid
SlurmctldLogFile=$tmp/slurmctld.log
SlurmdLogFile=$tmp/slurmd.log
NodeName=$node $hw State=UNKNOWN
PartitionName=test Nodes=$node Default=YES MaxTime=INFINITE State=UP
EOF
export SLURM_CONF="$tmp/slurm.conf"
slurmctld -i
slurmd
for _ in $(seq 100); do
  state=$(sinfo -h -n "$node" -o %T 2>/dev/null || true)
  [ "$state" = idle ] && break
  sleep 0.2
done
[ "$state" = idle ] || { say "node $node is '${state:-unknown}', not idle"; exit 1; }
say "node $node idle ($hw)"

# --- the sharded run and the one-machine run -----------------------------------------------
# the shared folder's name has a space: the scripts must quote it for Slurm and the shell
out="$tmp/shared out"
# the submitter's shell sets options of packlab's own through sbatch's input environment (which
# outranks #SBATCH lines): 100 tasks for 4 shards, another name; packlab keeps its own
SBATCH_ARRAY_INX=0-99 SBATCH_JOB_NAME=hijacked SBATCH_NO_REQUEUE=1 \
  "$packlab" slurm "$exp" --shards 4 --quick --out "$out" --submit >"$tmp/ids"
read -r array merge <"$tmp/ids"
say "submitted shards as job $array, merge as job $merge"
scontrol show job "$array" | grep -q "JobName=packlab-" || { say "the shards lost their name"; exit 1; }
# (a task past the fourth would also fail its --shard, and the merge would never run)
if scontrol show job "$array" 2>/dev/null | grep -Eo "ArrayTaskId=[0-9,_-]+" | grep -Eq "[4-9]|[0-9]{2}"; then
  say "SBATCH_ARRAY_INX in the environment re-set the array"; exit 1
fi
"$packlab" "$exp" --quick --out "$tmp/one" >/dev/null

job_state() { scontrol show job "$1" 2>/dev/null | sed -n 's/.*JobState=\([A-Z_]*\).*/\1/p' | head -1; }
for _ in $(seq 600); do
  s=$(job_state "$merge")
  case "$s" in
    COMPLETED) break ;;
    FAILED | CANCELLED | TIMEOUT | NODE_FAIL | OUT_OF_MEMORY | BOOT_FAIL | DEADLINE | PREEMPTED)
      say "merge job $merge ended $s"; exit 1 ;;
  esac
  if scontrol show job "$merge" 2>/dev/null | grep -q DependencyNeverSatisfied; then
    say "a shard failed, so the merge job $merge never ran"; exit 1
  fi
  sleep 0.5
done
[ "$(job_state "$merge")" = COMPLETED ] || { say "merge job $merge did not finish in 5 minutes"; exit 1; }

# every task of the array ran its own shard (a --quick run journals as journal-quick-I-of-N)
shards=$(ls "$out/.packlab" | grep -c '^journal-quick-[0-9]*-of-4$')
[ "$shards" = 4 ] || { say "expected 4 shard journals, found $shards"; exit 1; }

# the merged outputs are the one-machine outputs, byte for byte (and no more, no fewer)
(cd "$tmp/one" && find . -path ./.packlab -prune -o -type f -print | sort) >"$tmp/one.files"
(cd "$out" && find . -path ./.packlab -prune -o -path ./slurm -prune -o -type f -print | sort) >"$tmp/out.files"
diff "$tmp/one.files" "$tmp/out.files" || { say "the merged run wrote other files"; exit 1; }
n=0
while read -r f; do
  cmp "$tmp/one/$f" "$out/$f" || { say "$f differs"; exit 1; }
  n=$((n + 1))
done <"$tmp/one.files"
# Slurm read the quoted log paths whole: each task's log is where the script says
for log in shard-0.out shard-3.out merge.out; do
  [ -s "$out/slurm/$log" ] || { say "no log $out/slurm/$log: Slurm misread the quoted --output"; exit 1; }
done
say "4 shards on Slurm merged into $n files identical to a one-machine run of $exp"
