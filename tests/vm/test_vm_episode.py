"""A T09 (steep turn) episode inside the VM guest, through the runner's public entry point.

The embedded simulator runs in the guest; the agent acts from the host only through the agent
port (screenshots of the guest's display, arrow keys into it, over the forwarded X port); the
host-side adapter records the simulator's state out of the guest over the forwarded telnet
port (`tcp-stream`: the guest may send nothing to the host); the isolation audit runs inside
before the agent acts; the bundle is scored. Lockstep, because a software-emulated guest runs
the cockpit below real time.

Wall time on 2 shared cores under TCG: ~1.5 min boot + ~3-4 min episode (a screenshot of the
guest costs about a second). The time limit is cut to 150 s of simulator time (the turn takes
~55 s) so a pilot that never finishes cannot hold the suite up; it is recorded as a flag.
"""

from __future__ import annotations

import numpy as np
import pytest

from simbridge import load_task, read_bundle
from simbridge import score_bundle
from support.vm import guest_audit, run_in_vm

pytestmark = [pytest.mark.vm, pytest.mark.slow, pytest.mark.root]

TIME_LIMIT_S = 150.0


def _component(score, name):
    return next(c for c in score.components if c.name == name)


def _between(t, x, window):
    keep = (t >= window[0] - 1e-6) & (t <= window[1] + 1e-6)
    return x[keep]


def test_t09_in_the_guest_is_recorded_audited_and_scored(image, tmp_path):
    task = load_task("T09")
    res, wall = run_in_vm("T09", "py:vm.keyboard_pilot:make", tmp_path, time_limit_s=TIME_LIMIT_S, snapshot_at=[10.0])
    assert res.status == "completed", res.detail
    bundle = read_bundle(res.path)
    ep = bundle.episode

    # it ran in the guest, isolated, and the audit inside passed before the agent acted
    audit = guest_audit(ep)
    iso = ep.isolation
    assert iso["network"].endswith("restrict=on") and res.score.unisolated is False
    assert ep.agent_transport == "x11"  # the agent port's default: the guest's display over the forwarded X port
    assert audit["user"] == "simbridge-agent"
    probed = {(p["port"], p["proto"]) for p in audit["probes"]}
    assert {(5401, "tcp"), (500, "tcp"), (2048, "tcp")} <= probed  # the cockpit's state port + T09's lockdown
    assert all(p["result"] == "blocked" for p in audit["probes"])
    cockpit = [c for c in audit["x_clients"] if "simbridge.adapters.jsbsim.cockpit" in c["command"]]
    assert cockpit and all(c["allowed"] for c in cockpit)
    pidless = [c for c in audit["x_clients"] if c["pid"] is None]
    assert 1 <= len(pidless) == audit["host_x_connections"]  # the agent port's, from the host

    # the state came out of the guest over the forwarded telnet port, at the packet rate
    tel = ep.sim_info["telemetry"]
    assert tel["mode"] == "tcp-stream" and tel["bad_packets"] == 0
    t = bundle.signals.t
    dt = np.diff(t)
    assert ep.sample_rate_hz >= 50 and dt.min() > 0
    assert dt.max() <= task.max_sample_gap_s  # no gap the verifier would refuse
    assert not bundle.signals.missing(task.signals)

    # the agent acted only through the agent port, and its keys flew the aircraft in the guest
    assert {a["kind"] for a in bundle.actions} <= {"screenshot", "key", "wait", "done"}
    assert sum(a["kind"] == "key" for a in bundle.actions) >= 10
    bank = bundle.signals["bank_deg"]
    assert abs(bank[:30]).max() < 5 and bank.min() < -35
    assert (res.path / "snapshot_t10.png").exists()

    # the score is the verifier's judgement of this recorded trajectory
    score = res.score
    assert score.status == "scored", score.reason
    again = score_bundle(read_bundle(res.path), task)  # offline, from the bundle alone
    assert again.score == score.score and again.components == score.components
    alt, ias = bundle.signals["alt_msl_ft"], bundle.signals["ias_kt"]
    turn = _component(score, "bank_maintained")
    in_band = _between(t, -bank, turn.window)
    frac = float(np.mean((in_band >= 40) & (in_band <= 50)))
    assert turn.measured == pytest.approx(frac, abs=0.03)
    assert turn.earned == float(turn.measured >= 0.8)
    held = _component(score, "altitude_held")
    man_alt = _between(t, alt, held.window)
    assert held.measured == pytest.approx(float(np.abs(man_alt - man_alt[0]).max()), abs=0.2)
    assert held.earned == float(held.measured <= 100)
    speed = _component(score, "airspeed_held")
    man_ias = _between(t, ias, speed.window)
    assert speed.measured == pytest.approx(float(np.abs(man_ias - man_ias[0]).max()), abs=0.2)
    assert speed.earned == float(speed.measured <= 10)
    gate = 1.0 if all(s.ok for s in score.safety) else 0.0
    assert score.score == pytest.approx(gate * sum(c.points for c in score.components))
    # a 45° turn flown from the guest's pixels earns the bank credit at least
    assert turn.earned == 1.0 and score.score >= 0.3

    print(
        f"\nVM T09: boot {iso['boot_s']} s, run {wall:.0f} s wall ({ep.wall_run_s:.0f} s of it with the simulator "
        f"up, {t[-1]:.1f} s simulated), guest real-time factor {ep.real_time_factor}, {ep.frame_rate_hz:.1f} fps, "
        f"samples {ep.sample_rate_hz:.1f}/sim s ({tel.get('samples_per_wall_s')}/wall s), "
        f"score {score.score:.2f} {[(c.name, c.earned) for c in score.components]}"
    )
