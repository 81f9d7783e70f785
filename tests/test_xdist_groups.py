"""The worker groups of tests/xdist_groups.py in a real two-worker pytest-xdist session: each
module's tests run on one worker with its module fixture made once, and the VM modules share a
worker, so a version of pytest or pytest-xdist that stops honouring the groups fails here."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from xdist_groups import _LONGEST_FIRST, _WAITING, _xdist_group

TESTS = Path(__file__).parent

MODULE = """
import json, os, pathlib
import pytest

OUT = pathlib.Path(os.environ["GROUPS_OUT"])

@pytest.fixture(scope="module")
def made(request):
    with (OUT / "fixtures.jsonl").open("a") as f:
        f.write(json.dumps(request.module.__name__) + "\\n")

@pytest.mark.parametrize("i", range(N))
def test_one(made, i, request):
    with (OUT / "runs.jsonl").open("a") as f:
        f.write(json.dumps([request.node.nodeid, os.environ["PYTEST_XDIST_WORKER"]]) + "\\n")
"""


def test_ids_map_to_module_vm_and_report_groups():
    assert _xdist_group("tests/agents/test_x.py::test_a[T01@PHJR]") == "tests/agents/test_x.py"
    assert _xdist_group("tests/vm/test_vm_episode.py::test_t09") == "vm"
    assert _xdist_group("tests/report/test_browser_real.py::test_b") == "report"
    # the VM group (one guest at a time, ~7 min) is handed out among the first three
    assert _LONGEST_FIRST["vm"] >= sorted(_LONGEST_FIRST.values())[-3]


def test_the_named_groups_are_test_modules_that_exist():
    """A renamed module must not fall out of the waiting or the longest-first lists unnoticed."""
    root = TESTS.parent
    named = (set(_WAITING) | set(_LONGEST_FIRST)) - {"vm", "report"}
    assert [g for g in sorted(named) if not (root / g.split("::", 1)[0]).is_file()] == []


def test_each_reference_trial_is_a_group_of_its_own_and_named_by_a_collected_id():
    """The FlightGear reference trials share no fixture: each is its own group, handed out by its
    own length, and a trial renamed or added keeps its place in the longest-first list."""
    from xdist_groups import _TEST_GROUPS

    [module] = _TEST_GROUPS
    r = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider", module],
        cwd=TESTS.parent,
        capture_output=True,
        text=True,
        timeout=120,
    )
    ids = [line for line in r.stdout.splitlines() if line.startswith(module + "::")]
    assert len(ids) >= 7, r.stdout[-2000:] + r.stderr[-2000:]
    assert {_xdist_group(i) for i in ids} == set(ids)
    assert set(ids) == {g for g in _LONGEST_FIRST if g.startswith(module + "::")}


def _session(project: Path, out: Path, modules: dict[str, str], conftest: str, workers: int) -> list[list]:
    """Write the modules and conftest under `project`, run them on `workers` xdist workers with
    the scheduler of xdist_groups.py, and return what the tests wrote to runs.jsonl."""
    for rel, text in modules.items():
        path = project / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    (project / "tests" / "conftest.py").write_text(conftest)
    (project / "pytest.ini").write_text("[pytest]\ntestpaths = tests\n")
    env = dict(
        os.environ, GROUPS_OUT=str(out), PYTHONPATH=os.pathsep.join([str(TESTS), os.environ.get("PYTHONPATH", "")])
    )
    r = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", str(workers), "--dist", "loadgroup"],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    return [json.loads(line) for line in (out / "runs.jsonl").read_text().splitlines()]


def test_a_two_worker_session_keeps_each_group_on_one_worker(tmp_path):
    project, out = tmp_path / "project", tmp_path / "out"
    out.mkdir()
    modules = {"tests/test_a.py": 6, "tests/test_b.py": 6, "tests/sub/test_c.py": 3, "tests/vm/test_v1.py": 2}
    modules["tests/vm/test_v2.py"] = 2
    texts = {rel: MODULE.replace("range(N)", f"range({n})") for rel, n in modules.items()}
    runs = _session(project, out, texts, 'pytest_plugins = ["xdist_groups"]\n', workers=2)
    assert len(runs) == sum(modules.values())
    workers: dict[str, set[str]] = {}
    for nodeid, worker in runs:
        workers.setdefault(_xdist_group(nodeid), set()).add(worker)
    assert set(workers) == {"tests/test_a.py", "tests/test_b.py", "tests/sub/test_c.py", "vm"}
    assert all(len(w) == 1 for w in workers.values()), workers
    assert len(set().union(*workers.values())) == 2  # and both workers had work
    made = [json.loads(line) for line in (out / "fixtures.jsonl").read_text().splitlines()]
    assert sorted(made) == sorted(set(made)) and len(made) == len(modules)  # each module fixture once


TIMED = """
import json, os, pathlib, time
import pytest

