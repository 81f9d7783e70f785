"""POH tasks P01-P22 (the shared checklist verifier, verifiers/poh.py): for every task a full
fixture (1.0, success), a do-nothing trace and an immediate `done` (both 0, no success), as
AeroCopilotBench validates its tasks; hand-worked partial and failing fixtures for several
procedures. Weights of every POH task: control 0.25 (binary), checklist 0.35 (linear, the
fraction of the POH steps), final_state 0.40 (binary, primary: 0 there zeroes the score)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from poh_synth import Trace, failure_event, runway_middle
from simbridge._task import load_task
from synth import assert_rate_invariant, score_task, with_gap, without_signal
from synth import component as comp

IDS = [f"P{i:02d}" for i in range(1, 23)]
SEED = 11
TASKS = {i: load_task(i) for i in IDS}
VAR = 13.0  # KHAF magnetic variation east (the vacuum tasks' headings are magnetic)


def drawn(tid: str) -> dict[str, Any]:
    return TASKS[tid].drawn(SEED).variant or {}


def values(tid: str) -> dict[str, Any]:
    return drawn(tid)["values"]


def score(tmp, tid: str, tr: Trace | dict, events=(), runway: bool = False, **kw):
    cols = tr if isinstance(tr, dict) else tr.columns(runway_middle() if runway else None)
    return score_task(tmp, TASKS[tid], cols, events=list(events), seed=SEED, variant=drawn(tid), **kw)


LANDING_ON_RUNWAY = {"P08", "P12", "P17", "P20", "P21"}


# ------------------------------------------------------------------ full-credit traces


def _cruise(tid: str, duration: float = 200.0, **kw: Any) -> Trace:
    v = values(tid)
    return Trace(
        duration, alt_msl_ft=float(v.get("alt_msl_ft", 4000)), heading_deg=float(v.get("heading_deg", 90)), **kw
    )


def _final(duration: float, ias: float = 75.0, alt_agl: float = 1500.0, vs: float = -450.0) -> Trace:
    tr = Trace(duration, alt_msl_ft=alt_agl + 66.0, ias_kt=ias, heading_deg=317.0)
    tr.at(0, throttle=0.3, engine_rpm=1900)
    return tr.glide(0, ias_kt=ias, vs_fpm=vs)


def _rollout(tr: Trace, stop_after_s: float = 15.0) -> Trace:
    on = np.flatnonzero(tr.cols["on_ground"] > 0.5)
    assert on.size, "the synthetic glide never reached the ground"
    t_td = float(tr.t[on[0]])
    roll = tr.t >= t_td
    frac = np.clip((tr.t[roll] - t_td) / stop_after_s, 0.0, 1.0)
    speed0 = tr.cols["ias_kt"][on[0]]
    tr.cols["ias_kt"][roll] = speed0 * (1 - frac)
    tr.cols["gs_kt"][roll] = speed0 * (1 - frac)
    tr.cols["pitch_deg"][roll] = 0.0
    return tr


def _dev(tr: Trace, dev: dict[str, Any], t: float = 0.0) -> None:
    enc = {
        "fuel_selector": {"off": 0, "left": 1, "right": 2, "both": 3},
        "magnetos": {"off": 0, "right": 1, "left": 2, "both": 3},
    }
    for k, val in dev.items():
        if k in ("fuel_left_gal", "fuel_right_gal"):
            continue
        tr.at(t, **{k: enc[k][val] if k in enc else val})


def good(tid: str) -> tuple[Trace, list[dict]]:
    v = values(tid)
    if tid == "P01":  # the deviation stops the engine at 5 s; restart by 25 s
        tr = _cruise(tid, ias_kt=90)
        _dev(tr, v["deviation"])
        tr.engine_stops(5).glide(6, 68, -600, 30).at(20, fuel_selector=3, mixture=1.0, magnetos=3)
        tr.at(25, engine_running=1, engine_rpm=2400).glide(30, 90, 0)
        return tr, []
    if tid == "P02":
        tr = _cruise(tid, ias_kt=90).at(0, fuel_selector=1 if v["dry_tank"] == "left" else 2)
        tr.engine_stops(31).glide(32, 68, -600, 50).at(40, fuel_selector=3).at(45, engine_running=1, engine_rpm=2400)
        return tr.glide(50, 90, 0), [failure_event(30.0, "fuel_empty_tank")]
    if tid == "P03":
        tr = _cruise(tid)
        _dev(tr, v["dry_tank"])
        return tr.at(20, fuel_selector=3), []
    if tid == "P04":  # climbing through 600 ft AGL on runway heading when the engine fails
        tr = Trace(120, alt_msl_ft=666.0, ias_kt=75, heading_deg=317.0).at(
            0, throttle=1.0, flaps_deg=v["takeoff_flaps"]
        )
        tr.glide(0, 75, 500, 10).glide(10.1, 65, -600)
        tr.engine_stops(10).at(15, mixture=0.0).at(16, fuel_selector=0).at(17, magnetos=0).at(
            18, master_bat=0, master_alt=0
        )
        return _rollout(tr), [failure_event(10.0, "engine", agl_ft=683.0)]
    if tid == "P05":
        tr = _cruise(tid, duration=480, ias_kt=95).engine_stops(20).glide(21, 68, -600)
        tr.at(30, mixture=0.0).at(31, fuel_selector=0).at(32, magnetos=0).at(33, master_bat=0, master_alt=0)
        return _rollout(tr), [failure_event(20.0, "engine")]
    if tid == "P06":
        tr = _cruise(tid, duration=600, ias_kt=95)
        _dev(tr, v["deviation"])
        tr.engine_stops(20).glide(21, 68, -600)
        tr.at(25, fuel_selector=3).at(26, mixture=1.0).at(27, magnetos=3)
        tr.at(60, mixture=0.0).at(61, fuel_selector=0).at(62, magnetos=0).at(63, master_bat=0, master_alt=0)
        return _rollout(tr), [failure_event(20.0, "engine")]
    if tid == "P07":
        tr = _cruise(tid).at(30, engine_rpm=2200).at(40, magnetos=2, engine_rpm=0, engine_running=0)
        tr.at(43, magnetos=1, engine_rpm=2325, engine_running=1)
        ev = failure_event(
            30.0, "engine_rough", property="/sim/failure-manager/engines/engine/magneto-left/serviceable"
        )
        return tr, [ev]
    if tid == "P08":
        tr = _final(300).at(10, engine_rpm=1750).at(20, magnetos=1).at(25, magnetos=2).at(30, magnetos=1)
        ev = failure_event(
            10.0, "engine_rough", property="/sim/failure-manager/engines/engine/magneto-left/serviceable"
        )
        return _rollout(tr), [ev]
    if tid in ("P09", "P10"):
        tr = _cruise(tid, ias_kt=90 if tid == "P10" else 100).at(0, throttle=0.65 if tid == "P09" else 0.3)
        if tid == "P10":
            tr.glide(0, 90, -500, 20).glide(20.1, 90, 0)
        tr.at(15, engine_rpm=2000).at(25, carb_heat=1).at(26, throttle=1.0).at(80, engine_rpm=2400)
        return tr, [failure_event(10.0, "carb_ice")]
    if tid in ("P11", "P12"):
        tr = _cruise(tid, duration=300) if tid == "P11" else _final(300)
        tr.at(0, pitot_heat=1, avionics=1).at(40, avionics=0).at(45, master_bat=0, master_alt=0)
        tr.at(50, master_bat=1, master_alt=1).at(60, master_alt=0).at(65, pitot_heat=0)
        if tid == "P12":
            _rollout(tr)
        return tr, [failure_event(30.0, "alternator")]
    if tid == "P13":
        tr = _cruise(tid).turn(40, 70, v["new_heading_deg"] + VAR)
        return tr, [failure_event(20.0, "vacuum")]
    if tid == "P14":
        tr = _cruise(tid, duration=300).turn(30, 60, v["new_heading_deg"] + VAR)
        drop = float(v["alt_msl_ft"]) - (float(v["target_agl_ft"]) + 66.0)
        tr.climb(60, -1000.0, 60 + drop / 1000.0 * 60.0)
        return tr, [failure_event(20.0, "vacuum")]
    if tid == "P15":
        return _cruise(tid).at(40, pitot_heat=1), [failure_event(30.0, "pitot")]
    if tid == "P16":
        tr = _cruise(tid, duration=400, ias_kt=75).at(0, throttle=1.0)
        climb = float(v["target_agl_ft"]) + 66.0 - float(v["alt_msl_ft"])
        tr.climb(0, 700.0, climb / 700.0 * 60.0).at(25, pitot_heat=1)
        return tr, [failure_event(15.0, "pitot")]
    if tid == "P17":
        tr = _final(300, ias=70, vs=-400).at(0, flaps_deg=v["stuck_flaps_deg"])
        return _rollout(tr), [failure_event(1.0, "flaps")]
    if tid == "P18":
        tr = Trace(200, alt_msl_ft=700.0, ias_kt=65, heading_deg=317).at(0, flaps_deg=30, throttle=0.25)
        tr.glide(0, 65, -400, 5).at(5, throttle=1.0, engine_rpm=2450)
        tr.climb(6, 500.0, 6 + (float(v["target_agl_ft"]) + 66.0 - 667.0) / 500.0 * 60.0)
        return tr, [failure_event(0.0, "flaps")]
    if tid == "P19":
        tr = _cruise(tid).at(0, pitot_heat=1, avionics=1).at(30, smoke=1).at(35, master_bat=0, master_alt=0)
        tr.at(40, avionics=0).at(45, pitot_heat=0).at(55, smoke=0).at(60, cabin_air=1)
        return tr, [failure_event(30.0, "electrical_fire")]
    if tid == "P20":
        tr = _final(300).at(10, smoke=1).at(15, master_bat=0, master_alt=0).at(20, avionics=0).at(35, smoke=0)
        return _rollout(tr), [failure_event(10.0, "electrical_fire")]
    if tid == "P21":
        return _rollout(_final(300, ias=80)), [failure_event(10.0, "door")]
    if tid == "P22":
        tr = _cruise(tid, duration=300, ias_kt=120).at(10, smoke=1).at(15, throttle=0.0, engine_rpm=1000)
        tr.at(16, master_bat=0, master_alt=0).at(40, smoke=0)
        drop = float(v["alt_msl_ft"]) - (float(v["target_agl_ft"]) + 66.0)
        tr.climb(17, -2000.0, 17 + drop / 2000.0 * 60.0)
        return tr, [failure_event(10.0, "electrical_fire")]
    raise KeyError(tid)


def nothing(tid: str) -> tuple[Trace, list[dict]]:
    """The failure happens (at 30 s) and nobody touches anything; the systems do what they do."""
    v = values(tid)
    st = TASKS[tid].drawn(SEED).initial_state
    if tid == "P04":  # the aircraft sits on the runway, engine running: it never climbs to the failure
        tr = Trace(200, alt_msl_ft=66.0, ias_kt=0.0, heading_deg=317.0).at(0, on_ground=1)
        return tr, []
    if tid == "P18":  # flaps 30, low power on short final: the aircraft descends onto the ground
        tr = Trace(200, alt_msl_ft=700.0, ias_kt=65, heading_deg=317).at(0, flaps_deg=30, throttle=0.25)
        return _rollout(tr.glide(0, 65, -400)), [failure_event(0.0, "flaps")]
    landing = tid in LANDING_ON_RUNWAY
    tr = _final(200) if landing else _cruise(tid)
    if st.configuration is not None:
        _dev(tr, st.configuration.keys())
    system = st.failures[0].system if st.failures else None
    if tid == "P01":
        tr.engine_stops(3)
    if tid == "P03":
        tr.engine_stops(150)
    if system in ("engine", "fuel_empty_tank"):
        tr.engine_stops(30)
    if system == "electrical_fire":
        tr.at(30, smoke=1)
    if system == "engine_rough":
        tr.at(30, engine_rpm=2200)
    del v
    detail = (
        {"property": "/sim/failure-manager/engines/engine/magneto-left/serviceable"} if system == "engine_rough" else {}
    )
    return tr, ([failure_event(30.0, system, **detail)] if system else [])


@pytest.mark.parametrize("tid", IDS)
def test_full_procedure_scores_one(tmp_path, tid):
    tr, ev = good(tid)
    s = score(tmp_path, tid, tr, ev, runway=tid in LANDING_ON_RUNWAY)
    assert s.status == "scored", s.reason
    assert s.score == pytest.approx(1.0), (s.explanation, [(c.name, c.earned, c.measured) for c in s.components])
    assert s.success is True


@pytest.mark.parametrize("tid", IDS)
def test_do_nothing_scores_zero(tmp_path, tid):
    tr, ev = nothing(tid)
    s = score(tmp_path, tid, tr, ev, runway=tid in LANDING_ON_RUNWAY)
    assert s.status == "scored", s.reason
    assert s.score == 0.0 and s.success is False
    assert comp(s, "final_state").earned == 0.0


@pytest.mark.parametrize("tid", IDS)
def test_immediate_done_scores_zero(tmp_path, tid):
    # the agent calls done at once: the first half second of the do-nothing trace, with the
    # events recorded by then (no failure yet, or P18's flaps failed from the start)
    tr, ev = nothing(tid)
    cols = {k: v[:6] for k, v in tr.columns().items()}
    s = score(tmp_path, tid, cols, [e for e in ev if e["t"] <= cols["t"][-1]], status="agent_quit")
    assert s.status == "scored", s.reason
    assert s.score == 0.0 and s.success is False


# ------------------------------------------------------------------ hand-worked partial and failing


def test_restart_without_mixture_rich_loses_a_step_and_the_goal(tmp_path):
    # P01 with the mixture deviation drawn? force the selector-off case: the agent sets BOTH and
    # the magnetos but leaves the mixture at cut-off... the engine cannot run: final state 0 -> 0
    tr, ev = good("P01")
    tr.at(20, mixture=0.0).at(25, engine_running=0, engine_rpm=0)
    s = score(tmp_path, "P01", tr, ev)
    assert comp(s, "final_state").earned == 0.0 and s.score == 0.0


def test_restart_slow_glide_loses_control_only(tmp_path):
    # the engine-out glide flown at 80 KIAS (outside 63-75) until the restart at 45 s: loses
    # control (0.25) and the airspeed step (1 of 4): 0.35 * 3/4 + 0.40 = 0.6625
    tr, ev = good("P02")
    tr.glide(32, 80, -600, 50).glide(50, 90, 0)
    s = score(tmp_path, "P02", tr, ev)
    assert s.score == pytest.approx(0.6625) and s.success is False
    assert comp(s, "control").earned == 0.0


def test_low_volts_out_of_order_loses_the_order(tmp_path):
    # P11: ALT OFF first (at 38 s, avionics already off at 36), then the reset cycle and load shed:
    # in order only avionics OFF, master OFF, master ON, pitot heat OFF count = 4/5 of the steps,
    # and the final ALT-OFF goal fails (ALT back on by the reset): final state 0 -> primary -> 0
    tr = _cruise("P11", duration=300).at(0, pitot_heat=1, avionics=1).at(36, avionics=0).at(38, master_alt=0)
    tr.at(45, master_bat=0).at(50, master_bat=1, master_alt=1).at(65, pitot_heat=0)
    s = score(tmp_path, "P11", tr, [failure_event(30.0, "alternator")])
    assert comp(s, "checklist").earned == pytest.approx(4 / 5)
    assert comp(s, "final_state").earned == 0.0 and s.score == 0.0


def test_low_volts_without_load_shed_is_partial_then_zero(tmp_path):
    # P11 with pitot heat left on: the last step (1 of 5) missing -> checklist 0.8; the final
    # state needs pitot heat OFF -> 0 (primary)
    tr, ev = good("P11")
    tr.at(65, pitot_heat=1)
    s = score(tmp_path, "P11", tr, ev)
    assert comp(s, "checklist").earned == pytest.approx(0.8)
    assert s.score == 0.0


def test_master_cycled_with_avionics_on_violates(tmp_path):
    # P11: the master cycled at 45/50 s with the avionics still on -> avionics_off_for_master violated -> 0
    tr, ev = good("P11")
    tr.at(40, avionics=1).at(55, avionics=0)
    s = score(tmp_path, "P11", tr, ev)
    assert s.score == 0.0 and s.status == "scored"
    assert any(x.name == "avionics_off_for_master" and not x.ok for x in s.safety)


def test_electrical_fire_master_back_on_violates(tmp_path):
    # P19: master switched on again at 70 s (and the smoke comes back) -> master_stays_off violated -> 0
    tr, ev = good("P19")
    tr.at(70, master_bat=1, smoke=1)
    s = score(tmp_path, "P19", tr, ev)
    assert s.score == 0.0
    assert [x.name for x in s.safety if not x.ok] == ["master_stays_off"]


def test_electrical_fire_vents_opened_too_early(tmp_path):
    # P19: cabin air opened at 32 s (before the master is off) and kept open: in the POH's order
    # step 2 (vents CLOSED after the master OFF) never happens; step 5 (vents open once the
    # smoke is gone) does -> checklist 4/5; final state holds -> 0.25 + 0.35*0.8 + 0.40 = 0.93
    tr, ev = good("P19")
    tr.at(32, cabin_air=1)
    s = score(tmp_path, "P19", tr, ev)
    assert comp(s, "checklist").earned == pytest.approx(0.8)
    assert s.score == pytest.approx(0.25 + 0.35 * 0.8 + 0.40) and s.success is False


def test_magneto_on_the_failed_side_fails(tmp_path):
    # P07: ends on L, the failed magneto: the final-state goal fails -> 0
    tr, ev = good("P07")
    tr.at(43, magnetos=2)
    s = score(tmp_path, "P07", tr, ev)
    assert comp(s, "final_state").earned == 0.0 and s.score == 0.0


def test_magneto_check_skipping_l_is_partial(tmp_path):
    # P07 when the RIGHT magneto failed: going straight to L (the good one) without checking R
    # misses 1 of 3 steps -> 0.25 + 0.35 * 2/3 + 0.40
    tr = _cruise("P07").at(30, engine_rpm=2200).at(40, magnetos=2, engine_rpm=2325)
    ev = failure_event(30.0, "engine_rough", property="/sim/failure-manager/engines/engine/magneto-right/serviceable")
    s = score(tmp_path, "P07", tr, [ev])
    assert s.score == pytest.approx(0.25 + 0.35 * 2 / 3 + 0.40)


def test_efato_turn_back_violates(tmp_path):
    # P04: a 180° turn back toward the runway while airborne -> no_turn_back violated -> 0
    tr, ev = good("P04")
    tr.turn(20, 40, 137.0)
    s = score(tmp_path, "P04", tr, ev)
    assert s.score == 0.0
    assert any(x.name == "no_turn_back" and not x.ok for x in s.safety)


def test_forced_landing_crash_is_not_survivable(tmp_path):
    # P05: the crash flag at the touchdown: final state 0 -> 0
    tr, ev = good("P05")
    on = float(tr.t[np.flatnonzero(tr.cols["on_ground"] > 0.5)[0]])
    tr.at(on, crashed=1)
    s = score(tmp_path, "P05", tr, ev)
    assert s.score == 0.0 and "crash" in comp(s, "final_state").measured


def test_stall_is_a_hard_constraint(tmp_path):
    # P15: IAS 45 KIAS clean at 4,000 ft for 3 s -> no_stall violated -> 0
    tr, ev = good("P15")
    tr.cols["ias_kt"][(tr.t >= 100) & (tr.t < 103)] = 45.0
    s = score(tmp_path, "P15", tr, ev)
    assert s.score == 0.0 and [x.name for x in s.safety if not x.ok] == ["no_stall"]


def test_vne_is_a_hard_constraint(tmp_path):
    # P22: 170 KIAS in the emergency descent -> vne violated -> 0
    tr, ev = good("P22")
    tr.cols["ias_kt"][(tr.t >= 30) & (tr.t < 35)] = 170.0
    s = score(tmp_path, "P22", tr, ev)
    assert s.score == 0.0 and "vne" in [x.name for x in s.safety if not x.ok]


def test_vacuum_heading_is_magnetic(tmp_path):
    # P13 flown to the drawn heading taken as TRUE (13° short): outside ±10° -> the turn step and
    # the final heading goal fail -> checklist 0, final state 0 -> 0
    v = values("P13")
    tr = _cruise("P13").turn(40, 70, v["new_heading_deg"])
    s = score(tmp_path, "P13", tr, [failure_event(20.0, "vacuum")])
    assert comp(s, "checklist").earned == 0.0 and s.score == 0.0


def test_no_restart_no_flaps_landing_on_grass_fails_runway(tmp_path):
    # P17 stopped 2 km from the runway: not on runway 30 -> final state 0 -> 0
    tr, ev = good("P17")
    s = score_task(tmp_path, TASKS["P17"], tr.columns((37.53, -122.52)), events=ev, seed=SEED, variant=drawn("P17"))
    assert s.score == 0.0 and "off runway" in comp(s, "final_state").measured


@pytest.mark.parametrize("tid", sorted(LANDING_ON_RUNWAY))
def test_a_runway_excursion_on_the_roll_out_fails_though_it_stops_on_the_runway(tmp_path, tid):
    # rolled 30 m right of the centreline of the 46 m runway for 3 s (the grass beside it), back
    # on the runway and stopped on it: a runway excursion, not the landing asked -> final state 0
    tr, ev = good(tid)
    cols = tr.columns(runway_middle())
    t_td = float(tr.t[np.flatnonzero(tr.cols["on_ground"] > 0.5)[0]])
    lat0 = cols["lat_deg"][0]
    right = np.radians(317.0 + 90.0)  # runway 30's true heading plus 90°
    off = (tr.t >= t_td + 2.0) & (tr.t < t_td + 5.0)
    cols["lat_deg"][off] += 30.0 * np.cos(right) / 111_320.0
    cols["lon_deg"][off] += 30.0 * np.sin(right) / (111_320.0 * np.cos(np.radians(lat0)))
    s = score(tmp_path, tid, cols, ev)
    assert s.score == 0.0 and "left runway 30 on the roll-out" in comp(s, "final_state").measured
    assert score(tmp_path / "kept", tid, tr, ev, runway=True).score == 1.0  # the same landing kept on it


def test_missing_signal_is_unscored(tmp_path):
    tr, ev = good("P19")
    s = score_task(
        tmp_path, TASKS["P19"], without_signal(tr.columns(), "smoke"), events=ev, seed=SEED, variant=drawn("P19")
    )
    assert s.status == "unscored" and "smoke" in s.reason


def test_gap_in_the_final_state_is_unscored(tmp_path):
    tr, ev = good("P15")
    s = score_task(
        tmp_path, TASKS["P15"], with_gap(tr.columns(), 193.0, 197.0), events=ev, seed=SEED, variant=drawn("P15")
    )
    assert s.status == "unscored"


def test_no_failure_event_after_the_trigger_is_a_harness_fault(tmp_path):
    # P15's pitot failure is drawn in 10-40 s; a 200 s recording without the event: unscored
    tr, _ = good("P15")
    s = score(tmp_path, "P15", tr, ())
    assert s.status == "unscored" and "harness fault" in s.reason


def test_values_redrawn_from_the_seed_without_the_record(tmp_path):
    # a bundle without episode.json variant: the values are drawn again from its seed -> same score
    tr, ev = good("P13")
    s = score_task(tmp_path, TASKS["P13"], tr.columns(), events=ev, seed=SEED)
    assert s.score == pytest.approx(1.0)


def test_rate_invariant(tmp_path):
    tr, ev = good("P19")
    assert_rate_invariant(tmp_path, TASKS["P19"], tr.columns(), events=ev, seed=SEED, variant=drawn("P19"))


def test_failure_the_simulator_cannot_inject_is_unscored(tmp_path):
    # the session reported the task's failure unsupported: the episode ran another task -> unscored
    tr, ev = good("P15")
    s = score(tmp_path, "P15", tr, ev, sim_info={"unsupported": ["failure of 'pitot'"]})
    assert s.status == "unscored" and "failure of 'pitot'" in s.reason
