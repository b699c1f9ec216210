#!/usr/bin/env bash
# The probe table of proofs/verdict_calibration.md, from the committed outputs of the
# calibration files (figures/verdict_calibration*/probe_groups.csv: each point's 200 runs in 40
# groups of 5, each decided as a limit search decides a probe of one round). Each file sweeps
# -10, -5, -2, -1, 0, +1, +2, +5, +10 % of its system's known limit, in order. A group is
# "wrong" if decided unstable below the limit or stable at or above it; "pooled wrong" counts
# only the pooled test's decisions. Rates with Wilson 95 % score intervals (Wilson, JASA 22,
# 1927); the last rows pool the five systems.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/calibration-systems.sh
. scripts/calibration-systems.sh
echo "| system | offset from the limit | groups | stable (majority + pooled) | unstable (majority + pooled) | undecided | wrong [95 % interval] | pooled wrong [95 % interval] |"
echo "|---|---|---|---|---|---|---|---|"
for f in "${calibration_files[@]}"; do
  sys=$(calibration_system "$f")
  awk -F, -v OFS=';' -v sys="$sys" 'NR > 1 { $1 = $1; print sys, NR - 1, $0 }' "figures/$f/probe_groups.csv"
done | awk -F';' '
  function wilson(x, n,    p, z, d, c, h) {
    z = 1.96; p = x / n; d = 1 + z * z / n
    c = (p + z * z / (2 * n)) / d
    h = z / d * sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return sprintf("%.1f %% [%.1f, %.1f]", 100 * p, 100 * (c - h < 0 ? 0 : c - h), 100 * (c + h > 1 ? 1 : c + h))
  }
  BEGIN { split("-10 -5 -2 -1 0 +1 +2 +5 +10", off, " ") }
  {
    # sys, k, policy, load, arrival_rate, group_size, groups, ms, mu, ps, pu, undecided
    o = off[$2]; g = $7; ms = $8; mu = $9; ps = $10; pu = $11; un = $12
    w = (o ~ /^-/) ? mu + pu : ms + ps
    pw = (o ~ /^-/) ? pu : ps
    printf "| %s | %s %% | %d | %d + %d | %d + %d | %d | %s | %s |\n", $1, o, g, ms, ps, mu, pu, un,
      wilson(w, g), wilson(pw, g)
    G[o] += g; W[o] += w; PW[o] += pw; MS[o] += ms; PS[o] += ps; MU[o] += mu; PU[o] += pu; UN[o] += un
  }
  END {
    for (k = 1; k <= 9; k++) {
      o = off[k]
      printf "| all five | %s %% | %d | %d + %d | %d + %d | %d | %s | %s |\n", o, G[o], MS[o], PS[o],
        MU[o], PU[o], UN[o], wilson(W[o], G[o]), wilson(PW[o], G[o])
    }
  }'
