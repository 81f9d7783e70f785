"""The lowest `mcp` that pyproject allows really works: install it (and its matching
`mcp-types`) into a private folder, put it in front of the environment's newer copy, and run
the agent port's MCP server and client against each other with it."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from packaging.version import Version

from support.runner import needs_xvfb

ROOT = Path(__file__).resolve().parents[2]

pytestmark = [needs_xvfb, pytest.mark.display, pytest.mark.slow]

_PROBE = """
import json, sys
import mcp, importlib.metadata as md
from simbridge._agent_port import AgentPort, McpPortServer, connect
print("mcp", md.version("mcp"), mcp.__file__)
port = AgentPort(sys.argv[1], clock=lambda: 1.5)
port.brief = {"task_id": "T09", "sim": "toy", "vehicle": "Cessna 172", "instruction": "fly a steep turn please",
              "inputs": [], "time_limit_s": 300.0, "lockstep": False, "screen_px": [1280, 800], "controls": []}
server = McpPortServer(port).start()
client = connect(server.url)
try:
    assert client.task()["instruction"] == "fly a steep turn please"
    shot = client.screenshot("png", scale=0.5)
    assert (shot.width, shot.height) == (640, 400)
    assert client.elapsed() == 1.5
    client.done("ok")
finally:
    client.close()
    server.stop()
    port.close()
print("FLOOR OK")
"""


def _floor(name: str) -> str:
    text = (ROOT / "pyproject.toml").read_text()
    m = re.search(rf'"{name}>=([0-9][0-9.]*)"', text)
    assert m, f"pyproject.toml has no floor for {name}"
    return m.group(1)


def test_lowest_allowed_mcp_serves_and_connects(tmp_path, sandbox):
    floor = _floor("mcp")
    target = tmp_path / "floor"
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "-q",
            "--no-deps",
            "--target",
            str(target),
            f"mcp=={floor}",
            f"mcp-types=={floor}",
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert r.returncode == 0, r.stderr[-2000:]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(target), os.environ.get("PYTHONPATH", "")]))
    p = subprocess.run(
        [sys.executable, "-c", _PROBE, sandbox.display], capture_output=True, text=True, env=env, timeout=120
    )
    assert p.returncode == 0, p.stderr[-3000:]
    first = p.stdout.splitlines()[0].split()
    assert Version(first[1]) == Version(floor) and str(target) in first[2], (
        p.stdout
    )  # the floor version was the one imported
    assert "FLOOR OK" in p.stdout