OUT = pathlib.Path(os.environ["GROUPS_OUT"])

@pytest.mark.parametrize("i", range(4))
def test_one(i, request):
    start = time.time()
    time.sleep(0.2)
    with (OUT / "runs.jsonl").open("a") as f:
        f.write(json.dumps([request.node.nodeid, os.environ["PYTEST_XDIST_WORKER"], start, time.time()]) + "\\n")
"""


def test_a_third_worker_takes_only_waiting_groups_while_two_busy_ones_run(tmp_path):
    """Three workers, four busy modules and three waiting ones: never more than two busy groups
    at once, and the third worker gets the waiting groups (the first is handed out at the start)."""
    project, out = tmp_path / "project", tmp_path / "out"
    out.mkdir()
    busy = [f"tests/test_busy{i}.py" for i in range(4)]
    waiting = [f"tests/test_wait{i}.py" for i in range(3)]
    conftest = (
        "import xdist_groups\n"
        f"xdist_groups._WAITING = frozenset({waiting!r})\n"
        f"xdist_groups._LONGEST_FIRST = dict.fromkeys({busy!r}, 100)\n"
        'pytest_plugins = ["xdist_groups"]\n'
    )
    runs = _session(project, out, dict.fromkeys(busy + waiting, TIMED), conftest, workers=3)
    assert len(runs) == 4 * len(busy + waiting)
    spans: dict[str, list[float]] = {}
    workers: dict[str, set[str]] = {}
    for nodeid, worker, start, end in runs:
        group = _xdist_group(nodeid)
        span = spans.setdefault(group, [start, end])
        span[0], span[1] = min(span[0], start), max(span[1], end)
        workers.setdefault(group, set()).add(worker)
    assert all(len(w) == 1 for w in workers.values()), workers
    # at each busy group's start, the busy groups running: itself and at most one other
    for g in busy:
        running = [h for h in busy if spans[h][0] <= spans[g][0] < spans[h][1]]
        assert len(running) <= 2, (g, running, spans)
    # the worker that took no busy group at the start took the waiting ones
    first_two_busy = {next(iter(workers[g])) for g in busy[:2]}
    third = set().union(*workers.values()) - first_two_busy
    assert len(third) == 1 and next(iter(third)) in set().union(*(workers[g] for g in waiting))


HELD = """
import json, os, pathlib, time
import pytest

OUT = pathlib.Path(os.environ["GROUPS_OUT"])
NAP = {nap}

@pytest.fixture(scope="module")
def held(request):
    yield
    with (OUT / "teardowns.jsonl").open("a") as f:
        f.write(json.dumps([request.module.__name__, time.time()]) + "\\n")

@pytest.mark.parametrize("i", range(4))
def test_one(held, i, request):
    start = time.time()
    time.sleep(NAP)
    with (OUT / "runs.jsonl").open("a") as f:
        f.write(json.dumps([request.node.nodeid, os.environ["PYTEST_XDIST_WORKER"], start, time.time()]) + "\\n")
"""


def test_a_worker_with_nothing_left_to_take_ends_and_frees_its_fixtures(tmp_path):
    """Once the waiting groups are done and two busy ones run, the third worker is shut down: its
    held last test runs and its module fixture is torn down then, not when the last busy group is
    handed out (a drive world held by such a fixture kept a sixth of a core busy for 22 min)."""
    project, out = tmp_path / "project", tmp_path / "out"
    out.mkdir()
    busy = [f"tests/test_busy{i}.py" for i in range(6)]
    waiting = ["tests/test_wait0.py"]
    conftest = (
        "import xdist_groups\n"
        f"xdist_groups._WAITING = frozenset({waiting!r})\n"
        f"xdist_groups._LONGEST_FIRST = dict.fromkeys({busy!r}, 100)\n"
        'pytest_plugins = ["xdist_groups"]\n'
    )
    modules = {**dict.fromkeys(busy, HELD.format(nap=0.3)), **dict.fromkeys(waiting, HELD.format(nap=0.02))}
    runs = _session(project, out, modules, conftest, workers=3)
    assert len(runs) == 4 * len(busy + waiting)
    lines = (out / "teardowns.jsonl").read_text().splitlines()
    torn = {m.rpartition(".")[2]: t for m, t in map(json.loads, lines)}
    ends: dict[str, float] = {}
    for nodeid, _worker, _start, end in runs:
        group = _xdist_group(nodeid)
        ends[group] = max(end, ends.get(group, 0.0))
    # six busy groups of 1.2 s on two workers: the queue empties after the second round starts;
    # the waiting module's fixture went before even the first busy group ended
    assert torn["test_wait0"] < min(ends[g] for g in busy), (torn, ends)
