#!/usr/bin/env bash
# The verdict's error rates on the chain of looks a limit search's run takes when its file's
# chain is shorter than the calibrated five (src/experiment/queueing/run/limit.rs,
# `look_earlier`): a first look at half of `run.slots`'s horizon after warm-up, so that the
# warm-up is 2/9 of the first measured horizon rather than 1/9, and five looks in all.
#
# Each of the five calibration files is rewritten that way (warm-up kept; first horizon
# warmup + (slots - warmup)/2; max_slots warmup + 16 (slots - warmup)/2), at its five points
# from -2 % to +2 % of its limit, 200 runs each, and run; the table gives the runs' verdicts
# and, in groups of five, the probes' (majority, then the pooled test).
#
# Usage: scripts/search-chain-calibration.sh [OUT_DIR]   (about 6 minutes on two cores)
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/packlab-bin.sh
source scripts/calibration-systems.sh
out=${1:-$(mktemp -d)}
mkdir -p "$out"

for f in "${calibration_files[@]}"; do
  src="experiments/$f.toml"
  slots=$(awk -F'=' '/^slots *=/ { gsub(/[ _]/, "", $2); print $2; exit }' "$src")
  warmup=$(awk -F'=' '/^warmup *=/ { gsub(/[ _]/, "", $2); print $2; exit }' "$src")
  warmup=${warmup:-$((slots / 10))}
  half=$(((slots - warmup) / 2))
  awk -v name="${f}_search_chain" -v run="slots = $((warmup + half))
warmup = $warmup
max_slots = $((warmup + 16 * half))" '
    /^\[\[claim\]\]/ { exit }
    /^name *=/ && !named { print "name = \"" name "\""; named = 1; next }
    /^(slots|warmup|max_slots) *=/ { next }
    /^\[run\]/ { print; print run; next }
    /^(load|arrival_rate) *= *\[/ {
      key = $0; sub(/ *=.*/, "", key)
      list = $0; sub(/^[^[]*\[/, "", list); sub(/\].*/, "", list)
      n = split(list, v, /, */)
      printf "%s = [%s, %s, %s, %s, %s]\n", key, v[3], v[4], v[5], v[6], v[7]
      next
    }
    { print }' "$src" > "$out/$f.toml"
  "$bin" "$out/$f.toml" --out "$out/$f" --fresh --quiet
done

echo "| system | offset from the limit | runs stable / unstable / inconclusive | probes of 5: stable (majority + pooled) / unstable (majority + pooled) / undecided |"
echo "|---|---|---|---|"
for f in "${calibration_files[@]}"; do
  sys=$(calibration_system "$f")
  # each point's runs (summary.csv) beside its groups (probe_groups.csv), columns by name
  paste -d, <(awk -F, -v OFS=, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
      { print $c["stable_runs"], $c["unstable_runs"], $c["inconclusive_runs"] }' "$out/$f/summary.csv") \
    <(awk -F, -v OFS=, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
      { print $c["majority_stable"], $c["majority_unstable"], $c["pooled_stable"], $c["pooled_unstable"],
          $c["undecided"] }' "$out/$f/probe_groups.csv") |
    awk -F, -v sys="$sys" '{
      split("-2 -1 0 +1 +2", off, " ")
      printf "| %s | %s %% | %d / %d / %d | %d (%d + %d) / %d (%d + %d) / %d |\n", sys, off[NR],
        $1, $2, $3, $4 + $6, $4, $6, $5 + $7, $5, $7, $8
    }'
done
