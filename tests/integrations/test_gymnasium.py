"""simbridge tasks as Gymnasium environments on the real embedded JSBSim cockpit: registered ids,
a random-action episode that ends with the verifier's score and leaves nothing running, the
task's time limit as truncation, and Gymnasium's own `check_env`."""

from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path

import numpy as np
import pytest

import gymnasium as gym
import jsbsim  # noqa: F401

from gymnasium.utils.env_checker import check_env  # noqa: E402

import simbridge.integrations.gymnasium as sg  # noqa: E402
from simbridge._errors import SimbridgeError  # noqa: E402

from integrations.helpers import needs_xvfb  # noqa: E402

pytestmark = [needs_xvfb, pytest.mark.display]


def test_ids_registered_for_runnable_pairs():
    assert "simbridge/T09-jsbsim-v0" in sg.IDS and "simbridge/T16-jsbsim-v0" in sg.IDS
    assert all(i in gym.registry for i in sg.IDS)
    assert sg.env_id("T01@PHJR", "jsbsim") == "simbridge/T01.PHJR-jsbsim-v0"
    with pytest.raises(SimbridgeError, match="obs_scale=2"):
        sg.SimbridgeEnv("T09", "jsbsim", obs_scale=2)


@pytest.mark.slow
def test_random_actions_end_with_a_valid_score_and_no_process_left(tmp_path, no_leftovers):
    env = gym.make("simbridge/T09-jsbsim-v0", time_limit_s=2, out=str(tmp_path))
    try:
        obs, info = env.reset(seed=3)
        assert obs.shape == (200, 320, 3) and obs.dtype == np.uint8 and obs.std() > 0  # the cockpit is drawn
        env.action_space.seed(3)
        rewards, end = [], None
        for _ in range(100):
            obs, r, term, trunc, step_info = env.step(env.action_space.sample())
            rewards.append(r)
            if term or trunc:
                end = step_info
                break
        assert end is not None, "no end within 100 steps of a 2 s limit at 0.1 s per step"
        assert all(r == 0.0 for r in rewards[:-1])  # reward only at the end
        assert end["scored"] is True and 0.0 <= rewards[-1] <= 1.0 and rewards[-1] == end["score"]
        score = json.loads((Path(end["bundle"]) / "score.json").read_text())
        assert score["status"] == "scored" and score["score"] == end["score"]
        assert Path(end["bundle"]) == Path(info["bundle"])
    finally:
        env.close()


@pytest.mark.slow
def test_time_limit_truncates(tmp_path, no_leftovers):
    env = gym.make("simbridge/T09-jsbsim-v0", time_limit_s=1, step_s=0.25, out=str(tmp_path))
    try:
        env.reset(seed=1)
        noop = {"kind": 0, "key": 0, "point": np.array([0.5, 0.5], np.float32), "wheel": 0}
        steps = 0
        while True:
            steps += 1
            _, r, term, trunc, info = env.step(noop)
            if term or trunc:
                break
        assert (steps, term, trunc) == (4, False, True)  # 4 × 0.25 s of simulator time
        assert info["status"] == "timeout" and info["scored"] and r == info["score"]
    finally:
        env.close()


@pytest.mark.slow
def test_check_env_leaves_nothing_in_the_working_directory(tmp_path, monkeypatch, no_leftovers):
    work = tmp_path / "cwd"
    work.mkdir()
    monkeypatch.chdir(work)
    env = gym.make("simbridge/T09-jsbsim-v0", time_limit_s=2)  # no out: a temporary folder
    out = env.unwrapped.out
    try:
        check_env(env.unwrapped)
    finally:
        env.close()
        shutil.rmtree(out, ignore_errors=True)
    assert list(work.iterdir()) == []
    assert out.resolve().is_relative_to(Path(tempfile.gettempdir()).resolve())


def test_done_is_not_in_the_sampled_action_space_unless_asked_for():
    env = sg.SimbridgeEnv("T09", "jsbsim", out="unused")
    assert env.action_space["kind"].n == len(sg.KINDS) - 1 and sg.KINDS[-1] == "done"
    assert "done" not in {sg.KINDS[int(env.action_space.sample()["kind"])] for _ in range(500)}
    assert sg.SimbridgeEnv("T09", "jsbsim", out="unused", allow_done=True).action_space["kind"].n == len(sg.KINDS)
    env._client, env._ep = object(), object()  # as if live: the kind is checked before anything runs
    with pytest.raises(SimbridgeError, match="allow_done=True"):
        env._act({"kind": 8, "key": 0, "point": np.array([0.5, 0.5], np.float32), "wheel": 0})


@pytest.mark.slow
def test_a_random_policy_lives_50_steps_of_exactly_step_s_each(tmp_path, no_leftovers):
    env = gym.make("simbridge/T09-jsbsim-v0", time_limit_s=6, out=str(tmp_path))
    try:
        env.reset(seed=11)
        env.action_space.seed(11)
        for n in range(1, 51):
            _, r, term, trunc, info = env.step(env.action_space.sample())
            assert not (term or trunc), f"a random policy ended at step {n}: {info.get('status')} {info.get('detail')}"
            # each step is exactly 0.1 s of simulator time (to one 1/120 s FDM step)
            assert info["t"] == pytest.approx(0.1 * n, abs=1 / 120)
        assert info["t"] == pytest.approx(5.0, abs=1e-3)
        while not (term or trunc):
            _, r, term, trunc, info = env.step(env.action_space.sample())
        assert trunc and info["status"] == "timeout" and info["t"] == pytest.approx(6.0, abs=1e-3)
        assert info["scored"] and r == info["score"] and "components" in info  # the score in the final info
    finally:
        env.close()
