#!/usr/bin/env bash
# What limit searches cost: runs each file given (default: the thresholds_uniform_* files) from
# scratch, then prints packlab's own estimate, the measured wall and CPU time of the file, and
# per search its probes, runs, slots and interval (from thresholds.csv).
# Usage: scripts/limit-cost.sh [experiments/some.toml ...]; PACKLAB_BIN=path runs that binary
# instead of building target/release/packlab. Outputs go to a temporary folder, or under
# PACKLAB_KEEP=<folder> if set (one subfolder per file).
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/packlab-bin.sh
. scripts/packlab-bin.sh
files=("$@")
[ ${#files[@]} -gt 0 ] || files=(experiments/thresholds_uniform_small.toml experiments/thresholds_uniform_large.toml)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for f in "${files[@]}"; do
  name=$(basename "$f" .toml)
  out="${PACKLAB_KEEP:-$tmp}/$name"
  # the estimate is the first line packlab prints on stderr (shown for runs over a minute)
  /usr/bin/time -f "%e %U %S" -o "$tmp/time" "$bin" "$f" --out "$out" --fresh \
    2> "$tmp/err" > /dev/null || true
  read -r wall user sys < "$tmp/time"
  echo "$name: $(grep -m1 'of computing' "$tmp/err" | sed 's/^packlab: [^:]*: //')"
  awk -v w="$wall" -v u="$user" -v s="$sys" 'BEGIN {
    printf "  measured: %.0f s wall, %.0f s CPU\n", w, u + s }'
  awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
    { printf "  %-10s %3d probes %4d runs %6.2fe9 slots  [%s, %s] of rho*\n", $c["policy"],
        $c["probes_run"], $c["runs"], $c["slots"] / 1e9, $c["fraction_low"], $c["fraction_high"]
      total += $c["slots"] }
    END { printf "  all searches: %.2fe9 slots\n", total / 1e9 }' "$out/thresholds.csv"
done
