"""A steady wind on the embedded JSBSim cockpit: the flight model carries the aircraft with the
air (drift east in a west wind, ground speed = true airspeed + the wind's components), calm air
is unchanged, a half-given wind is refused naming the field, and a POH trial's drawn wind is in
episode.json's variant and in the instruction the agent was given."""

from __future__ import annotations

import json
import math
import shutil
from pathlib import Path
from typing import Any

import pytest

from simbridge._task import load_task
from simbridge._taskspec import TaskSpec
from simbridge.primitives import latlon_to_local_m
from simbridge.adapters.jsbsim._scenario import KT_TO_FPS, from_task
from simbridge.adapters.jsbsim.cockpit._controls import Controls
from simbridge.adapters.jsbsim.cockpit._fdm import FlightModel

FT = 0.3048


def _task(base: str = "T09", **weather: Any) -> TaskSpec:
    """`base` flying due north (true) with `weather` merged into its initial state's weather."""
    data = load_task(base).model_dump(mode="json", exclude={"variant"})
    data["initial_state"]["heading_deg"] = 0.0
    data["initial_state"]["weather"] = {**data["initial_state"]["weather"], **weather}
    return TaskSpec.model_validate(data)


def _fly_north(task: TaskSpec, seconds: float = 60.0) -> dict[str, float]:
    """Hold 000° true on the autopilot (heading and altitude) for `seconds` of simulator time;
    the east/north displacement over the ground, the part of it the air-relative motion explains
    (true airspeed along the heading, integrated), and the largest ground-minus-air velocity
    difference seen in each axis."""
    c = Controls()
    m = FlightModel(from_task(task), c)
    f = m.fdm
    c.ap_on = c.ap_hdg = c.ap_alt = 1
    c.ap_hdg_bug_deg = round(m.heading_mag_deg)
    lat0, lon0 = f["position/lat-geod-deg"], f["position/long-gc-deg"]
    air_e = air_n = 0.0
    diff_e: list[float] = []
    diff_n: list[float] = []
    t_last = m.sim_time_s
    while m.sim_time_s < seconds:
        m.step()
        t = m.sim_time_s
        # the air-relative velocity from the air data: true airspeed along the flight path, whose
        # horizontal direction is the heading turned by the sideslip (flight-path angle ~0 here)
        tas = f["velocities/vtrue-fps"]
        course = math.radians(f["attitude/psi-deg"] + f["aero/beta-deg"])
        ae, an = tas * math.sin(course), tas * math.cos(course)
        air_e += ae * (t - t_last) * FT
        air_n += an * (t - t_last) * FT
        t_last = t
        if t > 2.0:
            diff_e.append(f["velocities/v-east-fps"] - ae)
            diff_n.append(f["velocities/v-north-fps"] - an)
    assert not m.crashed and not m.on_ground
    east, north = latlon_to_local_m(f["position/lat-geod-deg"], f["position/long-gc-deg"], lat0, lon0)
    return {
        "east_m": float(east),
        "north_m": float(north),
        "air_east_m": air_e,
        "air_north_m": air_n,
        "gs_minus_tas_east_fps": sum(diff_e) / len(diff_e),
        "gs_minus_tas_north_fps": sum(diff_n) / len(diff_n),
        "spread_east_fps": max(diff_e) - min(diff_e),
        "spread_north_fps": max(diff_n) - min(diff_n),
        "heading_true_deg": f["attitude/psi-deg"],
        "ias_kt": f["velocities/vc-kts"],
    }


def test_a_west_wind_carries_the_aircraft_east():
    seconds = 60.0
    wind_e_fps = 15 * KT_TO_FPS  # 270° at 15 kt: the air moves east at 25.3 ft/s
    r = _fly_north(_task(wind_dir_deg=270, wind_kt=15), seconds)
    # still heading north on the autopilot, at the trimmed airspeed (the air data are unchanged)
    assert abs((r["heading_true_deg"] + 180) % 360 - 180) < 3
    assert abs(r["ias_kt"] - 100) < 6
    # ground velocity = air-relative velocity + the wind: 25.3 ft/s east, none north; the
    # measured residual is under 0.1 ft/s (the integration's own error), the bound 1 ft/s
    assert r["gs_minus_tas_east_fps"] == pytest.approx(wind_e_fps, abs=1.0)
    assert r["gs_minus_tas_north_fps"] == pytest.approx(0.0, abs=1.0)
    assert r["spread_east_fps"] < 1.0 and r["spread_north_fps"] < 1.0  # a steady wind: no gusts
    # over the ground: the drift east is the wind's 15 kt x 60 s = 463 m beyond what the heading
    # explains (measured within a few metres; 30 m allowed)
    drift = r["east_m"] - r["air_east_m"]
    assert drift == pytest.approx(wind_e_fps * FT * seconds, abs=30.0)
    assert r["east_m"] > 300.0  # the track is east of north: the aircraft really moved east
    assert r["north_m"] - r["air_north_m"] == pytest.approx(0.0, abs=30.0)


