"""packlab from Python: run an experiment and read its tables as data frames, compute
stability regions, and write a scheduling policy as a Python class.

The engine is packlab's own (a Rust extension): the same validation, journal, resume and
outputs, byte for byte, as ``packlab EXP.toml`` on the command line. See ``docs/python.md``.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any, Dict, Iterable, List, Optional, Union

from . import _native
from ._native import (
    RESULTS_VERSION,
    UNIT,
    VERSION,
    Cluster,
    Job,
    PacklabError,
    registered_policies,
    rho_dyadic,
    rho_kred,
    rho_star,
    rho_star_bracket,
    simulate,
    to_toml,
)

__all__ = [
    "Cluster",
    "Job",
    "PacklabError",
    "RESULTS_VERSION",
    "Result",
    "UNIT",
    "VERSION",
    "register_policy",
    "registered_policies",
    "rho_dyadic",
    "rho_kred",
    "rho_star",
    "rho_star_bracket",
    "run",
    "simulate",
    "to_toml",
]

__version__ = VERSION


class Result:
    """What a run wrote: its folder, the line the command line prints, the claims' verdicts,
    and every table of the folder as a pandas data frame (``result.summary``,
    ``result.runs``, ``result.waits``, ``result.waits_by_size``, ``result.thresholds``,
    ``result.region_map``, …; ``result.tables`` lists them). Columns and their meaning are those
    of ``experiments/README.md``, "Outputs"."""

    def __init__(self, out: Path, native: Dict[str, Any]):
        self.out = out
        self.done: str = native["done"]
        self.quick: bool = native["quick"]
        self.files: List[Path] = [Path(f) for f in native["files"]]
        self.verdicts: List[Dict[str, Any]] = list(native["claims"])
        self._frames: Dict[str, Any] = {}

    @property
    def tables(self) -> List[str]:
        """The names of the folder's tables (its CSV files without ``.csv``), sorted."""
        return sorted(p.stem for p in self.out.glob("*.csv"))

    def table(self, name: str):
        """The table ``name`` (``summary``, ``runs``, …) as a pandas data frame."""
        if name not in self._frames:
            path = self.out / f"{name}.csv"
            if not path.is_file():
                raise KeyError(
                    f"{self.out}: no table {name!r} (this run wrote {', '.join(self.tables) or 'none'})"
                )
            import pandas as pd

            self._frames[name] = pd.read_csv(path)
        return self._frames[name]

    def __getattr__(self, name: str):
        if name.startswith("_"):
            raise AttributeError(name)
        try:
            return self.table(name)
        except KeyError as e:
            raise AttributeError(str(e)) from None

    @property
    def claims(self):
        """The claims as a data frame: ``claims.csv`` when the run wrote it, else the
        verdicts (``claim``, ``status``, ``holds``, ``expected``, ``observed``, ``evidence``)."""
        if (self.out / "claims.csv").is_file():
            return self.table("claims")
        import pandas as pd

        return pd.DataFrame(self.verdicts)

    @property
    def figures(self) -> List[Path]:
        """The figures written (PNG and SVG), in the order written."""
        return [f for f in self.files if f.suffix in (".png", ".svg")]

    @property
    def report(self) -> str:
        """``report.md``'s text."""
        return (self.out / "report.md").read_text(encoding="utf-8")

    @property
    def held(self) -> bool:
        """No claim failed (claims not checked under ``quick`` do not fail)."""
        return all(v["status"] != "FAILS" for v in self.verdicts)

    def __repr__(self) -> str:
        return f"Result(out={str(self.out)!r}, tables={self.tables})"


def _source(experiment: Union[str, os.PathLike, Dict[str, Any]]):
    """(text or path, is_path)."""
    if isinstance(experiment, dict):
        return to_toml(experiment), False
    if isinstance(experiment, os.PathLike):
        return os.fspath(experiment), True
    if isinstance(experiment, str):
        if "\n" in experiment or "=" in experiment:
            return experiment, False
        return experiment, True
    raise TypeError(
        "experiment: expected a path, TOML text or a dict with an experiment file's keys, "
        f"not {type(experiment).__name__}"
    )


def run(
    experiment: Union[str, os.PathLike, Dict[str, Any]],
    out: Union[str, os.PathLike, None] = None,
    threads: Optional[int] = None,
    quick: bool = False,
    fresh: bool = False,
    progress: bool = True,
) -> Result:
    """Runs an experiment: a path to a TOML file, TOML text, or a dict with the same keys.

    ``out`` is the output folder; there the run keeps its journal and resumes it as the
    command line does (``fresh=True`` starts over). Without it the outputs go to a new
    temporary folder (``result.out``). ``threads`` worker threads (all cores by default;
    results do not depend on it); ``quick`` is ``--quick``. Progress lines go to
    ``sys.stderr`` every few seconds (``progress=False``: none). A value packlab refuses raises
    ``PacklabError`` with the command line's message and its ``file``, ``key``, ``expected`` and
    ``got``; Ctrl-C stops the run, keeps its journal and raises ``KeyboardInterrupt``.
    """
    source, is_path = _source(experiment)
    if out is None:
        folder = Path(tempfile.mkdtemp(prefix="packlab-"))
    else:
        folder = Path(out)
    native = _native.run_experiment(
        source, is_path, os.fspath(folder), threads, quick, fresh, progress
    )
    return Result(folder, native)


def register_policy(
    name: str,
    cls: Optional[type] = None,
    *,
    keys: Iterable[str] = (),
    doc: str = "",
    fifo_service: bool = False,
    clairvoyant: bool = False,
):
    """Registers a policy class under ``name`` so that experiments (``[[policy]] name = …``),
    ``run`` and ``simulate`` can use it like a built-in one. Usable as a decorator.

    The class is built once per run as ``cls(servers, **keys)`` and must have
    ``enqueue(job)``, ``schedule(cluster)`` and ``waiting()``; see ``docs/python.md``."""

    def add(c: type) -> type:
        _native.register_policy(
            name,
            c,
            keys=list(keys),
            doc=doc,
            fifo_service=fifo_service,
            clairvoyant=clairvoyant,
        )
        return c

    if cls is None:
        return add
    return add(cls)
