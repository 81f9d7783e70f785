"""The agent's front doors unchanged over the guest transport: the MCP server (with the official
MCP SDK's client) and the Gymnasium environment (a real JSBSim episode, the transport chosen by
$SIMBRIDGE_AGENT_TRANSPORT)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from simbridge._agent_port import AgentPort, McpPortServer, connect
from simbridge._agent_port._transport import guest

pytestmark = [pytest.mark.display, pytest.mark.skipif(shutil.which("Xvfb") is None, reason="Xvfb not installed")]


def test_mcp_client_through_guest_transport(sandbox, guest_service):
    log: list[dict] = []
    port = AgentPort(sandbox.display, log=log.append, transport=guest(guest_service.addr, guest_service.token))
    x11 = AgentPort(sandbox.display)
    server = McpPortServer(port, token="tok").start()
    client = connect(server.url, token="tok")
    try:
        shot = client.screenshot("png")
        assert (shot.width, shot.height) == (1280, 800)
        assert np.array_equal(shot.to_array(), x11.screen.grab_bgr())
        client.mouse_move(640, 400)
        assert client.cursor_position() == (640, 400) == x11.execute("cursor_position")
        client.key("ctrl+a")
    finally:
        client.close()
        server.stop()
        port.close()
        x11.close()
    kinds = [r["kind"] for r in log if "error" not in r]
    assert kinds == ["screenshot", "mouse_move", "key"]  # cursor_position is not logged (UNLOGGED)


@pytest.mark.slow
def test_gymnasium_episode_through_guest_transport(tmp_path, monkeypatch):
    import gymnasium as gym
    import jsbsim  # noqa: F401

    import simbridge.integrations.gymnasium  # noqa: F401  (registers the ids)

    monkeypatch.setenv("SIMBRIDGE_AGENT_TRANSPORT", "guest")
    for name in ("SIMBRIDGE_GUEST_ADDR", "SIMBRIDGE_GUEST_TOKEN", "SIMBRIDGE_GUEST_TOKEN_FILE"):
        monkeypatch.delenv(name, raising=False)
    env = gym.make("simbridge/T09-jsbsim-v0", time_limit_s=2, out=str(tmp_path))
    try:
        obs, info = env.reset(seed=3)
        assert env.unwrapped._ep.client._port.transport.kind == "guest"
        assert obs.shape == (200, 320, 3) and obs.std() > 0  # the cockpit, seen through the guest
        env.action_space.seed(3)
        end = None
        for _ in range(100):
            obs, r, term, trunc, step_info = env.step(env.action_space.sample())
            if term or trunc:
                end = step_info
                break
        assert end is not None and end["scored"] is True and 0.0 <= end["score"] <= 1.0
        score = json.loads((Path(end["bundle"]) / "score.json").read_text())
        assert score["status"] == "scored"
    finally:
        env.close()
