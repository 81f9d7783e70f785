"""The guest service inside the netns sandbox (needs root): started there as the simulator's
user on the sandbox's Xvfb, reached by the host only through the sandbox's firewall on its
state-port allowance, authenticated, and serving the same pixels and input as the X11 path."""

from __future__ import annotations

import os
import secrets
import time

import numpy as np
import pytest

from simbridge._errors import HarnessError

pytestmark = [pytest.mark.root, pytest.mark.display]

if os.geteuid() != 0:
    pytest.skip("network namespaces need root", allow_module_level=True)

from simbridge._agent_port import AgentPort  # noqa: E402
from simbridge._agent_port._transport import GuestClient, guest  # noqa: E402
from simbridge._isolation import NetnsSandbox, sandbox_python  # noqa: E402
from simbridge._isolation._netns import SIM_USER  # noqa: E402

try:
    PY = sandbox_python()
except HarnessError as exc:  # the dev venv under /root; CI's venv is built from /usr/bin/python3
    pytest.skip(str(exc), allow_module_level=True)

GUEST = 7010


def _connect(addr: str, token: str, timeout_s: float = 30.0) -> GuestClient:
    t_end = time.monotonic() + timeout_s
    while True:
        try:
            return GuestClient(addr, token, timeout_s=2)
        except HarnessError:
            if time.monotonic() > t_end:
                raise
            time.sleep(0.2)


def test_guest_service_inside_netns(tmp_path):
    import pwd

    from Xlib import XK, display as xdisplay

    with NetnsSandbox(state_tcp=[GUEST]) as sb:
        token = secrets.token_hex(32)
        token_file = sb.workdir / "episode.token"
        token_file.write_text(token + "\n")
        os.chown(token_file, pwd.getpwnam(SIM_USER).pw_uid, -1)
        token_file.chmod(0o600)
        proc = sb.spawn(
            [PY, "-m", "simbridge._cli", "guest", "--listen", f"0.0.0.0:{GUEST}", "--token-file", str(token_file)],
            name="guest",
        )
        addr = f"{sb.sandbox_addr}:{GUEST}"
        assert sb.display
        client = _connect(addr, token)
        assert client.zlib_level == 1  # not loopback: frames travel compressed
        client.close()
        with pytest.raises(HarnessError, match="refused"):
            GuestClient(addr, "wrong")
        port = AgentPort(sb.display, transport=guest(addr, token))
        x11 = AgentPort(sb.display)
        d = xdisplay.Display(sb.display)
        try:
            assert np.array_equal(port.screen.grab_bgr(), x11.screen.grab_bgr())
            port.execute("mouse_move", {"x": 77, "y": 88})
            assert x11.execute("cursor_position") == (77, 88)
            code = d.keysym_to_keycode(XK.string_to_keysym("Right"))
            port.execute("key_down", {"keys": "Right"})
            assert d.query_keymap()[code // 8] & (1 << (code % 8))
            port.execute("key_up", {"keys": "Right"})
            assert not d.query_keymap()[code // 8] & (1 << (code % 8))
        finally:
            port.close()
            x11.close()
            d.close()
        assert proc.poll() is None
        log = (sb.workdir / "guest.log").read_text()
        assert "refused connection from" in log and "authenticated" in log


@pytest.mark.slow
def test_episode_through_guest_service_inside_netns(tmp_path):
    """`simbridge run --provider netns` with the guest transport: the runner starts the service
    inside the sandbox, reaches it from the host's side of the veth, the audit passes with its
    port open to the host, and T16's panel clicks score as on the X11 path."""
    import json
    import subprocess
    import sys

    env = {**os.environ, "SIMBRIDGE_AGENT_TRANSPORT": "guest"}
    for name in ("SIMBRIDGE_GUEST_ADDR", "SIMBRIDGE_GUEST_TOKEN", "SIMBRIDGE_GUEST_TOKEN_FILE"):
        env.pop(name, None)
    r = subprocess.run(
        [sys.executable, "-m", "simbridge._cli", "run", "T16", "--sim", "jsbsim", "--provider", "netns"]
        + ["--agent", "reference", "--out", str(tmp_path), "--frame-hz", "0"],
        capture_output=True,
        text=True,
        timeout=900,
        env=env,
    )
    assert r.returncode == 0, r.stderr[-3000:]
    assert "simbridge guest: host " in r.stderr and "authenticated" in r.stderr
    assert "simbridge guest: host 127.0.0.1" not in r.stderr  # reached across the sandbox's veth
    [bundle] = sorted(tmp_path.glob("*/trial-1"))
    ep = json.loads((bundle / "episode.json").read_text())
    score = json.loads((bundle / "score.json").read_text())
    assert ep["status"] == "completed" and ep["isolation"]["provider"] == "netns", ep.get("status_detail")
    assert score["status"] == "scored" and score["score"] == 1.0, score
