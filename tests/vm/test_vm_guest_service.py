"""An episode in the VM guest whose agent port runs through the guest service.

`SIMBRIDGE_AGENT_TRANSPORT=guest` with `--provider vm`: the runner has the guest supervisor
start `simbridge guest` inside the guest (the simulator's user, the guest's display, the
per-episode token on its stdin over the supervisor's channel), QEMU forwards its port to the
host's loopback only, the isolation audit inside the guest finds the port closed to the agent's
user, and the reference agent's panel clicks on T16 (set the transponder) are grabbed and
clicked by mss and pyautogui inside the guest, in lockstep, and score as on the X11 path.

Wall time on 2 shared cores under TCG: ~1.5 min boot + the episode (see docs/guest-service.md).
"""

from __future__ import annotations

import re

import pytest

from simbridge import read_bundle
from simbridge._agent_port._transport import GUEST_PORT
from support.vm import guest_audit, run_in_vm

pytestmark = [pytest.mark.vm, pytest.mark.slow, pytest.mark.root]


def test_t16_by_clicks_through_the_guest_service_in_the_vm(image, tmp_path, monkeypatch):
    monkeypatch.setenv("SIMBRIDGE_AGENT_TRANSPORT", "guest")
    for name in ("SIMBRIDGE_GUEST_ADDR", "SIMBRIDGE_GUEST_TOKEN", "SIMBRIDGE_GUEST_TOKEN_FILE", "SIMBRIDGE_GUEST_ZLIB"):
        monkeypatch.delenv(name, raising=False)
    res, wall = run_in_vm("T16", "reference", tmp_path)
    assert res.status == "completed", res.detail
    bundle = read_bundle(res.path)
    ep = bundle.episode

    # the guest service served the agent port, from inside the guest
    assert ep.agent_transport == "guest"
    audit = guest_audit(ep)
    iso = ep.isolation
    # the service's own log (copied out of the guest): it listened in the guest and the host's
    # connection arrived through QEMU's forwarding (from the user-mode network's gateway)
    log = (res.path / "sandbox" / "guest-simbridge-guest.log").read_text()
    assert f"listening on 0.0.0.0:{GUEST_PORT}" in log, log[-2000:]
    assert re.search(r"host 10\.0\.2\.2:\d+ authenticated", log), log[-2000:]

    # the audit inside the guest: the service's port is closed to the agent's user, the service
    # is an X client the harness started, and its token is not on its command line
    probes = {(p["port"], p["proto"]): p["result"] for p in audit["probes"]}
    assert probes[(GUEST_PORT, "tcp")] == "blocked"
    service = [c for c in audit["x_clients"] if "simbridge._cli guest" in c["command"]]
    assert service and all(c["allowed"] for c in service)
    assert all("--token-stdin" in c["command"] and not re.search(r"[0-9a-f]{64}", c["command"]) for c in service)

    # the agent clicked the panel through pyautogui in the guest, and the task scored in full
    clicks = [a for a in bundle.actions if a["kind"] == "click"]
    assert len(clicks) >= 20 and not any("error" in a for a in clicks)
    score = res.score
    assert score.status == "scored", score.reason
    assert score.score == 1.0, [(c.name, c.earned, c.measured) for c in score.components]
    print(
        f"\nVM T16 through the guest service: boot {iso['boot_s']} s, run {wall:.0f} s wall "
        f"({ep.wall_run_s:.0f} s with the simulator up, {bundle.signals.t[-1]:.1f} s simulated), "
        f"{len(bundle.actions)} actions ({len(clicks)} clicks), score {score.score:.2f}"
    )
