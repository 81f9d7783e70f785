"""Bring your own agent (docs/own-agent.md): the worked example `examples/my_agent` runs as
`py:my_agent:make` from the directory it sits in, with no PYTHONPATH, through the installed
`simbridge` command, on a short real JSBSim episode; it has one name everywhere; an
`ExternalFault` out of an agent (its model's API failed) leaves the episode unscored, exit 4."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
SIMBRIDGE = str(Path(sys.executable).with_name("simbridge"))


def _run(cwd: Path, agent: str, out: Path, rc: int) -> tuple[dict, dict]:
    import jsbsim  # noqa: F401  (the cockpit's dependency: a missing one fails here, loudly)

    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}  # the point: none needed
    r = subprocess.run(
        [SIMBRIDGE, "run", "T16", "--sim", "jsbsim", "--agent", agent, "--lockstep", "--time-limit", "60"]
        + ["--frame-hz", "0", "--no-report", "--out", str(out)],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert r.returncode == rc, (r.returncode, r.stdout[-2000:], r.stderr[-3000:])
    [bundle] = sorted(out.glob("*/trial-1"))
    return json.loads((bundle / "score.json").read_text()), json.loads((bundle / "episode.json").read_text())


@pytest.mark.display
@pytest.mark.slow
@pytest.mark.skipif(shutil.which("Xvfb") is None, reason="Xvfb not installed")
def test_the_example_agent_runs_from_its_directory_and_earns_nav1(tmp_path):
    score, ep = _run(EXAMPLES, "py:my_agent:make", tmp_path / "runs", rc=0)
    assert ep["status"] == "completed", ep.get("status_detail")
    assert ep["agent"] == "my-agent"  # the declared name, as metrics group it
    earned = {c["name"]: c["earned"] for c in score["components"]}
    assert earned["nav1"] == 1.0 and earned["com1_active_standby"] == 0.0
    assert score["status"] == "scored" and score["score"] == pytest.approx(0.2)


@pytest.mark.display
@pytest.mark.slow
@pytest.mark.skipif(shutil.which("Xvfb") is None, reason="Xvfb not installed")
def test_an_external_fault_out_of_an_agent_is_unscored_not_its_zero(tmp_path):
    (tmp_path / "flaky_model_agent.py").write_text(
        "from simbridge.agents import Agent, ExternalFault\n"
        "class Flaky(Agent):\n"
        "    def run(self, port, task, deadline_s):\n"
        "        port.screenshot()\n"
        "        raise ExternalFault('model API: 503 Service Unavailable')\n"
        "def make(task_id):\n"
        "    return Flaky()\n"
    )
    score, ep = _run(tmp_path, "py:flaky_model_agent:make", tmp_path / "runs", rc=4)
    assert ep["status"] == "harness_error"
    assert "outside the agent: model API: 503 Service Unavailable" in ep["status_detail"]
    assert ep["agent"] == "flaky_model_agent"  # no declared name: the module's
    assert score["status"] == "unscored"


def test_one_name_for_a_py_agent_in_eval_ids_and_episodes(tmp_path, monkeypatch):
    from simbridge._eval._plan import expand
    from simbridge._eval._suite import load_suite
    from simbridge.agents import make_agent

    monkeypatch.chdir(EXAMPLES)  # loadable from the current directory, as `simbridge eval` is run
    monkeypatch.setattr(sys, "path", [p for p in sys.path if p not in ("", str(EXAMPLES))])
    suite = tmp_path / "s.yaml"
    suite.write_text("name: s\ntasks: [T16]\nsims: [jsbsim]\nagents: ['py:my_agent:make']\n")
    [episode], _ = expand(load_suite(suite), suite)
    assert episode.episode_id == "T16/jsbsim/my-agent/trial-1"
    assert make_agent("py:my_agent:make", "T16").name == "my-agent"
    # a factory that declares nothing: the module's name, in both places
    (tmp_path / "plain_agent.py").write_text(
        "from simbridge.agents import Agent\n"
        "class Plain(Agent):\n"
        "    def run(self, port, task, deadline_s):\n"
        "        return 'done'\n"
        "def build(task_id):\n"
        "    return Plain()\n"
    )
    monkeypatch.chdir(tmp_path)
    suite.write_text("name: s\ntasks: [T16]\nsims: [jsbsim]\nagents: ['py:plain_agent:build']\n")
    [episode], _ = expand(load_suite(suite), suite)
    assert episode.episode_id == "T16/jsbsim/plain_agent/trial-1"
    assert make_agent("py:plain_agent:build", "T16").name == "plain_agent"
