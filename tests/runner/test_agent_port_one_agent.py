"""One agent per episode, the agent's mistakes are the agent's, screenshots of any size, the
`computer` tool's schema: through the official MCP SDK client against `simbridge run` on the toy
test double (tests/doubles/toy_sim.py), and a port on a bare Xvfb for the screenshot sizes."""

from __future__ import annotations

import asyncio
import json
import os
import random
import re
import stat
import subprocess
from pathlib import Path

import httpx
import numpy as np
import pytest

from support.runner import (
    TOY,
    episode,
    mcp_client,
    needs_xvfb,
    result_text,
    runner_env,
    simbridge_cmd,
    start_mcp_run,
    trial_dirs,
)

pytestmark = [needs_xvfb, pytest.mark.display, pytest.mark.slow]


def _bundle(tmp_path: Path) -> Path:
    (b,) = trial_dirs(tmp_path / "runs")
    return b


def _actions(b: Path) -> list[dict]:
    return [json.loads(line) for line in (b / "actions.jsonl").read_text().splitlines()]


# ------------------------------------------------------------------------------------------ one agent


def test_token_by_default_first_session_bound_every_other_client_refused_and_recorded(tmp_path):
    mcp_run = start_mcp_run(tmp_path)
    status = mcp_run.status
    st = json.loads(status.read_text())
    url, token = st["mcp_url"], st["token"]
    assert st["token_required"] is True and len(token) >= 32
    assert stat.S_IMODE(os.stat(status).st_mode) == 0o600
    assert stat.S_IMODE(os.stat(Path(st["bundle"]).parent / "agent_port.json").st_mode) == 0o600

    # no token, a wrong token: HTTP 401
    init = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}}
    assert httpx.post(url, json=init).status_code == 401
    assert httpx.post(url, json=init, headers={"Authorization": "Bearer guess"}).status_code == 401
    seen: dict = {}

    async def agents() -> None:
        async with mcp_client(url, token, mode="legacy") as a:  # the agent: binds the episode to its session
            await a.call_tool("task", {})
            shot = await a.call_tool("screenshot", {"format": "jpeg", "scale": 0.25})
            assert not shot.is_error, result_text(shot)
            # a second client holding the token: a second session, refused (403)
            for mode in ("legacy", None):
                try:
                    async with mcp_client(url, token, mode=mode) as b:
                        res = await b.call_tool("key", {"keys": "m"})
                        seen[f"second-{mode}"] = ("served", result_text(res))
                except Exception as exc:  # the SDK raises on the HTTP 403
                    seen[f"second-{mode}"] = ("refused", repr(exc)[:300])
            # a raw request with the token but another session id: refused too
            r = httpx.post(
                url,
                json={"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "done", "arguments": {}}},
                headers={"Authorization": f"Bearer {token}", "Mcp-Session-Id": "forged", "Accept": "application/json"},
            )
            seen["forged"] = r.status_code
            res = await a.call_tool("done", {"reason": "the bound agent ends it"})
            assert not res.is_error, result_text(res)

    asyncio.run(agents())
    code, err = mcp_run.finish()
    assert seen["second-legacy"][0] == "refused", seen
    assert seen["second-None"][0] == "refused", seen
    assert seen["forged"] == 403
    assert code == 0, err[-2000:]
    assert f"token {token}" in err  # printed on the agent-port line
    b = _bundle(tmp_path)
    ep = episode(b)
    assert ep["status"] == "completed" and "the bound agent ends it" in ep["status_detail"]
    assert ep["agent_port_auth"] == "token" and "agent_port_auth:none" not in ep["flags"]
    refusals = ep["agent_port_refusals"]
    reasons = [r["reason"] for r in refusals]
    assert reasons[:2] == ["no bearer token", "wrong bearer token"]
    assert sum("second session" in r or "bound to another MCP session" in r for r in reasons) >= 3, reasons
    assert all(r["peer"].startswith("127.0.0.1:") and r["t_wall"] > 0 for r in refusals)
    acts = _actions(b)
    sessions = {a.get("session") for a in acts}
    assert len(sessions) == 1 and next(iter(sessions)).startswith("mcp-session:"), sessions
    assert not any(a["kind"] == "key" for a in acts)  # the second client's key never ran
    score = json.loads((b / "score.json").read_text())
    assert "agent_port_auth:none" not in score.get("flags", [])


def test_no_token_is_explicit_marked_and_flagged(tmp_path):
    mcp_run = start_mcp_run(tmp_path, "--no-token")
    status = mcp_run.status
    st = json.loads(status.read_text())
    assert st["token_required"] is False and st["token"] is None

    async def agent() -> None:
        async with mcp_client(st["mcp_url"], None) as a:
            res = await a.call_tool("give_up", {"reason": "checking the flag"})
            assert not res.is_error, result_text(res)

    asyncio.run(agent())
    code, err = mcp_run.finish()
    assert code == 3, err[-2000:]
    assert "no token" in err
    b = _bundle(tmp_path)
    ep = episode(b)
    assert ep["agent_port_auth"] == "none" and "agent_port_auth:none" in ep["flags"]
    assert "agent_port_auth:none" in json.loads((b / "score.json").read_text())["flags"]
    assert _actions(b)[-1]["session"].startswith("mcp-stateless@127.0.0.1")


def test_no_token_with_a_token_is_bad_usage(tmp_path):
    r = subprocess.run(
        simbridge_cmd(
            "run", "T09", "--sim", TOY, "--agent", "mcp", "--no-token", "--token", "x", "--out", str(tmp_path)
        ),
        env=runner_env(2.0),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert r.returncode == 2 and "--no-token and --token" in r.stderr
    assert "Traceback" not in r.stderr


# ------------------------------------------------------------------------------ the agent's mistakes

#: malformed calls: (tool, arguments, what the one-line refusal must say)
MALFORMED = [
    ("click", {"x": int("9" * 400), "y": 10}, "400-digit number"),
    ("click", {"x": 10, "y": -(10**300)}, "outside"),
    ("type", {"text": "abc\x00def"}, "control character"),
    ("type", {"text": "x" * 20_000}, "more than the 10000 allowed"),
    ("read_file", {"path": "a" * 5000}, "longer than 1024"),
    ("write_file", {"path": "b/" * 2000 + "c", "text": "x"}, "longer than 1024"),
    ("write_file", {"path": ".", "text": "x"}, "names the folder itself"),
    ("write_file", {"path": "input", "text": "x"}, "read-only"),
    ("write_file", {"path": "n" * 300, "text": "x"}, "longer than 255 bytes"),
    ("key", {"keys": "a\x00"}, "must be a key name"),
    ("drag", {"path": [[1, 1]] * 5000}, "2 to 1000"),
    ("scroll", {"dy": "1e999"}, "invalid arguments"),  # the MCP schema refuses a string for an int
    ("click", {"x": "left"}, "invalid arguments"),
    ("computer", {"action": "open_web_browser"}, "not available here"),
    ("computer", {"action": "navigate", "text": "http://example.com"}, "not available here"),
    ("computer", {"action": "teleport"}, "invalid arguments"),  # not in the enum
    ("computer", {"coordinate": [1, 2]}, "invalid arguments"),  # action is required
    ("computer", {"action": "left_click", "coordinate": [int("9" * 400), 5]}, "400-digit number"),
    ("computer", {"action": "type", "text": "\x00"}, "control character"),
    ("no_such_tool", {}, "unknown tool"),
]


def test_seeded_campaign_of_malformed_actions_refused_logged_and_the_episode_scored(tmp_path):
    rng = random.Random(27)
    cases = MALFORMED * 2
    rng.shuffle(cases)
    mcp_run = start_mcp_run(tmp_path)
    status = mcp_run.status
    st = json.loads(status.read_text())
    told: list[tuple[str, dict, str, str]] = []

    async def agent() -> None:
        async with mcp_client(st["mcp_url"], st["token"]) as a:
            await a.call_tool("screenshot", {"format": "jpeg", "scale": 0.1})  # the episode has started
            for tool, args, expect in cases:
                res = await a.call_tool(tool, args)
                assert res.is_error, (tool, result_text(res)[:200])
                told.append((tool, args, expect, result_text(res)))
            res = await a.call_tool("done", {"reason": "campaign over"})
            assert not res.is_error, result_text(res)

    asyncio.run(agent())
    code, err = mcp_run.finish()
    assert code == 0, err[-2000:]
    for tool, args, expect, text in told:
        assert expect in text, (tool, text)
        assert "\n" not in text and len(text) < 700, (tool, text)
        assert "harness fault" not in text and "Traceback" not in text, (tool, text)
    b = _bundle(tmp_path)
    ep = episode(b)
    assert ep["status"] == "completed" and ep["agent_actions"]["failed"] == len(cases)
    assert not (b / "port_faults.txt").exists()
    failed = [a for a in _actions(b) if "error" in a]
    assert len(failed) == len(told)
    for a, (tool, _, expect, text) in zip(failed, told):  # in order, each with its refusal
        assert expect in a["error"] and a["error"][:80] in text, (tool, a, text)
        assert len(json.dumps(a)) < 3000
        assert a["kind"] == tool or tool == "computer", (tool, a)
    # nothing escaped the agent's folder, no half-written file sealed into the bundle
    assert not list(b.rglob("*.partial"))
    manifest = (b / "manifest.json").read_text() if (b / "manifest.json").exists() else ""
    assert ".partial" not in manifest
    assert json.loads((b / "score.json").read_text())["status"] == "scored"


@pytest.mark.parametrize("pacing", [(), ("--lockstep",)], ids=["real-time", "lockstep"])
def test_a_drag_running_at_the_time_limit_is_cut_short_and_logged(tmp_path, pacing):
    mcp_run = start_mcp_run(tmp_path, "--time-limit", "3", *pacing)
    status = mcp_run.status
    st = json.loads(status.read_text())
    out: dict = {}

    async def agent() -> None:
        async with mcp_client(st["mcp_url"], st["token"]) as a:
            await a.call_tool("screenshot", {"format": "jpeg", "scale": 0.1})
            path = [[100 + (i % 2) * 400, 100 + (i % 2) * 300] for i in range(40)]
            res = await a.call_tool("drag", {"path": path, "duration_s": 30})
            out["drag"] = (res.is_error, result_text(res))

    asyncio.run(agent())
    code, err = mcp_run.finish()
    assert code == 3, err[-2000:]
    b = _bundle(tmp_path)
    ep = episode(b)
    assert ep["status"] == "timeout", ep["status_detail"]
    assert out["drag"][0] and "episode over" in out["drag"][1]
    drags = [a for a in _actions(b) if a["kind"] == "drag"]
    assert len(drags) == 1 and "cut short" in drags[0]["error"]
    assert not (b / "port_faults.txt").exists() and not (b / "harness_error.txt").exists()


# ------------------------------------------------------------------------------ screenshots, computer


def _noise_background(display: str):
    """Random pixels as the root window's background: a full-screen PNG of several MB
    (incompressible). The X server paints a window's background itself, so the screen holds the
    noise from the `sync` on. A client's window of noise did not always: twice in CI the screen
    stayed blank for 15 s while such a window redrew every 50 ms."""
    from Xlib import X
    from Xlib import display as xdisplay

    d = xdisplay.Display(display)
    screen = d.screen()
    root, w, h, depth = screen.root, screen.width_in_pixels, screen.height_in_pixels, screen.root_depth
    pixmap = root.create_pixmap(w, h, depth)
    gc = pixmap.create_gc()
    noise = np.random.default_rng(5).integers(0, 256, (h, w, 4), dtype=np.uint8)  # ZPixmap, 32 bits a pixel
    rows = 200_000 // (4 * w)  # each PutImage under the core protocol's 256 KB request limit
    for y in range(0, h, rows):
        part = noise[y : y + rows]
        pixmap.put_image(gc, 0, y, w, part.shape[0], X.ZPixmap, depth, 0, part.tobytes())
    root.change_attributes(background_pixmap=pixmap)
    root.clear_area(0, 0, w, h)
    d.sync()
    return d


def test_a_full_screen_png_larger_than_the_sse_limit_arrives_scaled_with_its_scale(sandbox):
    from simbridge._agent_port import AgentPort, McpPortServer
    from simbridge._agent_port._screen import Screenshot

    log: list[dict] = []
    noise = _noise_background(sandbox.display)
    port = AgentPort(sandbox.display, clock=lambda: 1.0, log=log.append)
    full = port.screen.screenshot("png")
    assert len(full.data) > 1_048_576  # the raw PNG alone is over the SSE event limit
    server = McpPortServer(port, token="tok").start()
    try:

        async def agent() -> dict:
            seen: dict = {}
            async with mcp_client(server.url, "tok") as a:  # the SDK's default 1 MiB SSE event limit
                res = await a.call_tool("screenshot", {"format": "png"})
                assert not res.is_error, result_text(res)
                seen["meta"] = json.loads(result_text(res))
                seen["img"] = [c for c in res.content if c.type == "image"][0]
                tools = {t.name: t for t in (await a.list_tools()).tools}
                seen["schema"] = tools["computer"].input_schema
                res = await a.call_tool("computer", {"action": "screenshot"})
                seen["cmeta"] = json.loads(result_text(res))
                # a click in the scaled image's pixels lands on the matching screen pixel
                sx, sy = 100, 60
                res = await a.call_tool("computer", {"action": "left_click", "coordinate": [sx, sy]})
                assert not res.is_error and any(c.type == "image" for c in res.content)  # the screen after it
                res = await a.call_tool("computer", {"action": "cursor_position"})
                seen["cursor_img"] = json.loads(result_text(res))
                seen["cursor_screen"] = port.input.cursor_position()
            return seen

        seen = asyncio.run(agent())
    finally:
        server.stop()
        port.close()
        noise.close()
    meta = seen["meta"]
    assert meta["format"] == "png" and seen["img"].mime_type == "image/png"
    assert 0.2 < meta["scale"] < 1.0 and "scaled to" in meta["note"]
    import base64

    shot = Screenshot(base64.b64decode(seen["img"].data), "png", meta["width"], meta["height"], meta["scale"])
    arr = shot.to_array()
    assert arr.shape == (meta["height"], meta["width"], 3)
    assert (
        abs(meta["width"] - round(1280 * meta["scale"])) <= 1 and abs(meta["height"] - round(800 * meta["scale"])) <= 1
    )
    assert np.std(arr) > 15  # still the noise (area-averaged), not a blank screen
    c_scale = seen["cmeta"]["scale"]
    assert c_scale < 1.0
    assert seen["cursor_screen"] == (round(100 / c_scale), round(60 / c_scale))
    assert seen["cursor_img"] == {"x": 100, "y": 60}
    shots = [r for r in log if r["kind"] == "screenshot"]
    assert shots[0]["image_scale"] == pytest.approx(meta["scale"], abs=1e-4)  # the shrink is in actions.jsonl
    # every later full-screen image of the computer tool kept its (sticky) scale or shrank further
    assert all("image_scale" in r or r["args"].get("scale", 1.0) < 1.0 for r in shots)
    # the computer tool's schema: action a required enum generated from the one table
    from simbridge._agent_port._actions import COMPUTER_ACTIONS

    schema = seen["schema"]
    assert "action" in schema["required"]
    assert tuple(schema["properties"]["action"]["enum"]) == COMPUTER_ACTIONS


def test_computer_returns_the_screen_after_each_action_unless_switched_off(sandbox):
    from simbridge._agent_port import AgentPort, McpPortServer

    results = {}
    for after in (True, False):
        port = AgentPort(sandbox.display, clock=lambda: 1.0, log=[].append)
        server = McpPortServer(port, computer_screenshot=after).start()
        try:

            async def agent() -> list[str]:
                async with mcp_client(server.url, None) as a:
                    res = await a.call_tool("computer", {"action": "mouse_move", "coordinate": [20, 30]})
                    assert not res.is_error, result_text(res)
                    return [c.type for c in res.content]

            results[after] = asyncio.run(agent())
        finally:
            server.stop()
            port.close()
    assert "image" in results[True]
    assert results[False] == ["text"]


def test_sessions_are_named_in_the_python_client_and_status_file_connect(tmp_path):
    """`connect(agent_port.json)` takes the URL and the token from the run's status file."""
    from simbridge.agent import connect

    from simbridge._errors import SimbridgeError

    mcp_run = start_mcp_run(tmp_path)

    status = mcp_run.status
    client = connect(str(status))
    try:
        client.mouse_move(5, 5)
        with pytest.raises(SimbridgeError, match="second session"):  # even the same code, with the token
            connect(str(status)).mouse_move(9, 9)
        client.done("via the status file")
    finally:
        client.close()
    code, err = mcp_run.finish()
    assert code == 0, err[-2000:]
    acts = _actions(_bundle(tmp_path))
    (session,) = {a["session"] for a in acts}
    assert session.startswith("mcp-session:")  # the Python client holds a session the port binds
    assert [a["args"] for a in acts if a["kind"] == "mouse_move"] == [{"x": 5, "y": 5}]
    assert re.search(r"token \S{32,}", err)


def test_a_second_client_in_a_running_jsbsim_episode_is_refused_and_the_agent_scored(tmp_path):
    """The real embedded JSBSim cockpit: the agent (the SDK's default, stateless protocol) binds
    the episode; a second session with the token and a client without it are refused and
    recorded; the agent's malformed click is its own error; the episode is scored."""
    import jsbsim  # noqa: F401  (a genuinely absent simulator fails here, it is not skipped)

    from simbridge._agent_port._client import _why  # the innermost error, as the Python client says it

    mcp_run = start_mcp_run(tmp_path, sim="jsbsim", task="T09")

    status = mcp_run.status
    st = json.loads(status.read_text())
    url, token = st["mcp_url"], st["token"]
    seen: dict = {}

    async def agents() -> None:
        async with mcp_client(url, token) as a:
            shot = await a.call_tool("screenshot", {"format": "png"})
            assert not shot.is_error, result_text(shot)
            seen["meta"] = json.loads(result_text(shot))
            try:
                async with mcp_client(url, token, mode="legacy") as b:
                    await b.call_tool("key", {"keys": "Left"})
                seen["second"] = "served"
            except Exception as exc:
                seen["second"] = _why(exc)
            try:
                async with mcp_client(url, None) as c:
                    await c.call_tool("done", {})
                seen["tokenless"] = "served"
            except Exception as exc:
                seen["tokenless"] = _why(exc)
            res = await a.call_tool("click", {"x": int("7" * 400), "y": 3})
            seen["click"] = (res.is_error, result_text(res))
            res = await a.call_tool("computer", {"action": "key", "text": "Left"})
            assert not res.is_error and any(c.type == "image" for c in res.content), result_text(res)
            res = await a.call_tool("done", {"reason": "first agent"})
            assert not res.is_error, result_text(res)

    asyncio.run(agents())
    code, err = mcp_run.finish(timeout=240)
    assert code == 0, err[-2000:]
    assert "second session" in seen["second"], seen
    assert "bearer token" in seen["tokenless"], seen
    assert seen["click"][0] and "400-digit number" in seen["click"][1]
    b = _bundle(tmp_path)
    ep = episode(b)
    assert ep["status"] == "completed" and "first agent" in ep["status_detail"]
    reasons = [r["reason"] for r in ep["agent_port_refusals"]]
    assert any("second session" in r for r in reasons) and "no bearer token" in reasons, reasons
    acts = _actions(b)
    assert {a["session"] for a in acts} == {"mcp-stateless@127.0.0.1"}
    assert [a["kind"] for a in acts if a["kind"] == "key"] == ["key"]  # the agent's own Left only
    assert json.loads((b / "score.json").read_text())["status"] == "scored"


def test_lone_surrogates_from_an_in_process_agent_are_its_own_errors(sandbox, tmp_path):
    """What no JSON transport carries but a Python agent can pass: refused, logged, no fault."""
    from simbridge._agent_port import AgentFiles, AgentPort, DirectClient
    from simbridge._errors import SimbridgeError

    log: list[dict] = []
    port = AgentPort(sandbox.display, clock=lambda: 1.0, log=log.append, files=AgentFiles(tmp_path / "home"))
    faults: list[str] = []
    port.fault_log = faults.append
    client = DirectClient(port)
    try:
        for call, expect in (
            (lambda: client.write_file("answer.json", "lone \ud800 surrogate"), "not valid Unicode"),
            (lambda: client.key("\udc00"), "must be a key name"),
            (lambda: client.type("\ud83d"), "control character"),
            (lambda: client.read_file("a\ud800b"), "lone surrogate"),
            (lambda: client.computer(action="open_web_browser"), "not available here"),
        ):
            with pytest.raises(SimbridgeError, match=expect):
                call()
    finally:
        port.close()
    assert not faults
    assert [r["kind"] for r in log] == ["write_file", "key", "type", "read_file", "computer"]
    assert all(r["session"] == "direct" and r["error"] for r in log)
    json.dumps(log)  # loggable as actions.jsonl lines
