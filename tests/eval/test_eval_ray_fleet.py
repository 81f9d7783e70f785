"""The Ray executor as an operator runs it, on a real local Ray cluster (no mocks): a driver of
another simbridge version than its workers is refused in one line, and so is each attempt
sent to such a worker; episodes no alive node can take are warned about and given up as
harness faults after the placement timeout instead of waiting silently; the raylet's notices
(a worker that died) go to the eval directory's ray.log, not into eval's output.

One small cluster for the module: a head and one worker advertising `sim:toy`.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
from ray.cluster_utils import Cluster

from simbridge._errors import SimbridgeError
from simbridge._eval._executors import RAY_LOG, Job, RayExecutor
from simbridge._eval._plan import EpisodeSpec

pytestmark = [pytest.mark.slow]


@pytest.fixture(scope="module")
def cluster():
    c = Cluster(initialize_head=True, head_node_args={"num_cpus": 1})
    try:
        c.add_node(num_cpus=1, resources={"sim:toy": 1})
        c.wait_for_nodes()
        yield c
    finally:
        c.shutdown()


def _job(tmp_path: Path, resources: dict[str, float]) -> Job:
    spec = EpisodeSpec(
        episode_id="T09/toy/noop/trial-1",
        task_id="T09",
        sim="toy",
        agent="noop",
        agent_slug="noop",
        trial=1,
        resources=resources,
    )
    return Job(spec, 1, tmp_path / "out" / spec.episode_id / "attempt-1")


def _drain(ex: RayExecutor, timeout_s: float) -> list:
    t_end = time.monotonic() + timeout_s
    while time.monotonic() < t_end:
        got = ex.wait(0.5)
        if got:
            return got
    return []


def test_a_driver_of_another_version_than_its_workers_is_refused(cluster, monkeypatch):
    import simbridge._version

    ex = RayExecutor(cluster.address)
    try:
        ex.check_versions()  # same installation everywhere: accepted
        monkeypatch.setattr(simbridge._version, "installed_version", lambda: "0.0.0+driver")
        ex.version = "0.0.0+driver"
        with pytest.raises(SimbridgeError) as raised:
            ex.check_versions()
        line = str(raised.value)
        assert "\n" not in line and "runs simbridge" in line and "this driver 0.0.0+driver" in line, line
        assert "pip install simbridge==0.0.0+driver" in line
    finally:
        ex.stop()


def test_an_attempt_sent_to_a_worker_of_another_version_runs_nothing(cluster, tmp_path):
    ex = RayExecutor(cluster.address)
    try:
        ex.version = "0.0.0+driver"  # as if the driver had been upgraded and this worker not
        job = _job(tmp_path, {"sim:toy": 1})
        ex.start(job)
        [(done, outcome)] = _drain(ex, 60)
        assert done is job and outcome["status"] == "harness_error" and outcome["fault"]
        assert "this driver 0.0.0+driver" in outcome["fault"] and not (job.dest / "episode.json").exists()
    finally:
        ex.stop()


def test_episodes_no_node_can_take_are_warned_about_then_given_up(cluster, tmp_path, monkeypatch):
    monkeypatch.setenv("SIMBRIDGE_RAY_PLACEMENT_TIMEOUT_S", "4")
    ex = RayExecutor(cluster.address)
    warnings: list[str] = []
    ex.warn = warnings.append
    try:
        job = _job(tmp_path, {"sim:jsbsim": 1})  # the only jsbsim node is gone
        t0 = time.monotonic()
        ex.start(job)
        [(done, outcome)] = _drain(ex, 60)
        waited = time.monotonic() - t0
        assert done is job and outcome["status"] == "harness_error"
        assert "no alive Ray node advertised sim:jsbsim" in outcome["fault"]
        assert 4 <= waited < 30, waited
        assert len(warnings) == 1 and warnings[0].startswith("no alive Ray node advertises sim:jsbsim")
        assert "1 episode(s) wait" in warnings[0] and "after 4 s" in warnings[0]
    finally:
        ex.stop()


def test_a_bad_placement_timeout_is_one_line(cluster, monkeypatch):
    monkeypatch.setenv("SIMBRIDGE_RAY_PLACEMENT_TIMEOUT_S", "soon")
    with pytest.raises(SimbridgeError, match=r"SIMBRIDGE_RAY_PLACEMENT_TIMEOUT_S='soon': not a positive number"):
        RayExecutor(cluster.address)


def test_the_raylets_notices_go_to_ray_log_not_to_evals_output(cluster, tmp_path, capfd):
    ex = RayExecutor(cluster.address)
    try:
        job = _job(tmp_path, {"sim:toy": 1})
        (tmp_path / "out").mkdir()  # the eval directory, made by the driver
        ex._set_log_dir(job)  # what the first start() does
        crash = ex.ray.remote(resources={"sim:toy": 1}, max_retries=0)(lambda: os._exit(1))
        with pytest.raises(ex.ray.exceptions.RayError):
            ex.ray.get(crash.remote(), timeout=60)
        log = tmp_path / "out" / RAY_LOG
        t_end = time.monotonic() + 20  # the raylet's notice arrives on Ray's own thread
        while not (log.exists() and "(raylet)" in log.read_text()) and time.monotonic() < t_end:
            time.sleep(0.2)
    finally:
        ex.stop()
    captured = capfd.readouterr()
    assert "raylet" not in captured.out and "raylet" not in captured.err, captured
    assert "A worker died" in log.read_text()
