#!/usr/bin/env bash
# The calibration table of proofs/verdict_calibration.md, from the committed outputs of the
# calibration files (figures/verdict_calibration*/summary.csv; regenerate them with
# scripts/regen-figures.sh or `cargo run --release -- experiments/verdict_calibration*.toml`).
# Each file sweeps -10, -5, -2, -1, 0, +1, +2, +5, +10 % of its system's known limit, in order.
# "correct": stable below the limit, not stable at it, unstable above; "wrong": unstable below,
# stable at or above. Rates with Wilson 95 % score intervals (Wilson, JASA 22, 1927).
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/calibration-systems.sh
. scripts/calibration-systems.sh
echo "| system | offset from the limit | runs | stable | unstable | inconclusive | correct [95 % interval] | wrong [95 % interval] |"
echo "|---|---|---|---|---|---|---|---|"
for f in "${calibration_files[@]}"; do
  sys=$(calibration_system "$f")
  awk -F, -v sys="$sys" '
    function wilson(x, n,    p, z, d, c, h) {
      z = 1.96; p = x / n; d = 1 + z * z / n
      c = (p + z * z / (2 * n)) / d
      h = z / d * sqrt(p * (1 - p) / n + z * z / (4 * n * n))
      return sprintf("%.1f %% [%.1f, %.1f]", 100 * p, 100 * (c - h < 0 ? 0 : c - h), 100 * (c + h > 1 ? 1 : c + h))
    }
    NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
    {
      split("-10 -5 -2 -1 0 +1 +2 +5 +10", off, " ")
      k = NR - 1; o = off[k]
      s = $col["stable_runs"]; u = $col["unstable_runs"]; n = $col["inconclusive_runs"]
      runs = s + u + n
      w = (o ~ /^-/) ? u : s
      r = (o ~ /^-/) ? s : (o == "0" ? u + n : u)
      printf "| %s | %s %% | %d | %.1f %% | %.1f %% | %.1f %% | %s | %s |\n", sys, o, runs,
        100 * s / runs, 100 * u / runs, 100 * n / runs, wilson(r, runs), wilson(w, runs)
    }' "figures/$f/summary.csv"
done
