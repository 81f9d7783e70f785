"""`simbridge eval --ray` on a real local Ray cluster (ray.cluster_utils.Cluster, no mocks): a
head with no simulator resources, worker A advertising only `sim:jsbsim`, worker B advertising
`sim:jsbsim` and `sim:toy` (the toy test double, tests/doubles/toy_sim.py). Episodes land only
where their simulator is advertised; killing the node that runs an episode makes the driver
retry it elsewhere, keeping the lost attempt, and every episode is accounted for.

One cluster for the module. Episodes are short: a scripted agent that says done after 1-2 s
of simulator time, a 3 s limit for noop, frames off.
"""

from __future__ import annotations

import os
import shutil
import threading
import time
from pathlib import Path

import pyarrow.parquet as pq
import pytest

import jsbsim  # noqa: F401
from ray.cluster_utils import Cluster  # noqa: E402

from simbridge._eval import run_eval  # noqa: E402

pytestmark = [
    pytest.mark.slow,
    pytest.mark.display,
    pytest.mark.skipif(shutil.which("Xvfb") is None, reason="Xvfb not installed"),
]

TESTS = Path(__file__).resolve().parents[1]
TOY = "doubles.toy_sim:ToySimSession"
#: the GCS declares a silent node dead after 2 missed 1 s health checks (default: 5 × 3 s)
FAST_HEALTH = {
    "health_check_initial_delay_ms": 0,
    "health_check_period_ms": 1000,
    "health_check_failure_threshold": 2,
    "health_check_timeout_ms": 1000,
}


@pytest.fixture(scope="module")
def cluster():
    saved = {k: os.environ.get(k) for k in ("PYTHONPATH", "TOY_TIME_SCALE")}
    os.environ["PYTHONPATH"] = os.pathsep.join([str(TESTS), saved["PYTHONPATH"] or ""])  # workers import the toy
    os.environ["TOY_TIME_SCALE"] = "4"
    c = Cluster(initialize_head=True, head_node_args={"num_cpus": 1, "_system_config": FAST_HEALTH})
    try:
        c.worker_a = c.add_node(num_cpus=2, resources={"sim:jsbsim": 2})
        c.worker_b = c.add_node(num_cpus=2, resources={"sim:jsbsim": 1, "sim:toy": 2})
        c.wait_for_nodes()
        yield c
    finally:
        c.shutdown()
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def _write_suite(tmp_path: Path, text: str) -> Path:
    (tmp_path / "quick.yaml").write_text("actions:\n  - {at: 1.0, done: quick}\n")
    p = tmp_path / "suite.yaml"
    p.write_text(text)
    return p


def _rows(out: Path) -> list[dict]:
    return pq.read_table(out / "results.parquet").to_pylist()


def test_episodes_land_only_on_nodes_advertising_their_simulator(cluster, tmp_path):
    suite = _write_suite(
        tmp_path,
        f"""
name: routing
max_time_limit_s: 3
frame_hz: 0
matrix:
  - {{tasks: [T09], sims: [jsbsim], agents: ["scripted:quick.yaml"], trials: 3}}
  - {{tasks: [T09], sims: ["{TOY}"], agents: ["scripted:quick.yaml", noop]}}
""",
    )
    out = tmp_path / "out"
    res = run_eval(suite, out, ray_address=cluster.address, live=False)
    rows = _rows(out)
    assert len(rows) == 5 and {r["state"] for r in rows} == {"finished"}, rows
    assert all(r["score_status"] == "scored" and r["executor"] == "ray" for r in rows)
    a, b, head = cluster.worker_a.node_id, cluster.worker_b.node_id, cluster.head_node.node_id
    for r in rows:
        assert r["node_id"] != head
        assert r["node_id"] in ((a, b) if r["sim"] == "jsbsim" else (b,)), r
        bundle = out / r["bundle"]
        assert (bundle / "manifest.json").is_file() and (bundle / "score.json").is_file()  # copied back
        assert bundle.relative_to(out).as_posix() == f"{r['episode_id']}/attempt-1"
    assert {r["status"] for r in rows if r["agent_slug"] == "scripted-quick"} == {"completed"}
    assert {r["status"] for r in rows if r["agent_slug"] == "noop"} == {"timeout"}
    assert res.exit_code == 3 and "== agent noop" in res.metrics_text and "SR " in res.metrics_text


