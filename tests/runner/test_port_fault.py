"""A harness fault inside the agent port (here: the display is gone under a screenshot) ends the
episode as a harness fault, unscored, never as the agent's own ending (`agent_quit`), whatever
the agent does with the exception; an agent's mistake at the port stays the agent's. In
process, on the toy test double and the local provider's Xvfb."""

from __future__ import annotations

import json
import os
import signal
import socket
import struct
import time
from typing import Any

import pytest

from simbridge._agent_port import ActionError, AgentPort, EpisodeOver
from simbridge._agent_port._port import PortFault
from simbridge._errors import HarnessError
from simbridge._episode import Episode
from simbridge.episode import RunConfig
from simbridge._task import load_task
from simbridge.agents._base import Agent
from doubles.toy_sim import ToySimSession
from support.runner import needs_xvfb

pytestmark = [needs_xvfb, pytest.mark.display, pytest.mark.slow]

TASK = load_task("T09")


class HeadlessToy(ToySimSession):
    """The toy simulator drawing off-screen (SDL's dummy driver): it lives on when the display
    dies, so what fails is the agent's screen alone."""

    def start(self, task: Any, sandbox: Any, *, seed: int | None = None) -> None:
        spawn = sandbox.spawn
        sandbox.spawn = lambda cmd, env=None, **kw: spawn(cmd, {**(env or {}), "SDL_VIDEODRIVER": "dummy"}, **kw)
        try:
            super().start(task, sandbox, seed=seed)
        finally:
            sandbox.spawn = spawn


def _server_pid(n: int) -> int:
    """The pid of the X server listening on display n (its socket's peer credentials)."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        s.connect(f"/tmp/.X11-unix/X{n}")
        pid, _, _ = struct.unpack("3i", s.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i")))
    return int(pid)


class KillsTheDisplayAgent(Agent):
    """Takes screenshots; after the second, the sandbox's X server dies (as when another episode
    tore down a display it shared). The screenshot that follows fails: the agent lets the
    exception out of `run`, as most agents would."""

    name = "display-killer"

    def setup(self, ctx: Any) -> None:
        self.display = int(ctx.display[1:])

    def run(self, port: Any, task: Any, deadline_s: float) -> Any:
        port.screenshot()
        port.key("Left")
        port.screenshot()
        xvfb = _server_pid(self.display)
        os.kill(xvfb, signal.SIGKILL)
        while os.path.exists(f"/proc/{xvfb}/stat") and " Z " not in open(f"/proc/{xvfb}/stat").read():
            time.sleep(0.05)
        for _ in range(5):  # every later screenshot fails too
            port.screenshot()
        return "done"


class SwallowsTheFaultAgent(KillsTheDisplayAgent):
    """The same, but the agent catches the port's exception and gives up: still ours."""

    name = "fault-swallower"

    def run(self, port: Any, task: Any, deadline_s: float) -> Any:
        try:
            return super().run(port, task, deadline_s)
        except Exception:
            port.give_up("the screen stopped working")
            return "give_up"


def make_killer(task_id: str) -> Agent:
    return KillsTheDisplayAgent()


def make_swallower(task_id: str) -> Agent:
    return SwallowsTheFaultAgent()


def _run(tmp_path, factory: str, monkeypatch) -> Any:
    monkeypatch.setenv("TOY_TIME_SCALE", "8")
    cfg = RunConfig(
        task="T09",
        sim="runner.test_port_fault:HeadlessToy",
        agent=f"py:runner.test_port_fault:{factory}",
        frame_hz=0,
        time_limit_s=60.0,
        say=lambda line: None,
    )
    return Episode(cfg, TASK, 1, tmp_path / factory).run()


@pytest.mark.parametrize("factory", ["make_killer", "make_swallower"])
def test_a_screenshot_on_a_lost_display_is_a_harness_fault_not_the_agents_ending(tmp_path, monkeypatch, factory):
    r = _run(tmp_path, factory, monkeypatch)
    assert r.status == "harness_error", (r.status, r.detail)
    assert r.detail.startswith("agent port: harness fault during screenshot"), r.detail
    assert r.score is not None and r.score.status == "unscored"
    episode = json.loads((r.path / "episode.json").read_text())
    assert episode["status"] == "harness_error"
    failed = [a for a in map(json.loads, (r.path / "actions.jsonl").read_text().splitlines()) if "error" in a]
    assert failed and failed[0]["kind"] == "screenshot" and "harness fault" in failed[0]["error"]


class _Transport:
    """A transport whose screen fails as a lost display does, or as a guest connection does."""

    def __init__(self, exc: BaseException) -> None:
        self.exc = exc
        self.input = self
        self.screen = self

    def screenshot(self, *a: Any, **k: Any) -> Any:
        raise self.exc

    def release_all(self) -> None:
        pass

    def close(self) -> None:
        pass


@pytest.mark.parametrize(
    "exc",
    [OSError('XIO: fatal IO error 11 on X server ":140"'), HarnessError("guest service: connection lost")],
)
def test_the_port_remembers_its_first_harness_fault_and_the_agents_mistakes_are_not_one(exc):
    port = AgentPort(":0", transport=_Transport(exc))  # type: ignore[arg-type]
    with pytest.raises(ActionError):
        port.execute("key", {"keys": 5})  # the agent's mistake: not ours
    assert port.harness_fault is None
    with pytest.raises(HarnessError) as raised:
        port.execute("screenshot", {})
    assert isinstance(raised.value, PortFault) or raised.value is exc
    first = port.harness_fault
    assert first is not None and first.startswith("harness fault during screenshot")
    with pytest.raises(HarnessError):
        port.execute("screenshot", {})
    assert port.harness_fault == first  # the first one stands


def test_a_fault_after_the_episode_ended_is_not_one():
    port = AgentPort(":0", transport=_Transport(OSError("display closed")))  # type: ignore[arg-type]
    port.end_episode("timeout", settle_s=0.1)
    with pytest.raises(EpisodeOver):
        port.execute("screenshot", {})
    assert port.harness_fault is None
