#!/usr/bin/env bash
# The calibration table of proofs/verdict_calibration.md, from the committed outputs of the
# three calibration files (figures/verdict_calibration*/summary.csv; regenerate them with
# scripts/regen-figures.sh or `cargo run --release -- experiments/verdict_calibration*.toml`).
# Each file sweeps -10, -5, -2, -1, 0, +1, +2, +5, +10 % of its system's known limit, in order.
set -euo pipefail
cd "$(dirname "$0")/.."
echo "| system | offset from the limit | runs | stable | unstable | inconclusive | wrong |"
echo "|---|---|---|---|---|---|---|"
for f in verdict_calibration verdict_calibration_vqs verdict_calibration_fifo; do
  case $f in
    verdict_calibration) sys="unit jobs, M/Geo/3 (limit ρ = 1)";;
    verdict_calibration_vqs) sys="VQS, one server, 0.45/0.55 (limit λ = 4μ/3)";;
    verdict_calibration_fifo) sys="FIFO-FF, two servers, 0.6/0.3 (limit λ = 0.340806)";;
  esac
  awk -F, -v sys="$sys" '
    NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
    {
      split("-10 -5 -2 -1 0 +1 +2 +5 +10", off, " ")
      k = NR - 1; o = off[k]
      s = $col["stable_runs"]; u = $col["unstable_runs"]; n = $col["inconclusive_runs"]
      runs = s + u + n
      # below the limit "unstable" is wrong; at or above it "stable" is
      w = (o ~ /^-/) ? u : s
      printf "| %s | %s %% | %d | %.1f %% | %.1f %% | %.1f %% | %.1f %% |\n", sys, o, runs,
        100 * s / runs, 100 * u / runs, 100 * n / runs, 100 * w / runs
    }' "figures/$f/summary.csv"
done
