#!/usr/bin/env bash
# Measures how long packlab takes on this machine and writes docs/timings.md: the one place the
# documentation's stated times come from. Every experiment in experiments/ is run afresh by the
# release build, one after another on all cores, timed (wall and CPU), beside the estimate
# packlab prints before a run expected to take over ten seconds.
# Usage: scripts/timings.sh [--builds] [experiments/some.toml ...]
#        scripts/timings.sh --update experiments/some.toml ...
#   --builds  also time the README's two first commands from nothing: the release build and
#             `cargo test` (each in an empty target directory, so dependencies included).
#   --update  time only the files given and replace (or add) their rows in docs/timings.md,
#             keeping the others and the header; the total is summed again.
# PACKLAB_BIN=path times that binary instead of building target/release/packlab.
# Run it on a quiet machine: anything else running shows in the wall times.
set -euo pipefail
cd "$(dirname "$0")/.."
builds=0
update=0
if [ "${1:-}" = "--builds" ]; then builds=1; shift; fi
if [ "${1:-}" = "--update" ]; then update=1; shift; fi
files=("$@")
[ ${#files[@]} -gt 0 ] || files=(experiments/*.toml)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
TIMEFORMAT='%R %U %S'

# seconds as the docs write them: "0.8 s", "12 s", "3 min 40 s"
words() {
  awk -v s="$1" 'BEGIN {
    if (s < 10) printf "%.1f s", s;
    else if (s < 120) printf "%.0f s", s;
    else printf "%d min %02d s", int(s / 60), int(s + 0.5) % 60 }'
}

build_rows=""
if [ "$builds" = 1 ]; then
  { time CARGO_TARGET_DIR="$tmp/release" cargo build --release --quiet >/dev/null 2>&1; } 2>"$tmp/t"
  read -r real user sys <"$tmp/t"
  build_rows+="| \`cargo build --release\` (first \`cargo run --release\`), empty target directory | $(words "$real") | $(words "$(echo "$user + $sys" | bc)") |"$'\n'
  { time CARGO_TARGET_DIR="$tmp/test" cargo test --no-run --quiet >/dev/null 2>&1; } 2>"$tmp/t"
  read -r real user sys <"$tmp/t"
  build_rows+="| \`cargo test\`: building the tests, empty target directory | $(words "$real") | $(words "$(echo "$user + $sys" | bc)") |"$'\n'
  { time CARGO_TARGET_DIR="$tmp/test" cargo test --quiet >"$tmp/test.log" 2>&1; } 2>"$tmp/t"
  read -r real user sys <"$tmp/t"
  build_rows+="| \`cargo test\`: running them, once built | $(words "$real") | $(words "$(echo "$user + $sys" | bc)") |"$'\n'
  rm -rf "$tmp/release" "$tmp/test"
fi

# shellcheck source=scripts/packlab-bin.sh
. scripts/packlab-bin.sh
rows=""
total=0
# each row says when and with which build it was measured
measured="$(date -u +%Y-%m-%d) $(git describe --always)"
for f in "${files[@]}"; do
  name=$(basename "$f" .toml)
  status=0
  { time PACKLAB_PROGRESS_SECONDS=100000 "$bin" "$f" --fresh --out "$tmp/$name" \
      >/dev/null 2>"$tmp/$name.err" || status=$?; } 2>"$tmp/t"
  if [ "$status" -ge 2 ]; then cat "$tmp/$name.err" >&2; echo "failed: $f" >&2; exit "$status"; fi
  read -r real user sys <"$tmp/t"
  estimate=$(sed -n 's/.*: about \(.*\) of CPU time; roughly \(.*\) of wall time on.*/\2 (\1 of CPU)/p' \
    "$tmp/$name.err" | head -1)
  [ -n "$estimate" ] || estimate="under 10 s (not printed)"
  rows+="| \`$name\` | $(words "$real") | $(words "$(echo "$user + $sys" | bc)") | $estimate | $measured |"$'\n'
  total=$(echo "$total + $real" | bc)
  rm -rf "${tmp:?}/$name"
  echo "$name: $(words "$real")" >&2
done

if [ "$update" = 1 ]; then
  # the table's other rows stay; the new ones replace theirs; the total is summed again
  old=docs/timings.md
  names=$(printf '%s' "$rows" | sed -n 's/^| `\([^`]*\)`.*/\1/p')
  # the rows of the experiments' table (after its heading), not the build table's
  kept=$(sed -n '/^## Every experiment/,$p' "$old" | grep '^| `' \
    | grep -v -F -f <(printf '| `%s` |\n' $names) || true)
  table=$(printf '%s\n%s' "$kept" "${rows%$'\n'}" | grep . | LC_ALL=C sort -t'`' -k2,2)
  seconds() {  # "3 min 05 s", "12 s", "0.8 s" → seconds
    awk '{ if ($2 == "min") print $1 * 60 + $3; else print $1 }' <<<"$1"
  }
  total=0
  while IFS='|' read -r _ _ wall _; do
    total=$(echo "$total + $(seconds "$(echo "$wall" | xargs)")" | bc)
  done < <(printf '%s\n' "$table" | grep '^| `')
  awk -v total="$(words "$total")" -v table="$table" '
    /^## Every experiment/ { inside = 1 }
    inside && /^\| `/ { if (!done) { print table; done = 1 } next }
    { sub(/In all: .* of wall time\./, "In all: " total " of wall time."); print }
  ' "$old" >"$tmp/timings.md"
  mv "$tmp/timings.md" "$old"
  echo "updated docs/timings.md" >&2
  exit 0
fi

cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)
mem=$(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo)
{
  echo "# How long things take"
  echo
  echo "Every time the documentation states is measured here and written by"
  echo "\`scripts/timings.sh\`; other pages link to this table rather than repeat it. Times"
  echo "depend on the machine: on a machine of the same kind, runs measured on another day took"
  echo "from the same to twice as long. Run the script on a quiet machine to measure your own."
  echo
  echo "- Machine: $(nproc) cores ($cpu), $mem of memory; rustc $(rustc --version | cut -d' ' -f2)."
  echo "- Command: \`scripts/timings.sh\` (every file) or \`scripts/timings.sh --update FILE…\` (those"
  echo "  files' rows); each experiment runs with \`--fresh\` (no journal to resume) on all cores, one"
  echo "  after another; wall time is what a user waits, CPU time the sum over threads."
  echo "- Each row says when, and with which build, it was measured."
  echo
  if [ -n "$build_rows" ]; then
    echo "## Building and testing"
    echo
    echo "| command | wall | CPU |"
    echo "|---|---|---|"
    printf '%s' "$build_rows"
    echo
  fi
  echo "## Every experiment, full length"
  echo
  echo "The estimate is the one packlab prints before a run it expects to take over ten seconds"
  echo "(\`experiments/README.md\`, \"Time estimates\"). In all: $(words "$total") of wall time."
  echo "\`--quick\` runs each in a few seconds."
  echo
  echo "| file | wall | CPU | packlab's estimate before the run | measured |"
  echo "|---|---|---|---|---|"
  printf '%s' "$rows"
} >docs/timings.md
echo "wrote docs/timings.md" >&2
