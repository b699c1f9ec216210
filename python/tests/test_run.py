"""Experiments from Python: the command line's outputs byte for byte, tables as data frames,
the same errors, resume, Ctrl-C."""

import os
import signal
import threading
import time

import pytest

import packlab
from conftest import files, run_cli

try:
    import tomllib
except ImportError:  # Python < 3.11
    tomllib = None

# A full run, a limit search (threshold claims) shortened, delays shortened, a map of two job
# classes shortened.
SHIPPED = [
    ("experiments/fig3a_vqs_unstable.toml", False),
    ("experiments/thresholds_uniform_large.toml", True),
    ("experiments/delay_uniform_small.toml", True),
    ("experiments/msj_region_map.toml", True),
]


@pytest.mark.parametrize("path,quick", SHIPPED)
def test_outputs_are_the_command_lines_byte_for_byte(cli, tmp_path, path, quick):
    flags = ["--quick"] if quick else []
    done = run_cli(cli, path, "--quiet", "--out", tmp_path / "cli", *flags)
    assert done.returncode == 0, done.stderr
    result = packlab.run(path, out=tmp_path / "py", quick=quick, progress=False)
    a, b = files(tmp_path / "cli"), files(tmp_path / "py")
    assert sorted(a) == sorted(b)
    for name in a:
        assert a[name] == b[name], f"{path}: {name} differs"
    assert result.held
    assert set(result.tables) >= {"summary"} or "region_map" in result.tables


def test_tables_are_data_frames_with_the_documented_columns(tmp_path):
    r = packlab.run("experiments/delay_uniform_small.toml", out=tmp_path, quick=True, progress=False)
    s = r.summary
    for column in ["policy", "load", "mean_queue", "wait_p99", "verdict"]:
        assert column in s.columns
    assert s["load"].dtype.kind == "f"
    assert set(s["policy"]) == {"bf-js", "fifo-ff", "vqs-bf"} or len(set(s["policy"])) >= 2
    w = r.waits_by_size
    assert {"class", "size_low", "size_high", "mean_wait"} <= set(w.columns)
    assert all(p.exists() for p in r.figures) and r.figures
    assert r.report.startswith("# delay_uniform_small")
    assert len(r.claims) == len(r.verdicts)
    with pytest.raises(AttributeError, match="no table 'nope'"):
        r.nope


EXPERIMENT = {
    "name": "dict",
    "seed": 4,
    "cluster": {"servers": 4},
    "workload": {
        "sizes": {"dist": "discrete", "values": [0.3, 0.6], "probs": [0.5, 0.5]},
        "service": {"dist": "geometric", "mean": 10.0},
    },
    "run": {"slots": 20_000, "warmup": 2_000, "replications": 2},
    "sweep": {"fraction": [0.5, 0.8]},
    "policy": [{"name": "bf-js"}, {"name": "fifo-ff"}],
}


def test_a_dict_toml_text_and_a_file_give_the_same_outputs(tmp_path):
    text = packlab.to_toml(EXPERIMENT)
    (tmp_path / "experiment.toml").write_text(text)
    packlab.run(EXPERIMENT, out=tmp_path / "dict", progress=False)
    packlab.run(text, out=tmp_path / "text", progress=False)
    os.chdir(tmp_path)
    packlab.run("experiment.toml", out=tmp_path / "file", progress=False)
    a, b, c = (files(tmp_path / k) for k in ("dict", "text", "file"))
    assert a == b == c
    if tomllib is not None:
        assert tomllib.loads(text) == EXPERIMENT


def test_refused_values_raise_with_the_key_and_the_command_lines_message(cli, tmp_path):
    bad = dict(EXPERIMENT, cluster={"servers": 0})
    with pytest.raises(packlab.PacklabError) as e:
        packlab.run(bad, progress=False)
    assert e.value.key == "cluster.servers"
    assert e.value.got == "0"
    assert e.value.file == "experiment.toml"
    (tmp_path / "experiment.toml").write_text(packlab.to_toml(bad))
    os.chdir(tmp_path)
    done = run_cli(cli, "experiment.toml")
    assert done.returncode == 2
    assert str(e.value) in done.stderr
    with pytest.raises(TypeError, match="workload.sizes.values"):
        packlab.run(dict(EXPERIMENT, workload={"sizes": {"values": {1, 2}}}))
    with pytest.raises(packlab.PacklabError, match="cannot read"):
        packlab.run(tmp_path / "missing.toml")


def test_a_folder_resumes_its_journal(tmp_path, capsys):
    first = packlab.run(EXPERIMENT, out=tmp_path, progress=False)
    written = files(tmp_path)
    capsys.readouterr()
    packlab.run(EXPERIMENT, out=tmp_path)
    assert "dict: 8 of 8 units resumed from the journal" in capsys.readouterr().err
    assert files(tmp_path) == written
    fresh = packlab.run(EXPERIMENT, out=tmp_path, fresh=True)
    assert "resumed" not in capsys.readouterr().err
    assert fresh.summary.equals(first.summary)


@pytest.fixture
def ctrl_c_as_at_a_terminal():
    """SIGINT raises KeyboardInterrupt, as at a terminal, even where this process was started
    with SIGINT ignored (a background job: Python then installs no handler of its own)."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)


def test_ctrl_c_raises_keyboard_interrupt_and_keeps_the_journal(
    tmp_path, ctrl_c_as_at_a_terminal
):
    # about 6 s of work on 2 threads: Ctrl-C comes at 1.5 s, well before the end
    long = dict(EXPERIMENT, run={"slots": 10_000_000, "warmup": 1_000, "replications": 8})
    timer = threading.Timer(1.5, lambda: os.kill(os.getpid(), signal.SIGINT))
    timer.start()
    started = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        packlab.run(long, out=tmp_path, threads=2, progress=False)
    assert time.monotonic() - started < 60
    assert (tmp_path / ".packlab").is_dir()
    # the journal is resumed: the run finishes from where it stopped
    r = packlab.run(long, out=tmp_path, threads=2, progress=False)
    assert len(r.summary) == 4


def test_the_gil_is_released_while_simulating():
    ticks = []
    stop = threading.Event()

    def count():
        while not stop.is_set():
            ticks.append(1)
            time.sleep(0.001)

    t = threading.Thread(target=count)
    t.start()
    packlab.simulate("bf-js", [(0.3, 0.5), (0.6, 0.5)], 10.0, 50, 0.8, 3_000_000)
    stop.set()
    t.join()
    assert len(ticks) > 20


def test_progress_goes_to_python_stderr(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("PACKLAB_PROGRESS_SECONDS", "0")
    packlab.run(EXPERIMENT, out=tmp_path, progress=True)
    err = capsys.readouterr().err
    assert "packlab: dict:" in err
