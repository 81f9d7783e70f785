"""`eval` retries only harness faults the agent had no hand in.

The driver's retry decision, with an executor double that closes real bundles (the runner's
episode.json, `last_agent_action` as the runner writes it): a harness fault before any input
is retried; one that followed an agent input (a key that froze the simulator) stays the
episode's result, unscored, with the input in results.parquet, and --resume keeps it; an
attempt lost with its process is retried whatever the agent did.
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import pyarrow.parquet as pq

from simbridge._bundle import EpisodeInfo, write_bundle
from simbridge._eval._driver import RESULTS_FILE, _drive, agent_input_before
from simbridge._eval._executors import lost
from simbridge._eval._plan import EpisodeSpec

KEY_V = {"t_wall": 1.0, "t": 12.5, "kind": "key", "args": {"keys": "v"}, "dur_s": 0.02}


class ScriptedExecutor:
    """Runs nothing: each attempt's outcome (and bundle) comes from `plan[(episode, attempt)]`."""

    name = "double"

    def __init__(self, plan: dict[tuple[str, int], tuple[str, dict | None, bool]]) -> None:
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
            status, last, process_lost = self.plan[(job.spec.episode_id, job.attempt)]
            if process_lost:
                job.dest.mkdir(parents=True)
                (job.dest / "actions.jsonl").write_text(json.dumps(KEY_V) + "\n")
                out.append((job, lost("the attempt's process died (signal 9)")))
                continue
            ep = EpisodeInfo(task_id="T09", sim="jsbsim", status=status, status_detail=f"{status} (double)")
            ep.extra["last_agent_action"] = last
            write_bundle(job.dest, ep, {"t": [0.0, 0.1, 0.2], "ias_kt": [60.0, 60.0, 60.0]})
            out.append((job, {"status": status, "detail": status, "sim_s": 0.2, "score": None}))
        self.jobs = []
        return out

    def stop(self) -> None:
        pass


def _spec(i: int) -> EpisodeSpec:
    return EpisodeSpec(episode_id=f"ep{i}", task_id="T09", sim="jsbsim", agent="noop", agent_slug="noop", trial=i)


def _rows(out: Path) -> dict[str, dict]:
    return {r["episode_id"]: r for r in pq.read_table(out / RESULTS_FILE).to_pylist()}


def test_only_faults_without_an_agent_input_are_retried(tmp_path):
    plan = {
        # launch failure before the agent acted: retried, the retry counts
        ("ep1", 1): ("harness_error", None, False),
        ("ep1", 2): ("completed", None, False),
        # the simulator froze for good after the agent's `v`: final, never traded for a fresh one
        ("ep2", 1): ("harness_error", KEY_V, False),
        # the simulator process died after an input: final as well
        ("ep3", 1): ("sim_crashed", KEY_V, False),
        # the attempt's own process died (a lost sandbox): ours whatever the agent did, retried
        ("ep4", 1): ("harness_error", None, True),
        ("ep4", 2): ("completed", KEY_V, False),
    }
    ex = ScriptedExecutor(plan)
    out = tmp_path / "out"
    out.mkdir()
    _drive(out, 2, [_spec(i) for i in (1, 2, 3, 4)], ex, io.StringIO(), False, False, None)
    assert sorted(ex.started) == sorted(plan)  # nothing else was run
    rows = _rows(out)
    assert rows["ep1"]["state"] == "finished" and rows["ep1"]["attempt"] == 2
    for sid, status in (("ep2", "harness_error"), ("ep3", "sim_crashed")):
        r = rows[sid]
        assert (r["state"], r["attempt"], r["status"], r["score_status"]) == ("harness_fault", 1, status, "unscored")
        assert json.loads(r["last_agent_action"])["args"] == {"keys": "v"}
    assert rows["ep4"]["state"] == "finished" and rows["ep4"]["attempt"] == 2
    assert rows["ep1"]["last_agent_action"] is None  # an agent outcome: nothing to name
    # the lost attempt's input is still found in its actions.jsonl
    assert agent_input_before(out / "ep4" / "attempt-1")["kind"] == "key"

    # --resume keeps the faults that followed an input: they are the episodes' results
    ex2 = ScriptedExecutor({})
    _drive(out, 2, [_spec(i) for i in (1, 2, 3, 4)], ex2, io.StringIO(), False, True, None)
    assert ex2.started == []
    assert _rows(out)["ep2"]["state"] == "finished" and _rows(out)["ep2"]["status"] == "harness_error"