def test_calm_air_no_drift():
    for weather in ({}, {"wind_dir_deg": 270, "wind_kt": 0}):
        r = _fly_north(_task(**weather), 30.0)
        assert r["gs_minus_tas_east_fps"] == pytest.approx(0.0, abs=0.5), weather
        assert r["gs_minus_tas_north_fps"] == pytest.approx(0.0, abs=0.5), weather
        assert r["east_m"] - r["air_east_m"] == pytest.approx(0.0, abs=15.0), weather


def test_calm_air_flies_exactly_as_without_a_wind_field():
    def trace(task: TaskSpec) -> list[tuple[float, ...]]:
        m = FlightModel(from_task(task), Controls())
        out = []
        for _ in range(5 * 120):
            m.step()
            f = m.fdm
            out.append((m.sim_time_s, f["position/lat-geod-deg"], f["position/long-gc-deg"], f["position/h-sl-ft"]))
        return out

    assert trace(_task(wind_dir_deg=120, wind_kt=0)) == trace(_task())


def test_the_scenario_carries_the_wind_and_refuses_half_a_wind():
    sc = from_task(_task(wind_dir_deg=270, wind_kt=15))
    assert (sc.wind_from_deg, sc.wind_kt) == (270.0, 15.0)
    assert sc.unsupported == []  # a wind alone is flown, not reported unsupported
    wn, we = sc.wind_ned_fps
    assert wn == pytest.approx(0.0, abs=1e-9) and we == pytest.approx(15 * KT_TO_FPS)
    wn, we = from_task(_task(wind_dir_deg=45, wind_kt=10)).wind_ned_fps  # from the north-east
    assert wn < 0 and we < 0 and wn == pytest.approx(we)
    with pytest.raises(ValueError, match=r"initial_state\.weather\.wind_dir_deg"):
        from_task(_task(wind_kt=10))
    with pytest.raises(ValueError, match=r"initial_state\.weather\.wind_kt"):
        from_task(_task(wind_dir_deg=200))
    assert from_task(_task(wind_kt=0)).wind_kt == 0.0  # no speed: calm, a direction not needed
    # what the cockpit still cannot fly is reported
    assert any("weather" in u for u in from_task(_task(visibility_sm=3)).unsupported)
    assert any("weather" in u for u in from_task(_task(preset="real")).unsupported)


def test_every_poh_task_draws_a_wind_and_tells_it():
    for n in range(1, 23):
        task = load_task(f"P{n:02d}")
        for seed in (1, 2, 3):
            t = task.drawn(seed)
            d, k = t.variant_value("wind_dir_deg"), t.variant_value("wind_kt")
            assert 0 <= d <= 359 and (d % 10 == 0 or d == 359) and 0 <= k <= 15 and k == int(k), (t.id, d, k)
            assert (t.initial_state.weather.wind_dir_deg, t.initial_state.weather.wind_kt) == (d, k)
            assert f"Wind {d:.0f}° at {k:.0f} kt." in t.instruction, t.id
            for text in t.instructions_by_sim.values():
                assert f"Wind {d:.0f}° at {k:.0f} kt." in text, t.id
            assert from_task(t).wind_kt == k


@pytest.mark.display
@pytest.mark.slow
@pytest.mark.skipif(shutil.which("Xvfb") is None, reason="Xvfb not installed")
def test_a_poh_trials_drawn_wind_is_in_the_episode_and_the_agents_instruction(tmp_path: Path):
    from support.runner import run_trial_cli

    seed = 2
    want = load_task("P03").drawn(seed)
    d, k = want.variant_value("wind_dir_deg"), want.variant_value("wind_kt")
    assert k > 0  # this seed draws a wind (6 kt from 060°)
    _, ep, bundle = run_trial_cli(
        "P03", "jsbsim", "noop", tmp_path, "--lockstep", "--seed", str(seed), "--time-limit", "5", rc=(0, 3)
    )
    assert ep["variant"]["seed"] == seed
    assert ep["variant"]["values"]["wind_dir_deg"] == d and ep["variant"]["values"]["wind_kt"] == k
    assert f"Wind {d:.0f}° at {k:.0f} kt." in ep["agent_brief"]["instruction"]
    assert ep["sim_info"]["unsupported"] == []  # the wind is flown, nothing reported unsupported
    snaps = json.loads((bundle / "snapshots.json").read_text())
    assert snaps["start"]["weather"] == {"preset": "wind", "wind_dir_deg": d, "wind_kt": k}
