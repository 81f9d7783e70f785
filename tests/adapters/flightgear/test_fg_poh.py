"""The POH tasks on the real FlightGear c172p where its systems model the failure: P13@PHJR and
P14@PHJR (vacuum pump failure, partial panel).

Unit part (no FlightGear): the failure and the signals the procedures read map to the c172p's
own properties, the variants load, validate and run on flightgear, and a POH task whose failure
the c172p does not model (P15's pitot blockage) is refused before FlightGear is launched.

Real part: ONE `simbridge run` of P14@PHJR with the do-nothing agent and a 9 s limit (about a minute
of wall time with the launch and the air start): the vacuum fails at its drawn time through FlightGear's
own failure manager (a `failure_injected` event, the suction falls to 0, the failure manager's
mode reads failed at the end) and the episode scores 0. No test flies a whole procedure on
FlightGear: there is no FlightGear pilot for the POH tasks yet.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from conftest import have_flightgear

from simbridge._adapter import Sandbox
from simbridge._bundle import read_bundle
from simbridge._errors import HarnessError
from simbridge._task import load_task
from simbridge.adapters.flightgear import FlightGearSession
from simbridge.adapters.flightgear._mapping import (
    FAILURE_MODES,
    FAILURE_PROPS,
    FAILURE_ROOT,
    RAW_CHUNKS,
    SIGNALS,
    CanonicalMapper,
    setup_state,
)
from simbridge.adapters.flightgear._session import launch_spec
from simbridge.adapters.kit import FailurePlan
from simbridge.adapters.kit.failures import draw_time

REPO = Path(__file__).resolve().parents[3]
VARIANTS = ("P13@PHJR", "P14@PHJR")


# ------------------------------------------------------------------------------- the mapping
def test_the_vacuum_failure_is_the_failure_managers_vacuum_mode():
    assert FAILURE_PROPS["vacuum"] == f"{FAILURE_ROOT}/systems/vacuum/serviceable"
    assert FAILURE_MODES["systems/vacuum"] == "mtbf"
    # the c172p overrides the pitot mode (its JSBSim switch drives /systems/pitot/serviceable)
    # and has no alternator-only failure: neither is offered as if it worked
    assert "pitot" not in FAILURE_PROPS and "alternator" not in FAILURE_PROPS


def test_pitot_heat_and_suction_come_from_the_c172ps_properties():
    chunks = {c.name: c for c in RAW_CHUNKS}
    assert chunks["pitot_heat"].node == "/controls/anti-ice/pitot-heat"
    assert chunks["suction_inhg"].node == "/systems/vacuum/suction-inhg"
    assert {"pitot_heat", "vacuum_inhg"} <= set(SIGNALS)
    m = CanonicalMapper()
    on = m({"pitot_heat": 1.0, "suction_inhg": 4.924})
    assert on["pitot_heat"] == 1.0 and on["vacuum_inhg"] == pytest.approx(4.924)
    off = m({"pitot_heat": 0.0, "suction_inhg": 0.0})
    assert off["pitot_heat"] == 0.0 and off["vacuum_inhg"] == 0.0
    # a stream without the chunk: no reading, not a made-up one
    assert np.isnan(m({})["vacuum_inhg"])


def test_the_setup_snapshot_reports_the_failed_vacuum_mode():
    state = setup_state({"fail:systems/vacuum:serviceable": "false", "fail:systems/vacuum:mtbf": "0"})
    assert {"system": "vacuum", "trigger": {"kind": "inoperative"}, "failed": True, "mode": "systems/vacuum"} in state[
        "failures"
    ]


# ------------------------------------------------------------------------------- the variants
@pytest.mark.parametrize("task_id", VARIANTS)
def test_the_variant_runs_on_flightgear_with_its_base_tasks_verifier(task_id: str):
    task = load_task(task_id)
    base = load_task(task_id.split("@")[0])
    assert "flightgear" in task.simulator.alternatives
    assert task.verifier.name == base.verifier.name
    assert [c.model_dump() for c in task.partial_credit] == [c.model_dump() for c in base.partial_credit]
    assert [v.name for v in task.variants] == [v.name for v in base.variants]
    # the failure is one the adapter injects, and it streams every signal the verifier reads
    assert FailurePlan.from_task(task, 1, FAILURE_PROPS).unsupported == []
    assert set(task.signals) <= set(FlightGearSession.signals)
    for seed in (1, 2, 3):
        drawn = task.drawn(seed)
        text = drawn.instruction_for("flightgear")
        values = drawn.variant["values"]
        assert "c172p" in text and "{" not in text and "suction gauge" in text
        assert f"heading {values['new_heading_deg']}° (magnetic)" in text
        assert f"Wind {values['wind_dir_deg']:.0f}° at {values['wind_kt']:.0f} kt." in text
        spec = launch_spec(drawn)
        assert not spec.on_ground and spec.aircraft == "c172p"
        assert (spec.lat_deg, spec.lon_deg) == (21.2, -158.07)
        assert spec.alt_ft == values["alt_msl_ft"] and spec.heading_deg == values["heading_deg"]
        assert spec.wind == (values["wind_dir_deg"], values["wind_kt"])


def test_the_variants_validate_on_the_command_line():
    paths = [str(REPO / "tasks" / f"{t}.yaml") for t in VARIANTS]
    for p in paths:
        r = subprocess.run(
            [sys.executable, "-m", "simbridge._cli", "tasks", "validate", p],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert r.returncode == 0 and "1 valid, 0 invalid" in r.stdout, r.stdout + r.stderr


def test_a_poh_task_whose_failure_the_c172p_does_not_model_is_refused_before_launch(tmp_path: Path):
    s = FlightGearSession()
    with pytest.raises(HarnessError, match="failure of 'pitot'"):
        s.start(load_task("P15"), Sandbox(display=":0", env={}, workdir=str(tmp_path)), seed=1)
    assert s.fg is None


# ------------------------------------------------------------------------------- FlightGear
@pytest.mark.flightgear
@pytest.mark.slow
@pytest.mark.display
@pytest.mark.skipif(not have_flightgear(), reason="needs FlightGear (apt-get install flightgear) and Xvfb")
def test_p14_phjr_do_nothing_the_vacuum_fails_at_its_drawn_time_and_scores_0(tmp_path: Path):
    from support.runner import run_trial_cli

    task_id, seed = "P14@PHJR", 3
    t_due = draw_time(task_id, seed, "vacuum", 5, 20)
    assert t_due < 7.0  # this seed draws an early failure (6.0 s), inside the 9 s limit
    score, ep, bundle = run_trial_cli(
        task_id, "flightgear", "noop", tmp_path, "--seed", str(seed), "--time-limit", "9", rc=3, timeout=600
    )
    assert ep["sim"] == "flightgear" and "c172p" in ep["agent_brief"]["instruction"]
    assert ep["variant"]["values"] == load_task(task_id).drawn(seed).variant["values"]
    b = read_bundle(bundle)
    [ev] = b.events_of("failure_injected")
    assert ev.data["system"] == "vacuum" and ev.data["property"] == FAILURE_PROPS["vacuum"]
    assert ev.data["after_s"] == t_due
    # injected on the first sample at or after the drawn simulator time
    assert t_due <= ev.t <= t_due + load_task(task_id).max_sample_gap_s
    t, suction = b.signals.t, b.signals.get("vacuum_inhg")
    assert np.all(suction[t < ev.t] > 3.0)  # the engine-driven pump in the green before
    after = t >= ev.t + 0.5  # one frame for FlightGear's vacuum system to update
    assert after.sum() >= 5 and np.all(suction[after] == 0.0)
    end_failures = b.snapshot("end", "failures")
    assert {"system": "vacuum", "trigger": {"kind": "inoperative"}, "failed": True, "mode": "systems/vacuum"} in (
        end_failures
    )
    assert b.snapshot("start", "failures") == []
    assert score["status"] == "scored" and score["score"] == 0.0 and score["success"] is False, score["explanation"]
    earned = {c["name"]: c["earned"] for c in score["components"]}
    assert earned["checklist"] == 0.0 and earned["final_state"] == 0.0
