import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(Path(__file__).resolve().parent))


@pytest.fixture(scope="session")
def root():
    return ROOT


@pytest.fixture(scope="session")
def cli():
    """The command line's binary: PACKLAB_BIN, or the repository's release build."""
    path = Path(os.environ.get("PACKLAB_BIN", ROOT / "target" / "release" / "packlab"))
    assert path.is_file(), f"{path}: build it first (cargo build --release) or set PACKLAB_BIN"
    return path


@pytest.fixture(autouse=True)
def at_root(monkeypatch):
    """Every test runs from the repository's root, as the command line's examples do."""
    monkeypatch.chdir(ROOT)


def run_cli(cli, *args):
    return subprocess.run([str(cli), *map(str, args)], capture_output=True, text=True)


def files(folder):
    """Every output file of a folder, relative path to bytes, the journal folder left out."""
    folder = Path(folder)
    return {
        p.relative_to(folder).as_posix(): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file() and ".packlab" not in p.relative_to(folder).parts
    }
