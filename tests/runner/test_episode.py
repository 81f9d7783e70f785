"""The Episode: one cleanup stack undoes exactly what was set up when a step fails; the
start/wait/finish steps give a closed, scored bundle like run_trial's (tests/runner/
test_runner_toy.py); a caller drives it by start → act → close (what Gymnasium and Inspect AI
do), and it ends itself on the first end condition; in process, on the toy test double and the
local provider's Xvfb."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest

from simbridge._agent_port import EpisodeOver
from simbridge._errors import HarnessError, SimbridgeError
from simbridge._episode import Episode
from simbridge.episode import RunConfig
from simbridge._task import load_task
from doubles.toy_sim import ToySimSession
from support.runner import TOY, needs_xvfb

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
    r = ep.close()
    assert r.status == "timeout" and r.score is not None and r.score.status == "scored" and r.sim_s >= 4.0
    assert json.loads((r.path / "episode.json").read_text())["status"] == "timeout"
    assert (r.path / "score.json").exists() and (r.path / "manifest.json").exists()
    assert ep.close().score == r.score  # closing twice changes nothing
    assert ep.provider is not None and ep.provider.xvfb.poll() is not None


# --------------------------------------------------------------------------- the caller drives it


def _caller(tmp_path, name: str, **kw: Any) -> Episode:
    return Episode(_cfg(TOY, **kw), TASK, 1, tmp_path / name, driver="caller")


def _actions(bundle) -> list[dict]:
    return [json.loads(line) for line in (bundle / "actions.jsonl").read_text().splitlines()]


def test_start_act_close_by_the_caller(tmp_path, monkeypatch):
    monkeypatch.setenv("TOY_TIME_SCALE", "8")
    with _caller(tmp_path, "caller", time_limit_s=60.0) as ep:
        first = ep.start()
        assert first.screen is not None and first.screen.shape[2] == 3 and first.screen.std() > 0
        assert first.brief["task_id"] == "T09" and first.brief["instruction"]
        assert not first.over and first.t >= 0.0
        after = ep.act("key", keys="Left", hold_s=0.2)
        assert after.result is None and after.t > first.t and not after.over
        shot = ep.act("screenshot", scale=0.25)
        assert shot.result.width == 320  # the action's own return: a quarter-size screenshot
        end = ep.act("done", reason="banked")
        assert end.over
        with pytest.raises(EpisodeOver):
            ep.act("key", keys="Left")
        r = ep.close()
    assert r.status == "completed" and "agent done" in r.detail and r.score is not None
    episode = json.loads((r.path / "episode.json").read_text())
    assert episode["agent"] == "noop" and episode["status"] == "completed"
    kinds = [a["kind"] for a in _actions(r.path)]
    assert kinds[:3] == ["key", "screenshot", "done"] and all(a.get("session") == "direct" for a in _actions(r.path))
    assert ep.close() is r  # closing again changes nothing
    assert ep.provider is not None and ep.provider.xvfb.poll() is not None


def test_the_episode_ends_itself_at_the_time_limit_while_the_caller_waits(tmp_path, monkeypatch):
    monkeypatch.setenv("TOY_TIME_SCALE", "8")
    ep = _caller(tmp_path, "limit", time_limit_s=2.0)
    ep.start()
    while not ep.over:  # nobody acts: the episode's own watch ends it on simulator time
        time.sleep(0.05)
    with pytest.raises(EpisodeOver):
        ep.act("key", keys="Left")
    r = ep.close()
    assert r.status == "timeout" and r.sim_s >= 2.0 and r.score is not None and r.score.status == "scored"
    assert json.loads((r.path / "episode.json").read_text())["status"] == "timeout"


def test_closing_without_done_is_the_agents_quit_and_a_fault_is_unscored(tmp_path, monkeypatch):
    monkeypatch.setenv("TOY_TIME_SCALE", "8")
    ep = _caller(tmp_path, "quit", time_limit_s=60.0)
    ep.start()
    r = ep.close()
    assert (r.status, r.detail) == ("agent_quit", "agent stopped without done/give_up")
    assert r.score is not None and r.score.status == "scored"

    with pytest.raises(RuntimeError, match="model API down"):
        with _caller(tmp_path, "fault", time_limit_s=60.0) as ep:
            ep.start()
            raise RuntimeError("model API down")
    r = ep.close()
    assert r.status == "harness_error" and r.detail.startswith("outside the agent: RuntimeError: model API down")
    assert r.score is not None and r.score.status == "unscored"
    assert "model API down" in (r.path / "agent_error.txt").read_text()


def test_a_start_that_fails_says_so_and_leaves_a_closed_bundle(tmp_path):
    ep = Episode(_cfg("runner.test_episode:FailingStart"), TASK, 1, tmp_path / "t", driver="caller")
    with pytest.raises(SimbridgeError, match="ended before the agent's turn .*would not start here"):
        ep.start()
    r = ep.close(fault="ignored: the episode had already ended")
    assert r.status == "harness_error" and "would not start here" in r.detail
    assert ep.provider is not None and ep.provider.xvfb.poll() is not None


def test_the_variant_drawn_is_recorded(tmp_path, monkeypatch):
    monkeypatch.setenv("TOY_TIME_SCALE", "8")

    task = TASK.model_copy(update={"variant": {"seed": 7, "values": {"wind_kt": 12}}})
    ep = Episode(_cfg(TOY, time_limit_s=1.0), task, 1, tmp_path / "v")
    r = ep.run()
    assert json.loads((r.path / "episode.json").read_text())["variant"] == {"seed": 7, "values": {"wind_kt": 12}}


def test_one_config_type():
    from simbridge._eval._plan import EpisodeSpec
    from simbridge.integrations._framework import EpisodeConfig

    cfg = EpisodeConfig(task="T09", sim="jsbsim", lockstep=True, agent_name="gymnasium")
    assert isinstance(cfg, RunConfig) and cfg.agent == "gymnasium" and cfg.lockstep
    spec = EpisodeSpec("e1", "T09", "jsbsim", "noop", "noop", 2, provider="netns", time_limit_s=30.0, seed=4)
    rc = RunConfig.of(spec, task=spec.task_id)
    assert (rc.task, rc.sim, rc.agent, rc.provider, rc.time_limit_s, rc.seed) == (
        "T09",
        "jsbsim",
        "noop",
        "netns",
        30.0,
        4,
    )
    assert rc.trials == 1 and rc.frame_hz == spec.frame_hz
