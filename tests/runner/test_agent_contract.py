"""The agent's side of an episode, as an external agent sees it through the official MCP SDK
client (`mcp.Client`), on the toy test double (not a simulator; tests/doubles/toy_sim.py):
told the task, gated until the episode has started, refused after done, every failed action
logged with a precise message, give-up and disconnect scored, honest exit codes."""

from __future__ import annotations

import asyncio
import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from support.runner import (
    TOY,
    episode,
    mcp_client,
    needs_xvfb,
    result_text,
    run_simbridge,
    runner_env,
    simbridge_cmd,
    start_mcp_run,
    trial_dirs,
)

pytestmark = [needs_xvfb, pytest.mark.display, pytest.mark.slow]

TOKEN = "s3cret-token"


def _score(bundle: Path) -> dict:
    return json.loads((bundle / "score.json").read_text())


def test_agent_is_told_the_task_gated_until_ready_and_refused_after_done(tmp_path):
    mcp_run = start_mcp_run(tmp_path, "--token", TOKEN)
    status, url = mcp_run.status, mcp_run.url
    st = json.loads(status.read_text())
    assert st["mcp_url"] == url and st["state"] == "starting" and st["ready"] is False and st["token_required"]

    # without the token the port answers 401 and nothing starts
    import httpx

    r = httpx.post(url, json={"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}})
    assert r.status_code == 401

    seen: dict = {}

    async def agent() -> None:
        async with mcp_client(url, TOKEN) as c:
            tools = {t.name for t in (await c.list_tools()).tools}
            assert {"task", "computer", "screenshot", "click", "done", "give_up"} <= tools
            prompt = await c.get_prompt("task")
            seen["prompt"] = prompt.messages[0].content.text
            res = await c.read_resource("simbridge://task")
            seen["resource"] = json.loads(res.contents[0].text)
            seen["task"] = json.loads(result_text(await c.call_tool("task", {})))
            # the first screenshot waits for the episode to start and shows the cockpit
            shot = await c.call_tool("screenshot", {"format": "png"})
            seen["shot"] = [b for b in shot.content if getattr(b, "type", "") == "image"][0].data
            seen["ready_after_shot"] = json.loads(status.read_text())["ready"]
            # failed actions: precise messages
            bad = {}
            for name, args in (
                ("click", {"x": 99999, "y": 10}),
                ("key", {"keys": "NoSuchKeyName"}),
                ("read_file", {"path": "../etc/passwd"}),
                ("scroll", {"dy": 1e9}),
            ):
                res = await c.call_tool(name, args)
                assert res.is_error, (name, result_text(res))
                bad[name] = result_text(res)
            seen["bad"] = bad
            # the computer tool in Anthropic's schema
            res = await c.call_tool("computer", {"action": "key", "text": "Left", "duration": None})
            assert not res.is_error, result_text(res)
            res = await c.call_tool("computer", {"action": "left_click", "coordinate": [640, 400]})
            assert not res.is_error, result_text(res)
            res = await c.call_tool("computer", {"action": "screenshot"})
            assert any(getattr(b, "type", "") == "image" for b in res.content)
            res = await c.call_tool("computer", {"action": "cursor_position"})
            assert json.loads(result_text(res)) == {"x": 640, "y": 400}
            await c.call_tool("done", {"reason": "checked"})
            after = await c.call_tool("screenshot", {})
            seen["after_done"] = (after.is_error, result_text(after))

    asyncio.run(agent())
    code, err = mcp_run.finish()
    assert code == 0, err[-2000:]
    [b] = trial_dirs(tmp_path / "runs")
    ep = episode(b)

    # told the task: instruction, time limit, controls, through all three doors, as recorded
    brief = seen["task"]
    assert brief["task_id"] == "T09" and brief["sim"] == "toy" and "steep turn" in brief["instruction"]
    assert brief["time_limit_s"] == 300 and brief["screen_px"] == [1280, 800]
    assert {k: v for k, v in brief.items() if k != "text"} == seen["resource"] == ep["agent_brief"]
    assert brief["instruction"] in seen["prompt"] and "Time limit: 300 s" in seen["prompt"]
    assert brief["text"] == seen["prompt"]

    # gated: the first screenshot came after the port was ready and shows the toy's window
    from PIL import Image
    import base64
    import io

    img = Image.open(io.BytesIO(base64.b64decode(seen["shot"]))).convert("RGB")
    assert img.size == (1280, 800)
    assert max(img.getextrema()[c][1] for c in range(3)) > 100, "the first screenshot is black"
    assert seen["ready_after_shot"] is True
    actions = [json.loads(line) for line in (b / "actions.jsonl").read_text().splitlines()]
    first_screen = next(a for a in actions if a["kind"] == "screenshot")
    assert first_screen["t_wall"] >= ep["ready_wall"]

    # failed actions: logged with their error, and the agent told precisely what was wrong
    assert "x=99999 outside the 1280×800 screen" in seen["bad"]["click"]
    assert "NoSuchKeyName" in seen["bad"]["key"]
    assert "../etc/passwd" in seen["bad"]["read_file"]
    assert "dy=1000000000 outside -100..100" in seen["bad"]["scroll"]
    failed = [a for a in actions if "error" in a]
    assert [a["kind"] for a in failed][:4] == ["click", "key", "read_file", "scroll"]
    assert all(a["error"] in seen["bad"][a["kind"]] for a in failed[:4])
    # after done nothing is served
    assert seen["after_done"][0] and "episode over" in seen["after_done"][1]
    assert ep["status"] == "completed" and "checked" in ep["status_detail"]
    assert json.loads(status.read_text())["state"] == "ended"


def test_give_up_at_once_is_scored_zero(tmp_path):
    mcp_run = start_mcp_run(tmp_path)

    async def agent() -> None:
        async with mcp_client(mcp_run.url, mcp_run.token()) as c:
            await c.call_tool("give_up", {"reason": "not today"})

    asyncio.run(agent())
    code, err = mcp_run.finish()
    assert code == 3, err[-2000:]
    [b] = trial_dirs(tmp_path / "runs")
    assert episode(b)["status"] == "agent_quit"
    score = _score(b)
    assert score["status"] == "scored", score["reason"]
    assert score["score"] == 0.0 and score["success"] is False


_KILLED_AGENT = """
import asyncio, sys
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
async def main():
    http = create_mcp_http_client(headers={"Authorization": "Bearer " + sys.argv[3]})
    async with Client(streamable_http_client(sys.argv[1], http_client=http), mode=sys.argv[2]) as c:
        await c.call_tool("screenshot", {})
        print("acted", flush=True)
        await asyncio.sleep(3600)
asyncio.run(main())
"""


@pytest.mark.parametrize("mode, why", [("legacy", "disconnected"), ("auto", "no request from the agent")])
def test_a_client_that_dies_is_an_agent_disconnect_scored_within_the_grace(tmp_path, mode, why):
    # legacy: a session whose event stream closes (grace 2 s); auto (stateless 2026-07-28
    # protocol): no connection to lose, silence for the idle timeout (3 s) is the sign
    mcp_run = start_mcp_run(tmp_path, "--disconnect-grace", "2", "--idle-timeout", "3")
    url = mcp_run.url
    agent = subprocess.Popen(
        [sys.executable, "-c", _KILLED_AGENT, url, mode, mcp_run.token()], stdout=subprocess.PIPE, text=True
    )
    try:
        assert agent.stdout.readline().strip() == "acted"
        killed = time.monotonic()
        agent.send_signal(signal.SIGKILL)
        agent.wait()
        code, err = mcp_run.finish(timeout=60)
        ended = time.monotonic()
    finally:
        if agent.poll() is None:
            agent.kill()
    assert code == 3, err[-2000:]
    [b] = trial_dirs(tmp_path / "runs")
    ep = episode(b)
    assert ep["status"] == "agent_disconnected" and why in ep["status_detail"], ep["status_detail"]
    # gone for the 2 s grace; the rest is teardown and scoring. The episode's limit is 300 s.
    assert ended - killed < 30
    assert ep["sim_seconds"] < 60
    score = _score(b)
    assert score["status"] == "scored" and score["score"] == 0.0


def test_an_agent_that_never_connects_is_unscored_not_its_zero(tmp_path):
    # no agent was there to evaluate (an integration that never connected): outside the agent
    mcp_run = start_mcp_run(tmp_path, "--connect-timeout", "1")
    code, err = mcp_run.finish()
    assert code == 4, err[-2000:]
    [b] = trial_dirs(tmp_path / "runs")
    ep = episode(b)
    assert ep["status"] == "harness_error", ep["status"]
    assert "outside the agent" in ep["status_detail"] and "no agent connected" in ep["status_detail"]
    score = _score(b)
    assert score["status"] == "unscored" and score["score"] is None


@pytest.mark.parametrize(
    "args, message",
    [
        (["--time-limit", "-5"], "--time-limit: -5 must be > 0"),
        (["--trials", "0"], "--trials: 0 must be ≥ 1"),
        (["--frame-hz", "nan"], "is not a finite number"),
        (["--port", "70000"], "must be ≤ 65535"),
        (["--host", "0.0.0.0", "--no-token"], "needs a token"),
    ],
)
def test_invalid_numbers_are_refused_before_anything_runs(tmp_path, args, message):
    r = run_simbridge("run", "T09", "--sim", TOY, "--agent", "noop", "--out", str(tmp_path), *args)
    assert r.returncode == 2
    assert message in r.stderr and "Traceback" not in r.stderr
    assert not list(tmp_path.iterdir()), "a bundle was created for a refused run"


def test_preflight_refuses_a_missing_vm_image_before_a_bundle_exists(tmp_path):
    env = dict(runner_env(), SIMBRIDGE_VM_IMAGE=str(tmp_path / "no-image"))
    r = subprocess.run(
        simbridge_cmd(
            "run", "T09", "--sim", "jsbsim", "--agent", "noop", "--provider", "vm", "--out", str(tmp_path / "runs")
        ),
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert r.returncode == 2, r.stderr
    assert "no guest image" in r.stderr and "simbridge vm build" in r.stderr and "Traceback" not in r.stderr
    assert not (tmp_path / "runs").exists()


def test_preflight_refuses_a_missing_flightgear_before_a_bundle_exists(tmp_path):
    env = dict(runner_env(), SIMBRIDGE_FGFS=str(tmp_path / "no-fgfs"))
    r = subprocess.run(
        simbridge_cmd("run", "T15", "--sim", "flightgear", "--agent", "noop", "--out", str(tmp_path / "runs")),
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert r.returncode == 2, r.stderr
    assert "no-fgfs not found" in r.stderr and "Traceback" not in r.stderr
    assert not (tmp_path / "runs").exists()
