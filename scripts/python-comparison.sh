#!/usr/bin/env bash
# packlab against a plain-Python BF-J/S (benches/python/bf_js.py), whole processes, paired runs.
# The case: L = 5 servers, sizes Unif[0.2, 0.6], geometric service with mean 20 slots, Poisson
# arrivals at load 0.7, one run of SLOTS slots (default 10^7), no warm-up. packlab runs it as an
# experiment file (reading it, simulating, judging, writing the report and a figure); Python
# only simulates. Prints each pair and the ratio of the medians of ns per job.
# Usage: scripts/python-comparison.sh [SLOTS] [PAIRS]
set -euo pipefail
cd "$(dirname "$0")/.."
slots=${1:-10000000}
pairs=${2:-3}
cargo build --release --quiet
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cat > "$dir/case.toml" <<TOML
name = "python_comparison"
description = "BF-J/S on 5 servers, sizes Unif[0.2, 0.6], geometric service with mean 20 slots."
seed = 1
[cluster]
servers = 5
[workload]
sizes = { dist = "uniform", low = 0.2, high = 0.6 }
service = { dist = "geometric", mean = 20.0 }
[run]
slots = $slots
warmup = 0
replications = 1
[sweep]
load = [0.7]
[[policy]]
name = "bf-js"
[[plot]]
kind = "queue-vs-time"
load = 0.7
TOML
now() { date +%s.%N; }
ratios=()
for k in $(seq "$pairs"); do
  t0=$(now)
  ./target/release/packlab "$dir/case.toml" --out "$dir/out" --quiet --fresh --threads 1 > /dev/null 2>&1
  t1=$(now)
  read -r pjobs pq _ < <(python3 benches/python/bf_js.py 5 0.2 0.6 20 0.7 "$slots" "$k")
  t2=$(now)
  rust_ns=$(python3 -c "print(($t1-$t0)*1e9/$pjobs)")
  py_ns=$(python3 -c "print(($t2-$t1)*1e9/$pjobs)")
  ratio=$(python3 -c "print(($t2-$t1)/($t1-$t0))")
  printf 'pair %d (ns per job of the Python run; same rate and slots): packlab %.1f ns/job (%.2f s), python %.0f ns/job (%.2f s, %d jobs, mean queue %.3f), ratio %.1f\n' \
    "$k" "$rust_ns" "$(python3 -c "print($t1-$t0)")" "$py_ns" "$(python3 -c "print($t2-$t1)")" "$pjobs" "$pq" "$ratio"
  ratios+=("$ratio")
done
printf '%s\n' "${ratios[@]}" | sort -g | awk '{a[NR]=$1} END {printf "median ratio %.1f over %d pairs\n", a[int((NR+1)/2)], NR}'
grep '^bf-js' "$dir/out/summary.csv" | awk -F, '{printf "packlab: mean queue %s over the same setting\n", $4}'
