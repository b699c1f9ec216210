"""A policy as a Python class: the same decisions as the built-in FIFO-FF and BF-J/S (identical
outputs, limit searches and delays included), and the guard naming the class."""

import pytest

import packlab
from conftest import files
from fit_policies import PyBestFitJS, PyFifoFirstFit

packlab.register_policy("py-fifo-ff", PyFifoFirstFit, fifo_service=True)
packlab.register_policy("py-bf-js", PyBestFitJS)


def experiment(names):
    return {
        "name": "same-decisions",
        "seed": 11,
        "cluster": {"servers": 5},
        "workload": {
            "sizes": {"dist": "uniform", "low": 0.1, "high": 0.7},
            "service": {"dist": "geometric", "mean": 12.0},
        },
        "run": {
            "slots": 5_000,
            "warmup": 500,
            "max_slots": 10_000,
            "replications": 2,
            "queue_cap": 500,
        },
        "sweep": {"fraction": [0.6, 0.9]},
        "policy": [
            {"name": names[0], "label": "fifo"},
            {"name": names[1], "label": "best"},
        ],
        "claim": [
            {"kind": "threshold", "policy": "best", "at_least": 0.5, "resolution": 0.1},
            {"kind": "saturation", "policy": "fifo", "resolution": 0.1},
        ],
    }


def test_python_fifo_ff_and_bf_js_make_the_built_in_decisions(tmp_path):
    packlab.run(experiment(["fifo-ff", "bf-js"]), out=tmp_path / "rust", progress=False)
    py = packlab.run(experiment(["py-fifo-ff", "py-bf-js"]), out=tmp_path / "py", progress=False)
    a, b = files(tmp_path / "rust"), files(tmp_path / "py")
    assert sorted(a) == sorted(b)
    # every table and the report: the same numbers (the figures differ only in the policies'
    # colours, the report names the policies it ran)
    for name in a:
        if name.endswith(".csv"):
            assert a[name] == b[name], name
    assert {"runs", "summary", "waits", "thresholds"} <= set(py.tables)


def test_keys_reach_the_class():
    seen = {}

    class Keyed(PyFifoFirstFit):
        def __init__(self, servers, cap, name="x"):
            super().__init__(servers)
            seen.update(servers=servers, cap=cap, name=name)

    packlab.register_policy("py-keyed", Keyed, keys=["cap", "name"])
    r = packlab.simulate(
        "py-keyed", [(0.5, 1.0)], 5.0, 3, 0.5, 2_000, params={"cap": 2, "name": "y"}
    )
    assert seen == {"servers": 3, "cap": 2, "name": "y"}
    assert r["verdict"] in ("stable", "inconclusive")
    with pytest.raises(ValueError, match="registered already"):
        packlab.register_policy("py-keyed", Keyed)
    with pytest.raises(ValueError, match="name"):
        packlab.register_policy("Bad_Name", Keyed)
    with pytest.raises(ValueError, match="enqueue, schedule and waiting"):
        packlab.register_policy("py-nothing", object)


class Overfill(PyFifoFirstFit):
    def schedule(self, cluster):
        for job in list(self.queue):
            cluster.place(0, job)  # without looking at the room
            self.queue.remove(job)


class Twice(PyFifoFirstFit):
    def schedule(self, cluster):
        if self.queue:
            job = self.queue[0]
            cluster.place(0, job)
            cluster.place(1, job)


class Loses(PyFifoFirstFit):
    def enqueue(self, job):
        pass  # forgets it


class Raises(PyFifoFirstFit):
    def schedule(self, cluster):
        if cluster.now > 50:
            raise RuntimeError("a bug in my policy")


@pytest.mark.parametrize(
    "cls,said",
    [
        (Overfill, "Overfill: placed job \\d+ of size .* it does not fit"),
        (Twice, "Twice: placed job \\d+, which is not waiting"),
        (Loses, "Loses.waiting\\(\\) says 0 jobs wait, but \\d+ were enqueued"),
        (Raises, "the policy class Raises raised in schedule: a bug in my policy"),
    ],
)
def test_the_guard_names_the_class(cls, said):
    name = "py-" + cls.__name__.lower()
    if name not in packlab.registered_policies():
        packlab.register_policy(name, cls)
    with pytest.raises(packlab.PacklabError, match=said):
        packlab.simulate(name, [(0.6, 1.0)], 5.0, 2, 0.9, 20_000)
    # and inside an experiment, run by the whole runner
    with pytest.raises(packlab.PacklabError, match=said):
        packlab.run(
            {
                "name": "guard",
                "cluster": {"servers": 2},
                "workload": {
                    "sizes": {"dist": "discrete", "values": [0.6], "probs": [1.0]},
                    "service": {"dist": "geometric", "mean": 5.0},
                },
                "run": {"slots": 20_000, "warmup": 100, "replications": 2},
                "sweep": {"fraction": [0.9]},
                "policy": [{"name": name}],
            },
            progress=False,
        )
    # the next run is not stopped by the last one's failure
    assert packlab.simulate("bf-js", [(0.6, 1.0)], 5.0, 2, 0.5, 2_000)["slots"] == 2_000
