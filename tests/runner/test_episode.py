"""The runner's Episode: one cleanup stack undoes exactly what was set up when a step fails, and
the start/wait/finish steps give a closed, scored bundle like run_trial's (tests/runner/
test_runner_toy.py); in process, on the toy test double and the local provider's Xvfb."""

from __future__ import annotations

import json
from typing import Any

import pytest

from simbridge._errors import HarnessError
from simbridge._runner import Episode, RunConfig
from simbridge._task import load_task
from doubles.toy_sim import ToySimSession
from runner.helpers import TOY, needs_xvfb

pytestmark = [needs_xvfb, pytest.mark.display, pytest.mark.slow]

TASK = load_task("T09")


class FailingStart(ToySimSession):
    """A simulator whose start fails after the sandbox, the port and the agent are up."""

    n_stops = 0

    def start(self, task: Any, sandbox: Any, *, seed: int | None = None) -> None:
        raise HarnessError("the simulator would not start here")

    def stop(self) -> None:
        self.n_stops += 1


def _cfg(sim: str, **kw: Any) -> RunConfig:
    return RunConfig(task="T09", sim=sim, agent="noop", frame_hz=0, say=lambda line: None, **kw)


def test_a_failed_step_unwinds_what_was_set_up_and_closes_the_bundle(tmp_path):
    ep = Episode(_cfg("runner.test_episode:FailingStart"), TASK, 1, tmp_path / "trial-1")
    result = ep.run()
    assert result.status == "harness_error" and "the simulator would not start here" in result.detail
    assert getattr(ep.session, "n_stops", None) == 1  # the session was created, so its teardown ran, once
    assert ep.provider is not None and ep.provider.xvfb.poll() is not None  # the provider's Xvfb is gone
    assert ep.recorder is None and ep.frames is None  # never set up, never torn down
    episode = json.loads((tmp_path / "trial-1" / "episode.json").read_text())
    assert episode["status"] == "harness_error"
    assert result.score is not None and result.score.status == "unscored"
    assert json.loads((tmp_path / "agent_port.json").read_text())["state"] == "ended"


def test_start_wait_finish_is_run_trial_in_steps(tmp_path, monkeypatch):
    monkeypatch.setenv("TOY_TIME_SCALE", "8")
    cfg = _cfg(TOY, time_limit_s=4.0)
    ep = Episode(cfg, TASK, 1, tmp_path / "steps")
    ep.start()
    assert ep.port is not None and ep.recorder is not None and ep.clock() >= 0.0
    status, detail = ep.wait()
    ep.status, ep.detail = status, detail
    r = ep.finish()
    assert r.status == "timeout" and r.score is not None and r.score.status == "scored" and r.sim_s >= 4.0
    assert json.loads((r.path / "episode.json").read_text())["status"] == "timeout"
    assert (r.path / "score.json").exists() and (r.path / "manifest.json").exists()
    assert ep.finish().score == r.score  # closing twice changes nothing
    assert ep.provider is not None and ep.provider.xvfb.poll() is not None
