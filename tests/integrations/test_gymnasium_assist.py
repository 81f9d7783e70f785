"""An assisted episode on the real JSBSim cockpit through Gymnasium's env kwarg
(`assists=["readout"]`): the cockpit is started with `--assist readout` and draws its readout
strip, and the bundle records the assist (episode.json, the episode's and the score's flags)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import simbridge.integrations.gymnasium as sg
from integrations.helpers import cockpits, needs_xvfb
from simbridge.adapters.jsbsim._layout import READOUT

pytestmark = [needs_xvfb, pytest.mark.display, pytest.mark.slow]


def test_a_readout_assisted_lockstep_episode_starts_the_cockpit_with_it_and_records_it(tmp_path, no_leftovers):
    env = sg.SimbridgeEnv("T09", "jsbsim", time_limit_s=1, out=str(tmp_path), assists=["readout"])
    try:
        _, info = env.reset(seed=1)
        assert info["assists"] == ["readout"]
        [cockpit] = cockpits()
        argv = cockpit.cmdline()
        i = argv.index("--assist")
        assert argv[i + 1] == "readout" and argv.count("--assist") == 1
        assert env._ep is not None
        session = env._ep._ep.session  # white-box: the private episode's simulator session
        assert session is not None and session.telnet.get("/sim/rendering/assists") == "readout"  # the cockpit draws it
        rgb = env._frame  # the full-size screen (BGR) of the last observation
        assert rgb is not None
        x, y, w, h = READOUT
        strip = rgb[y : y + h, x : x + w].max(axis=2)
        assert int((strip > 128).sum()) > 200, "no readout text in the strip"
        end = None
        for _ in range(30):
            _, _, term, trunc, step_info = env.step({"kind": 0, "key": 0, "point": np.zeros(2), "wheel": 0})
            if term or trunc:
                end = step_info
                break
        assert end is not None and end["scored"] is True
    finally:
        env.close()
    bundle = Path(end["bundle"])
    ep = json.loads((bundle / "episode.json").read_text())
    assert ep["assists"] == ["readout"] and "assist:readout" in ep["flags"]
    assert ep["sim_info"]["assists"] == ["readout"] and ep["sim_info"]["cockpit_assists"] == ["readout"]
    assert [a["name"] for a in ep["agent_brief"]["assists"]] == ["readout"]
    score = json.loads((bundle / "score.json").read_text())
    assert "assist:readout" in score["flags"]
