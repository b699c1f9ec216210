"""CPU time per job of FIFO-FF and BF-J/S built in and as Python classes (docs/python.md,
"What it costs"): one run each of 10 servers at load 0.7, sizes 0.1, 0.3, 0.5, 0.7 equally
likely, geometric service of mean 20 slots.

    python python/bench.py
"""

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent / "tests"))

import packlab  # noqa: E402
from fit_policies import PyBestFitJS, PyFifoFirstFit  # noqa: E402

packlab.register_policy("py-fifo-ff", PyFifoFirstFit)
packlab.register_policy("py-bf-js", PyBestFitJS)
SIZES = [(0.1, 0.25), (0.3, 0.25), (0.5, 0.25), (0.7, 0.25)]
for name in ["fifo-ff", "py-fifo-ff", "bf-js", "py-bf-js"]:
    slots = 200_000 if name.startswith("py-") else 2_000_000
    start = time.process_time()
    r = packlab.simulate(name, SIZES, 20.0, 10, 0.7, slots, seed=1)
    cpu = time.process_time() - start
    print(f"{name:<11} {cpu / r['arrived'] * 1e9:>7.0f} ns per job ({r['arrived']} jobs)")
