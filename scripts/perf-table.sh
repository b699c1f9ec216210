#!/usr/bin/env bash
# Measures what a job costs in the slot loop and writes the table of docs/performance.md
# ("What a job costs"), between its two marker comments: the policies bench
# (`cargo bench --bench policies`, release profile) at load 0.7 on 5, 100, 1,000 and 10⁴
# servers, and near the limit (loads 0.95 and 1.0) on 100, each cell the best of
# PACKLAB_BENCH_REPS runs (default 3) of PACKLAB_BENCH_JOBS arrivals (default 3·10⁶).
# Usage: scripts/perf-table.sh            (measure and write the page)
#        scripts/perf-table.sh --print    (measure and print the table only)
# Run it on a quiet machine: anything else running shows in the numbers.
set -euo pipefail
cd "$(dirname "$0")/.."
print=0
[ "${1:-}" = "--print" ] && print=1
export PACKLAB_BENCH_JOBS="${PACKLAB_BENCH_JOBS:-3000000}"
export PACKLAB_BENCH_REPS="${PACKLAB_BENCH_REPS:-3}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cargo bench --bench policies --no-run --quiet 2>/dev/null
bench() { cargo bench --quiet --bench policies 2>/dev/null; }

# the bench's rows: L, policy, best ns per job (the policy's label may hold a space)
rows() { awk 'NR > 2 { n = NF; label = $2; for (i = 3; i <= n - 6; i++) label = label " " $i; print $1 "\t" label "\t" $(n - 5) }'; }

PACKLAB_BENCH_POLICIES=floor,bf-js,fifo-ff,vqs:4,vqs-bf:4,max-weight,first-fit,smash:4,backfilling,server-filling \
  bench | rows >"$tmp/moderate"
for load in 0.95 1.0; do
  PACKLAB_BENCH_LOAD=$load PACKLAB_BENCH_SERVERS=100 PACKLAB_BENCH_POLICIES=floor,bf-js,vqs-bf:4 \
    bench | rows | sed "s/^/$load\t/" >>"$tmp/near"
done

cell() { awk -F'\t' -v l="$2" -v p="$3" '$1 == l && $2 == p { printf "%.0f", $3 }' "$1"; }
near() { awk -F'\t' -v load="$1" -v p="$2" '$1 == load && $3 == p { printf "%.0f", $4 }' "$tmp/near"; }
commit=$(git rev-parse --short HEAD)
cpu=$(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //')
{
  echo "Measured on $(date -u +'%-d %B %Y') with build $commit: $(nproc) cores ($cpu), rustc"
  jobs=$(echo "$PACKLAB_BENCH_JOBS" | sed ':a;s/\B[0-9]\{3\}\>/,&/;ta')
  echo "$(rustc --version | awk '{print $2}'), release profile; $jobs arrivals per run, best of $PACKLAB_BENCH_REPS;"
  echo "nanoseconds per arriving job."
  echo
  echo "| servers | floor | BF-J/S | FIFO-FF | VQS (J = 4) | VQS-BF (J = 4) | MaxWeight (2 sizes) | First-Fit | SMASH (w = 4) | backfilling |"
  echo "|---|---|---|---|---|---|---|---|---|---|"
  for l in 5 100 1000 10000; do
    label=$l; [ "$l" = 1000 ] && label=1,000; [ "$l" = 10000 ] && label=10⁴
    echo "| $label | $(cell "$tmp/moderate" "$l" floor) | $(cell "$tmp/moderate" "$l" bf-js) | $(cell "$tmp/moderate" "$l" fifo-ff) | $(cell "$tmp/moderate" "$l" vqs:4) | $(cell "$tmp/moderate" "$l" vqs-bf:4) | $(cell "$tmp/moderate" "$l" "max-weight (2 sizes)") | $(cell "$tmp/moderate" "$l" first-fit) | $(cell "$tmp/moderate" "$l" smash:4) | $(cell "$tmp/moderate" "$l" backfilling) |"
  done
  echo
  echo "ServerFilling (one machine of 8 cores, jobs of 1, 2, 4 or 8 cores): $(cell "$tmp/moderate" 5 "server-filling (1 machine)") ns per job."
  echo
  echo "Near the limit, 100 servers:"
  echo
  echo "| load | floor | BF-J/S | VQS-BF (J = 4) |"
  echo "|---|---|---|---|"
  for load in 0.95 1.0; do
    echo "| $load | $(near "$load" floor) | $(near "$load" bf-js) | $(near "$load" vqs-bf:4) |"
  done
} >"$tmp/table"
if [ "$print" = 1 ]; then cat "$tmp/table"; exit 0; fi
page=docs/performance.md
awk -v table="$tmp/table" '
  /<!-- cost table: scripts\/perf-table.sh writes what follows -->/ { print; while ((getline line < table) > 0) print line; skip = 1; next }
  /<!-- end of cost table -->/ { skip = 0 }
  !skip { print }' "$page" >"$tmp/page"
grep -q 'end of cost table' "$tmp/page" || { echo "perf-table: $page has no cost-table markers" >&2; exit 1; }
mv "$tmp/page" "$page"
echo "perf-table: wrote the cost table of $page"
