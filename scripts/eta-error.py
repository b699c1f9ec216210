#!/usr/bin/env python3
"""How far the progress lines' "about … left" is from the time actually left.

Runs an experiment afresh with a progress line every PACKLAB_PROGRESS_SECONDS (default here 2),
stamps each line as it arrives, and compares the time left it states with the time the run
really took after it. The terminal's bar shows the same estimate (the same function computes
both), so this measures both surfaces.

Usage: scripts/eta-error.py experiments/FILE.toml [OUT_DIR]
       PACKLAB_BIN=path times that binary (default target/release/packlab).
Run it on a quiet machine.
"""
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

if len(sys.argv) < 2:
    sys.exit(__doc__)
root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
binary = os.environ.get("PACKLAB_BIN", os.path.join(root, "target/release/packlab"))
out = sys.argv[2] if len(sys.argv) > 2 else tempfile.mkdtemp(prefix="packlab-eta-")
env = dict(os.environ, PACKLAB_PROGRESS_SECONDS=os.environ.get("PACKLAB_PROGRESS_SECONDS", "2"))
t0 = time.monotonic()
p = subprocess.Popen([binary, sys.argv[1], "--fresh", "--out", out], stderr=subprocess.PIPE,
                     stdout=subprocess.DEVNULL, env=env, text=True)
lines = [(time.monotonic() - t0, line.rstrip()) for line in p.stderr]
p.wait()
total = time.monotonic() - t0


def stated(line):
    """The seconds a progress line says are left, or None."""
    if "finishing the units" in line:
        return 0
    m = re.search(r"about (?:(\d+):)?(?:(\d+):)?(\d+)(?: s)? left", line)
    if not m:
        return None
    parts = [int(g) for g in m.groups() if g is not None]
    seconds = 0
    for x in parts:
        seconds = seconds * 60 + x
    return seconds


rows = [(t, s, total - t) for t, line in lines if (s := stated(line)) is not None]
if not rows:
    sys.exit("no progress line stated a time left (a run under one progress interval?)")
print(f"{os.path.basename(sys.argv[1])}: {total:.1f} s, {len(rows)} progress lines")
print("| elapsed | stated left | actually left |")
print("|---|---|---|")
for t, s, a in rows[:: max(1, len(rows) // 12)]:
    print(f"| {t:.0f} s | {s} s | {a:.0f} s |")
errors = [abs(s - a) for _, s, a in rows]
late = [abs(s - a) for t, s, a in rows if t > total / 2]
print(f"error: median {statistics.median(errors):.1f} s, largest {max(errors):.1f} s "
      f"({max(errors) / total:.0%} of the run); in its second half median "
      f"{statistics.median(late) if late else 0:.1f} s, largest {max(late) if late else 0:.1f} s")
