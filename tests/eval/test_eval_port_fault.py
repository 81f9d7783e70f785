"""An attempt ended by a harness fault inside the agent port (the screen lost under a screenshot)
is ours whatever the agent sent before it: both executors mark it lost (`harness_side`), so the
driver retries it, while a harness fault that followed an input elsewhere stays final."""

from __future__ import annotations

import io

import pyarrow.parquet as pq

from simbridge._bundle import EpisodeInfo, write_bundle
from simbridge._eval._driver import RESULTS_FILE, _drive
from simbridge._eval._executors import harness_side
from simbridge._eval._plan import EpisodeSpec

KEY_V = {"t_wall": 1.0, "t": 12.5, "kind": "key", "args": {"keys": "v"}, "dur_s": 0.02}
PORT = "agent port: harness fault during screenshot: ScreenShotError: XGetImage() failed"


class Executor:
    """Closes a real bundle per attempt with the planned status and detail, and hands the
    outcome through `harness_side` as LocalExecutor and RayExecutor do."""

    name = "double"

    def __init__(self, plan: dict[tuple[str, int], tuple[str, str]]) -> None:
        self.plan, self.jobs, self.started = plan, [], []

    def can_start(self, job) -> bool:
        return True

    def start(self, job) -> None:
        self.jobs.append(job)
        self.started.append((job.spec.episode_id, job.attempt))

    def running(self) -> bool:
        return bool(self.jobs)

    def wait(self, timeout_s: float):
        out = []
        for job in self.jobs:
            status, detail = self.plan[(job.spec.episode_id, job.attempt)]
            ep = EpisodeInfo(task_id="T09", sim="jsbsim", status=status, status_detail=detail)
            ep.extra["last_agent_action"] = KEY_V  # the agent had acted in every attempt
            write_bundle(job.dest, ep, {"t": [0.0, 0.1, 0.2], "ias_kt": [60.0, 60.0, 60.0]})
            out.append((job, harness_side({"status": status, "detail": detail, "sim_s": 0.2, "score": None})))
        self.jobs = []
        return out

    def stop(self) -> None:
        pass


def _spec(i: int) -> EpisodeSpec:
    return EpisodeSpec(episode_id=f"ep{i}", task_id="T09", sim="jsbsim", agent="noop", agent_slug="noop", trial=i)


def test_a_port_fault_after_agent_inputs_is_retried_and_other_faults_after_inputs_are_not(tmp_path):
    plan = {
        ("ep1", 1): ("harness_error", PORT),
        ("ep1", 2): ("completed", "agent done at t=30.0 s"),
        ("ep2", 1): ("harness_error", "simulator frozen: no new sample at t=12.5 s for 120.0 s"),
    }
    ex = Executor(plan)
    out = tmp_path / "out"
    out.mkdir()
    _drive(out, 2, [_spec(1), _spec(2)], ex, io.StringIO(), False, False, None)
    assert sorted(ex.started) == sorted(plan)
    rows = {r["episode_id"]: r for r in pq.read_table(out / RESULTS_FILE).to_pylist()}
    assert (rows["ep1"]["state"], rows["ep1"]["attempt"], rows["ep1"]["status"]) == ("finished", 2, "completed")
    assert (out / "ep1" / "attempt-1" / "harness_fault.json").exists()
    assert (rows["ep2"]["state"], rows["ep2"]["attempt"]) == ("harness_fault", 1)


def test_harness_side_marks_only_port_faults():
    assert harness_side({"status": "harness_error", "detail": PORT})["fault"] == PORT
    for status, detail in (
        ("agent_quit", "agent port: whatever"),  # an agent outcome is never ours
        ("harness_error", "simulator frozen"),
        ("sim_crashed", "simulator exited (exit code 1)"),
    ):
        assert "fault" not in harness_side({"status": status, "detail": detail})
