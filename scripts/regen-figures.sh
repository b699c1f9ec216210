#!/usr/bin/env bash
# Re-runs every experiment in experiments/ and experiments/tutorial/ (full length) and copies its figures, summary and
# report into figures/<name>/, which is committed so readers see current results.
# Usage: scripts/regen-figures.sh [experiments/some.toml ...]
# PACKLAB_BIN=path runs that binary instead of building target/release/packlab (so that the
# tree can be rebuilt while a long regeneration runs).
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/packlab-bin.sh
. scripts/packlab-bin.sh
files=("$@")
[ ${#files[@]} -gt 0 ] || files=(experiments/*.toml experiments/tutorial/*.toml)
for f in "${files[@]}"; do
  name=$(sed -n 's/^name *= *"\(.*\)".*/\1/p' "$f" | head -1)
  out="results/$name"
  rm -rf "$out"
  status=0
  "$bin" "$f" --out "$out" --quiet || status=$?
  if [ "$status" -ge 2 ]; then echo "failed: $f" >&2; exit "$status"; fi
  mkdir -p "figures/$name"
  rm -f "figures/$name"/*
  cp "$out"/*.png "$out"/*.svg "$out"/summary.csv "$out"/report.md "figures/$name/" 2>/dev/null || true
  [ -f "$out/claims.csv" ] && cp "$out/claims.csv" "figures/$name/"
  [ -f "$out/study.csv" ] && cp "$out/study.csv" "figures/$name/"
  [ -f "$out/thresholds.csv" ] && cp "$out/thresholds.csv" "figures/$name/"
  for t in region_map.csv probe_groups.csv numa.csv savings.csv constraints.csv constraint_pending.csv constraint_delay.csv synthesis_validation.csv waits.csv waits_by_size.csv; do
    [ -f "$out/$t" ] && cp "$out/$t" "figures/$name/"
  done
  echo "figures/$name: claims exit status $status"
done