def test_an_episode_no_node_can_run_stops_before_anything_runs(cluster, tmp_path):
    from simbridge._errors import SimbridgeError

    suite = _write_suite(
        tmp_path, "name: vm\nprovider: vm\nmatrix:\n  - {tasks: [T09], sims: [jsbsim], agents: [noop]}\n"
    )
    out = tmp_path / "out"
    with pytest.raises(
        SimbridgeError,
        match=r"no node of the Ray cluster advertises provider:vm \+ sim:jsbsim "
        r"\(advertised: sim:jsbsim, sim:toy\)",
    ):
        run_eval(suite, out, ray_address=cluster.address, live=False)
    assert not list(out.glob("T09/*/*/trial-1/attempt-*"))


def _processes() -> dict[int, tuple[int, str]]:
    """pid → (parent pid, name) of every process, from /proc."""
    out = {}
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                name, rest = (d / "stat").read_text().rsplit(")", 1)
                out[int(d.name)] = (int(rest.split()[1]), name.split("(", 1)[1])
            except (OSError, ValueError, IndexError):
                pass
    return out


def _node_running_a_sim(cluster) -> object | None:
    """The worker node one of whose Ray workers has a simulator child (Xvfb) right now."""
    procs = _processes()
    for node in (cluster.worker_a, cluster.worker_b):
        raylet = node.all_processes["raylet"][0].process.pid
        for pid, (_ppid, name) in procs.items():
            if name != "Xvfb":
                continue
            p = pid
            while p > 1 and p in procs:
                p = procs[p][0]
                if p == raylet:
                    return node
    return None


def test_killing_a_node_mid_episode_retries_it_elsewhere(cluster, tmp_path):
    suite = _write_suite(
        tmp_path,
        """
name: kill
max_time_limit_s: 8
frame_hz: 0
retries: 2
matrix:
  - {tasks: [T09], sims: [jsbsim], agents: [noop]}
""",
    )
    out = tmp_path / "out"
    box: dict = {}
    t = threading.Thread(target=lambda: box.update(res=run_eval(suite, out, ray_address=cluster.address, live=False)))
    t.start()
    victim = None
    t_end = time.monotonic() + 120
    while victim is None and time.monotonic() < t_end and t.is_alive():
        victim = _node_running_a_sim(cluster)
        time.sleep(0.2)
    assert victim is not None, "the episode never started on a worker node"
    time.sleep(1.0)  # mid-episode: the simulator is up
    victim_id = victim.node_id
    cluster.remove_node(victim, allow_graceful=False)
    try:
        t.join(240)
        assert not t.is_alive(), "the eval did not finish after a node died"
    finally:
        # the fixture's other tests want two jsbsim workers again
        kind = {"sim:jsbsim": 2} if victim is cluster.worker_a else {"sim:jsbsim": 1, "sim:toy": 2}
        new = cluster.add_node(num_cpus=2, resources=kind)
        if victim is cluster.worker_a:
            cluster.worker_a = new
        else:
            cluster.worker_b = new
    [row] = _rows(out)
    assert row["state"] == "finished" and row["status"] == "timeout" and row["score_status"] == "scored", row
    assert row["attempt"] >= 2 and row["node_id"] != victim_id
    lost = out / row["episode_id"] / "attempt-1" / "harness_fault.json"
    assert lost.is_file() and "Error" in lost.read_text()  # the lost attempt is kept, with Ray's error
    assert box["res"].exit_code == 3
