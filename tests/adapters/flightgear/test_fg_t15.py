"""T15 on the real FlightGear through `simbridge run`: the reference pilot (GUI only) sets the
payload in the Fuel and Payload dialog, plans the fuel from the weights the dialog shows, and
writes answer.json into the agent's folder.

Two episodes (one FlightGear launch each): the reference pilot earns full credit; the same
pilot with full tanks puts the aircraft over 2,450 lb, which fails the instruction's limit (the
envelope item, primary: score 0, the other items still earned in the raw score). As root the second
episode runs in the netns sandbox: FlightGear's telnet listens on every interface there, and
the audit shows the firewall keeping the agent's side off it while the harness reads it. The agent reads its
answer off the dialog (gross weight and CG as FlightGear shows them); the verifier recomputes
both from the end loading it reads over telnet, so full credit also checks that the dialog,
the flight model and the task's mass-and-balance data agree.
"""

from __future__ import annotations

import json
import os

import pytest
from conftest import have_flightgear

from simbridge._bundle import read_bundle
from simbridge.episode import RunConfig, run

pytestmark = [
    pytest.mark.flightgear,
    pytest.mark.slow,
    pytest.mark.display,
    pytest.mark.skipif(not have_flightgear(), reason="needs FlightGear (apt-get install flightgear) and Xvfb"),
]


def _netns_usable() -> bool:
    if os.geteuid() != 0:
        return False
    try:
        from simbridge._isolation import sandbox_python

        sandbox_python()
        return True
    except Exception:
        return False


def _episode(tmp_path, agent: str, provider: str = "local"):
    [result] = run(
        RunConfig(
            task="T15",
            sim="flightgear",
            agent=agent,
            out=tmp_path / "runs",
            frame_hz=0.2,
            say=lambda s: None,
            provider=provider,
        )
    )
    bundle = read_bundle(result.path)
    return result, bundle


def _components(score) -> dict[str, float]:
    return {c.name: c.earned for c in score.components}


def _actions(path) -> list[dict]:
    return [json.loads(line) for line in (path / "actions.jsonl").read_text().splitlines() if line.strip()]


def test_dialog_loading_and_answer_earn_full_credit(tmp_path):
    result, bundle = _episode(tmp_path, "reference")
    assert result.status == "completed", (result.status, result.detail)
    end = bundle.snapshots["end"]
    pay = end["payload"]
    # the agent moved the sliders: the property tree holds the task's loading (±2 lb, slider steps)
    assert pay["pilot_lb"] == pytest.approx(180, abs=2) and pay["copilot_lb"] == pytest.approx(160, abs=2)
    assert sorted([pay["rear_left_lb"], pay["rear_right_lb"]]) == pytest.approx([175, 190], abs=2)
    assert pay["baggage_lb"] == pytest.approx(60, abs=2)
    # fuel planned up to 2,450 lb less the pilot's 12 lb margin: 2,438 ± one slider step a tank
    assert 2428 <= 1467 + sum(pay.values()) + sum(end["fuel_lb"]) <= 2450
    # answer.json came from the agent's folder into the end snapshot and stays in the bundle
    assert set(end["answer"]) == {"weight_lb", "cg_in"}
    assert json.loads((result.path / "home" / "answer.json").read_text()) == end["answer"]
    assert (result.path / "home" / "input" / "load.json").exists()
    s = result.score
    assert s is not None and s.status == "scored", s
    assert _components(s) == {"payload_entered": 1.0, "within_envelope": 1.0, "answer_correct": 1.0}, s.explanation
    assert s.score == pytest.approx(1.0) and s.success
    # GUI only: the agent's actions are its brief (the reference agent reads which simulator it
    # flies), screenshots, F9, pointer input and its own files
    kinds = {a["kind"] for a in _actions(result.path)}
    assert kinds <= {
        "task",
        "screenshot",
        "key",
        "mouse_move",
        "mouse_down",
        "mouse_up",
        "wait",
        "read_file",
        "write_file",
        "done",
    }, kinds
    assert {a["args"]["keys"] for a in _actions(result.path) if a["kind"] == "key"} == {"F9"}


def test_full_tanks_fail_the_weight_limit(tmp_path):
    provider = "netns" if _netns_usable() else "local"
    result, bundle = _episode(tmp_path, "py:t15_agents:full_tanks", provider)
    assert result.status == "completed", (result.status, result.detail)
    if provider == "netns":
        ep = bundle.episode
        assert ep.unisolated is False and result.score.unisolated is False
        audit = ep.isolation["audit"]
        telnet = [p for p in audit["probes"] if p["port"] in (5401, 5480)]
        assert audit["ok"] and telnet and all(p["result"] == "blocked" for p in telnet), telnet
        assert {p["addr"] for p in telnet} >= {"127.0.0.1", ep.isolation["sandbox_addr"]}
        assert ep.sim_info["flightgear"]["telnet_port"] == 5401
    end = bundle.snapshots["end"]
    assert sum(end["fuel_lb"]) > 250  # both tanks (nearly) full
    s = result.score
    assert _components(s) == {"payload_entered": 1.0, "within_envelope": 0.0, "answer_correct": 1.0}, s.explanation
    assert s.score == 0.0 and s.raw_score == pytest.approx(0.70) and not s.success
