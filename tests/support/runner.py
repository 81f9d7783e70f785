"""Helpers for the runner tests: run `simbridge run` with the toy double as a subprocess, read
bundles, check processes; start a `--agent mcp` run and connect an MCP client to it."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

TESTS = Path(__file__).resolve().parents[1]
TOY = "doubles.toy_sim:ToySimSession"

needs_xvfb = pytest.mark.skipif(shutil.which("Xvfb") is None, reason="Xvfb not installed")


def runner_env(time_scale: float = 4.0) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(TESTS), env.get("PYTHONPATH", "")])
    env["TOY_TIME_SCALE"] = str(time_scale)
    return env


def simbridge_cmd(*args: str) -> list[str]:
    return [sys.executable, "-m", "simbridge._cli", *args]


def run_simbridge(*args: str, time_scale: float = 4.0, timeout: float = 240) -> subprocess.CompletedProcess:
    return subprocess.run(
        simbridge_cmd(*args), env=runner_env(time_scale), capture_output=True, text=True, timeout=timeout
    )


def run_trial_cli(
    task: str, sim: str, agent: str, out: Path, *extra: str, rc: int | tuple[int, ...] = 0, timeout: float = 1500
) -> tuple[dict, dict, Path]:
    """`simbridge run TASK --sim SIM --agent AGENT` one trial without frames, as a user runs it;
    (score.json, episode.json, bundle). `rc`: the exit status (or statuses) expected — 0 when the
    agent said done, 3 for its own scored failure (timed out, gave up)."""
    r = subprocess.run(
        simbridge_cmd("run", task, "--sim", sim, "--agent", agent, "--out", str(out), "--frame-hz", "0", *extra),
        capture_output=True,
        text=True,
        timeout=timeout,
        env=dict(os.environ),
    )
    assert r.returncode in (rc if isinstance(rc, tuple) else (rc,)), r.stderr[-3000:]
    [bundle] = sorted(out.glob("*/trial-1"))
    return json.loads((bundle / "score.json").read_text()), episode(bundle), bundle


def trial_dirs(out: Path) -> list[Path]:
    return sorted(out.glob("*/trial-*"))


def episode(bundle: Path) -> dict:
    return json.loads((bundle / "episode.json").read_text())


def pid_alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as fh:
            state = fh.read().rsplit(")", 1)[1].split()[0]
        return state != "Z"
    except FileNotFoundError:
        return False


def write_script(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


@dataclass
class McpRun:
    """A `simbridge run TASK --sim SIM --agent mcp` subprocess serving its agent port."""

    proc: subprocess.Popen
    #: the runner's status file (`--status-file`): the port's URL, its token, readiness
    status: Path
    url: str

    def status_json(self) -> dict[str, Any]:
        return json.loads(self.status.read_text())

    def token(self) -> str:
        """The episode's token, as an agent started separately reads it (the status file)."""
        return str(self.status_json()["token"])

    def finish(self, timeout: float = 120) -> tuple[int, str]:
        """Wait for the run to end (killed after `timeout` s): its exit code and stderr."""
        try:
            _, err = self.proc.communicate(timeout=timeout)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait()
        return self.proc.returncode, err


def start_mcp_run(tmp_path: Path, *extra: str, time_scale: float = 2.0, task: str = "T09", sim: str = TOY) -> McpRun:
    """Start `simbridge run TASK --sim SIM --agent mcp` (bundles under tmp_path/runs, no screen
    frames, a free port) and return once its status file exists."""
    from simbridge.adapters.kit import free_port

    port = free_port()
    status = tmp_path / "status.json"
    proc = subprocess.Popen(
        simbridge_cmd(
            "run",
            task,
            "--sim",
            sim,
            "--agent",
            "mcp",
            "--out",
            str(tmp_path / "runs"),
            "--frame-hz",
            "0",
            "--port",
            str(port),
            "--status-file",
            str(status),
            *extra,
        ),
        env=runner_env(time_scale),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    t_end = time.monotonic() + 60
    while not status.exists():
        if proc.poll() is not None or time.monotonic() > t_end:
            proc.kill()
            raise AssertionError(f"no status file; runner said: {proc.communicate()[1][-2000:]}")
        time.sleep(0.05)
    return McpRun(proc, status, f"http://127.0.0.1:{port}/mcp")


def mcp_client(url: str, token: str | None, mode: str | None = None) -> Any:
    """An MCP client (the official SDK's `Client`) of the agent port at `url`, with the bearer
    token when one is given; `mode` as the SDK's (e.g. "legacy")."""
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared._httpx_utils import create_mcp_http_client

    headers = {"Authorization": f"Bearer {token}"} if token else {}
    server = streamable_http_client(url, http_client=create_mcp_http_client(headers=headers))
    return Client(server, mode=mode) if mode else Client(server)


def result_text(res: Any) -> str:
    """The text parts of an MCP tool result, joined."""
    return " ".join(c.text for c in res.content if getattr(c, "type", "") == "text")


def reference_trial_run(task: str, sim: str, seed: int, out: Path, agent: str = "reference") -> tuple[dict, dict, Path]:
    """One lockstep trial of a reference pilot on a seed of its own, held to the verified bar
    (completed, scored, success, score ≥ 0.9): (score.json, episode.json, bundle)."""
    score, ep, bundle = run_trial_cli(task, sim, agent, out, "--lockstep", "--seed", str(seed), timeout=900)
    assert ep["status"] == "completed", ep.get("status_detail")
    if "variant" in ep:  # a task with drawn variants flew the seed's
        assert ep["variant"]["seed"] == seed, ep["variant"]
    assert score["status"] == "scored" and score["success"] is True and score["score"] >= 0.9, score
    return score, ep, bundle


def reference_trial(task: str, sim: str, seed: int, out: Path, agent: str = "reference") -> set[str]:
    """`reference_trial_run`, answering the kinds of action the pilot took, for the caller to
    check that it read pixels and acted through input only."""
    _score, _ep, bundle = reference_trial_run(task, sim, seed, out, agent)
    return action_kinds(bundle)


def jsonl(path: Path) -> list[dict]:
    """The records of a JSON-lines file of a bundle (actions.jsonl, events.jsonl)."""
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def action_kinds(bundle: Path) -> set[str]:
    return {a["kind"] for a in jsonl(bundle / "actions.jsonl")}
