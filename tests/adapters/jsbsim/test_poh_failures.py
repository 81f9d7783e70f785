"""The C172 systems' failures on the real cockpit process, in lockstep: each injected by the
harness (`JSBSimSession`, a `failure_injected` event at its time), its effect in the recorded
signals and on the screen (pixels of the published layout), and the POH fix working through
the panel (clicks on the published hotspots)."""

from __future__ import annotations

import math
import time

import numpy as np
import pytest

from simbridge._adapter import Sandbox
from simbridge._agent_port._input import XInput
from simbridge._agent_port._screen import ScreenGrabber
from simbridge._sims import session_class
from simbridge._task import load_task
from simbridge._taskspec import FailureSpec, FailureTrigger
from simbridge.adapters.jsbsim import layout as L

pytestmark = [pytest.mark.display, pytest.mark.slow]


def _task(*failures: tuple[str, float]):
    """T09's start (KPAO, 3,500 ft, 100 kt, cruise trim) with the harness's failures at `after_s`."""
    task = load_task("T09").model_copy(deep=True)
    task.initial_state.failures = [
        FailureSpec(system=name, trigger=FailureTrigger(after_s=t), injected_by="harness") for name, t in failures
    ]
    return task


class Flight:
    """One lockstep episode on the cockpit: the recording, the screen, the mouse and keys."""

    def __init__(self, xvfb: str, workdir, task, seed: int = 1):
        self.s = session_class("jsbsim")()
        self.s.start_paused = True
        self.s.start(task, Sandbox(display=xvfb, env={}, workdir=str(workdir)), seed=seed)
        self.xi = XInput(xvfb)
        self.grab = ScreenGrabber(xvfb)
        self.samples: list = []
        self.events: list = []
        self.t = 0.0
        self._collect(0.0)

    def _collect(self, t: float, timeout_s: float = 20.0) -> None:
        end = time.monotonic() + timeout_s
        while time.monotonic() < end:
            self.samples += self.s.poll()
            self.events += self.s.events()
            if self.samples and self.samples[-1].t_sim >= t - 1e-6:
                return
            time.sleep(0.01)
        raise AssertionError(f"no sample at t={t}")

    def fly(self, seconds: float) -> float:
        t = self.s.advance(seconds)
        assert t is not None
        self.t = t
        self._collect(t)
        return t

    def now(self, name: str) -> float:
        return self.samples[-1].values[name]

    def series(self, name: str, since: float) -> np.ndarray:
        return np.array([x.values[name] for x in self.samples if x.t_sim >= since])

    def click(self, hotspot: str, y: int | None = None) -> None:
        x, cy = L.centre(hotspot)
        self.xi.mouse_move(x, cy if y is None else y)
        self.xi.click()
        self.fly(0.1)

    def press(self, hotspot: str) -> None:
        self.xi.mouse_move(*L.centre(hotspot))
        self.xi.button("left", True)
        self.fly(0.1)

    def release(self) -> None:
        self.xi.button("left", False)
        self.fly(0.1)

    def screen(self) -> np.ndarray:
        """The display as H x W x RGB."""
        return self.grab.grab_bgr()[:, :, ::-1]

    def injected(self) -> dict[str, dict]:
        """Each injected failure's event data by system; a failure is injected (and recorded) once,
        though the recorder's poll and the lockstep advance both look at every packet."""
        systems = [e.data["system"] for e in self.events if e.kind == "failure_injected"]
        assert len(systems) == len(set(systems)), f"a failure recorded twice: {systems}"
        return {e.data["system"]: e.data for e in self.events if e.kind == "failure_injected"}

    def close(self) -> None:
        self.xi.close()
        self.s.stop()


@pytest.fixture
def flight(xvfb, tmp_path):
    made: list[Flight] = []

    def make(*failures: tuple[str, float], seed: int = 1) -> Flight:
        f = Flight(xvfb, tmp_path / f"ep{len(made)}", _task(*failures), seed=seed)
        made.append(f)
        return f

    yield make
    for f in made:
        f.close()


# ------------------------------------------------------------------ reading the screen
def needle_angle(img: np.ndarray, g: L.Gauge, frac: float = 0.6) -> float:
    """The clock angle (deg) of the gauge's pure-white needle, sampled on a circle at `frac` r."""
    hits = []
    for a in np.arange(0.0, 360.0, 0.5):
        x, y = L.needle_tip(g, float(a), frac)
        if tuple(img[y, x]) == L.NEEDLE:
            hits.append(math.radians(a))
    assert hits, f"no needle on {g.name}"
    return math.degrees(math.atan2(np.mean(np.sin(hits)), np.mean(np.cos(hits))))


def ai_bank(img: np.ndarray) -> float:
    """The bank the attitude indicator shows: its orange roll pointer sits at clock angle -bank."""
    hits = []
    for a in np.arange(0.0, 360.0, 0.5):
        x, y = L.needle_tip(L.AI, float(a), 0.78)
        if tuple(img[y, x]) == L.SYMBOL:
            hits.append(math.radians(a))
    assert hits, "no roll pointer on the attitude indicator"
    return -math.degrees(math.atan2(np.mean(np.sin(hits)), np.mean(np.cos(hits))))


def small_value(img: np.ndarray, g: L.Gauge) -> float:
    lo, hi = L.SMALL_RANGES[g.name]
    return lo + (needle_angle(img, g) + 120.0) / 240.0 * (hi - lo)


def asi_value(img: np.ndarray) -> float:
    return (needle_angle(img, L.ASI) % 360.0 - L.ASI_DEG_AT_0) / L.ASI_DEG_PER_KT


def lit(img: np.ndarray, name: str) -> bool:
    """An annunciator is lit: coloured, not the grey of an unlit one (smoke may veil it)."""
    x, y, w, h = L.ANNUNCIATOR_RECTS[name]
    px = img[y + h // 2, x + 5].astype(int)
    return px.max() - px.min() > 60


def switch_on(img: np.ndarray, hotspot: str) -> bool:
    x, y, w, h = L.HOTSPOTS[hotspot]
    return tuple(img[y + 2, x + w // 2]) == L.LIT


# ------------------------------------------------------------------ the failures
def test_alternator_vacuum_and_door_failures_show_on_the_panel_and_load_shedding_cuts_the_discharge(flight):
    f = flight(("alternator", 2.0), ("vacuum", 2.0), ("door", 2.0))
    f.fly(1.0)
    img = f.screen()
    assert f.now("bus_volts") == pytest.approx(28.0) and f.now("ammeter_amps") >= 0
    assert f.now("low_volts_light") == 0 and f.now("door_open") == 0
    assert f.now("vacuum_inhg") == pytest.approx(5.0, abs=0.3)
    assert not any(lit(img, n) for n in ("low_volts", "vacuum", "door", "smoke"))
    assert small_value(img, L.SUCTION) == pytest.approx(5.0, abs=0.3)
    heading_before = f.now("heading_mag_deg")

    f.fly(20.0)
    inj = f.injected()
    assert set(inj) == {"alternator", "vacuum", "door"}
    for d in inj.values():
        assert d["after_s"] == 2.0 and 2.0 <= d["t"] < 2.1
    assert f.now("bus_volts") < 24.5 and f.now("low_volts_light") == 1
    discharge = f.now("ammeter_amps")
    assert discharge < -5.0
    assert f.now("vacuum_inhg") == 0.0 and f.now("door_open") == 1
    img = f.screen()
    assert lit(img, "low_volts") and lit(img, "vacuum") and lit(img, "door") and not lit(img, "smoke")
    assert small_value(img, L.AMMETER) == pytest.approx(discharge, abs=2.0)
    assert small_value(img, L.SUCTION) == pytest.approx(0.0, abs=0.3)
    # load shedding (POH 3A: avionics and non-essential loads off) cuts the discharge
    f.click("switch:avionics")
    f.click("switch:beacon")
    assert f.now("avionics") == 0 and f.now("beacon") == 0
    assert f.now("ammeter_amps") == pytest.approx(discharge + 7.5, abs=0.5)
    assert f.now("low_volts_light") == 1
    volts = f.now("bus_volts")

    # the vacuum gyros spin down: the heading indicator precesses away from the heading, the
    # attitude indicator topples
    assert ai_bank(img) == pytest.approx(f.now("bank_deg"), abs=2.0)
    f.fly(90.0)
    assert f.now("bus_volts") < volts  # the battery runs down
    img = f.screen()
    assert abs(ai_bank(img) - f.now("bank_deg")) > 15.0
    hi_shown = needle_angle(img, L.HI, 0.8) % 360.0
    hdg = f.now("heading_mag_deg")
    drift = (hi_shown - hdg + 180.0) % 360.0 - 180.0
    assert drift > 4.0, f"heading indicator {hi_shown:.1f}, heading {hdg:.1f} (was {heading_before:.1f})"
    assert f.s.telnet.get_float("/instrumentation/turn-indicator/indicated-turn-rate") == pytest.approx(
        f.s.telnet.get_float("/fdm/jsbsim/velocities/psidot-rad_sec") * 180 / math.pi, abs=0.01
    )


def test_a_blocked_pitot_reads_like_an_altimeter_until_pitot_heat_clears_it(flight):
    f = flight(("pitot", 1.5))
    _level_on_the_autopilot(f)
    f.fly(1.5)
    assert "pitot" in f.injected()
    img = f.screen()
    assert asi_value(img) == pytest.approx(f.now("ias_kt"), abs=2.0)
    shown_at_block = asi_value(img)
    # the autopilot climbs 500 ft: the aircraft slows, the blocked indicator shows more speed
    for _ in range(5):
        f.click("ap:alt+")
    f.fly(25.0)
    assert f.now("vs_fpm") > 200 and f.now("ias_kt") < shown_at_block - 5
    assert asi_value(f.screen()) > shown_at_block + 10
    # pitot heat ON: the ice melts within a minute and the indicator reads the airspeed again
    f.click("switch:pitot_heat")
    assert f.now("pitot_heat") == 1 and switch_on(f.screen(), "switch:pitot_heat")
    f.fly(45.0)
    assert asi_value(f.screen()) == pytest.approx(f.now("ias_kt"), abs=2.0)


def test_an_electrical_fire_smokes_until_the_master_is_off_and_again_when_it_is_back_on(flight):
    f = flight(("electrical_fire", 1.0))
    f.fly(0.5)
    clear = f.screen()[100, 640].astype(int)
    f.fly(15.0)
    assert f.injected()["electrical_fire"]["t"] >= 1.0
    assert f.now("smoke") == 1
    img = f.screen()
    assert lit(img, "smoke")
    assert np.abs(img[100, 640].astype(int) - clear).sum() > 30  # the grey veil over the window
    # POH 3: master OFF (both halves): the smoke clears within about 20 s
    f.click("switch:master_alt")
    f.click("switch:master_bat")
    assert f.now("bus_volts") == 0
    t_off = f.t
    f.fly(25.0)
    smoke = f.series("smoke", t_off)
    gone = [x.t_sim for x in f.samples if x.t_sim >= t_off and x.values["smoke"] == 0]
    assert smoke[-1] == 0 and 15.0 <= gone[0] - t_off <= 21.0
    assert np.abs(f.screen()[100, 640].astype(int) - clear).sum() < 12
    # master back on: it starts again
    f.click("switch:master_bat")
    f.fly(5.0)
    assert f.now("smoke") == 1


def test_a_tank_run_dry_stops_the_engine_and_a_restart_on_both_works(flight):
    f = flight(("fuel_empty_tank", 3.0))
    f.click("fuel:LEFT")
    assert f.now("fuel_selector") == 1
    f.fly(12.0)
    assert f.injected()["fuel_empty_tank"]["detail"]["tank"] == "left"
    assert f.now("fuel_left_gal") == 0.0 and f.now("fuel_right_gal") > 10
    assert f.now("engine_running") == 0
    img = f.screen()
    assert small_value(img, L.FUEL_L) == pytest.approx(0.0, abs=1.0)
    assert small_value(img, L.FUEL_R) == pytest.approx(f.now("fuel_right_gal"), abs=1.5)
    f.click("fuel:BOTH")
    f.press("mags:START")
    f.fly(3.0)
    f.release()
    f.fly(3.0)
    assert f.now("engine_running") == 1 and f.now("magnetos") == 3 and f.now("engine_rpm") > 1500


def test_jammed_flaps_stay_where_they_were_whatever_the_lever(flight):
    f = flight(("flaps", 4.0))
    f.click("flaps", y=L.FLAP_DETENT_Y[1])
    f.fly(4.0)
    at_jam = f.injected()["flaps"]["detail"]["flaps_deg"]
    assert 3.0 < at_jam <= 10.0
    f.click("flaps", y=L.FLAP_DETENT_Y[3])
    f.fly(10.0)
    assert f.now("flaps_cmd_deg") == 30.0
    assert f.now("flaps_deg") == pytest.approx(at_jam, abs=0.5)


def jitter(rpm: np.ndarray) -> float:
    """Unsteadiness of the rpm: its spread about its 1 s moving average (60 Hz samples; a
    slow trend does not count)."""
    k = 60
    avg = np.convolve(rpm, np.ones(k) / k, mode="same")
    return float(np.std((rpm - avg)[k:-k]))


def _level_on_the_autopilot(f: Flight) -> None:
    f.click("ap:ap_alt")
    f.click("ap:ap_hdg")


def test_a_failing_magneto_runs_rough_on_both_quits_on_itself_and_runs_smooth_on_the_other(flight):
    f = flight(("engine_rough", 8.0), seed=3)
    _level_on_the_autopilot(f)
    f.fly(8.0)
    base = f.series("engine_rpm", f.t - 3.0)
    f.fly(10.0)
    side = f.injected()["engine_rough"]["detail"]["magneto"]
    rough = f.series("engine_rpm", f.t - 5.0)
    assert 150 <= base.mean() - rough.mean() <= 250
    assert jitter(rough) > 3 * jitter(base) + 1.0  # misfiring: the needle will not settle
    good = "R" if side == "L" else "L"
    f.click(f"mags:{good}")
    f.fly(6.0)
    smooth = f.series("engine_rpm", f.t - 3.0)
    assert 50 <= base.mean() - smooth.mean() <= 150 and jitter(smooth) < jitter(rough) / 3
    f.click(f"mags:{side}")
    f.fly(6.0)
    assert f.now("engine_running") == 0 or f.now("engine_rpm") < 1000


def test_carburettor_ice_takes_rpm_and_carb_heat_brings_it_back(flight):
    f = flight(("carb_ice", 1.0))
    _level_on_the_autopilot(f)
    for _ in range(20):  # part throttle: 0.2 less
        f.xi.key("Page_Down", hold_s=0.0)
    f.fly(15.0)
    base = f.series("engine_rpm", f.t - 2.0).mean()
    f.fly(75.0)
    iced = f.series("engine_rpm", f.t - 2.0).mean()
    assert base - iced > 150
    assert L.tach_angle(iced) == pytest.approx(needle_angle(f.screen(), L.TACH), abs=3.0)
    f.click("knob:carb_heat")
    assert f.now("carb_heat") == 1
    t_on = f.t
    f.fly(5.0)
    assert f.series("engine_rpm", t_on).min() < iced - 20  # the melt water goes through first
    f.fly(45.0)
    assert f.s.telnet.get_float("/engines/engine[0]/carb-ice-norm") == 0.0
    assert f.series("engine_rpm", f.t - 2.0).mean() > iced + 100


def _lit_button(img: np.ndarray, hotspot: str) -> bool:
    x, y, w, h = L.HOTSPOTS[hotspot]
    return tuple(img[y + h // 2, x + 2]) == L.LIT


def test_configuration_deviations_are_set_at_start_and_a_drawn_failure_time_is_kept(xvfb, tmp_path):
    from simbridge._taskspec import ConfigurationSpec

    task = _task()
    task.initial_state.configuration = ConfigurationSpec(
        fuel_selector="left",
        magnetos="right",
        mixture=0.8,
        carb_heat=True,
        pitot_heat=True,
        avionics=False,
        flaps_deg=10,
        fuel_left_gal=5.0,
        fuel_right_gal=20.0,
    )
    task.initial_state.failures = [
        FailureSpec(system="vacuum", trigger=FailureTrigger(after_s_between=(2.0, 6.0)), injected_by="harness")
    ]
    f = Flight(xvfb, tmp_path, task, seed=4)
    try:
        assert f.s.info()["unsupported"] == []
        first = f.samples[0]
        assert first.t_sim == 0.0
        v = first.values
        assert (v["fuel_selector"], v["magnetos"], v["mixture"]) == (1, 1, pytest.approx(0.8))
        assert (v["carb_heat"], v["pitot_heat"], v["avionics"], v["flaps_cmd_deg"]) == (1, 1, 0, 10.0)
        assert v["fuel_left_gal"] == pytest.approx(5.0, abs=0.01) and v["fuel_right_gal"] == pytest.approx(
            20.0, abs=0.01
        )
        assert v["engine_running"] == 1
        f.fly(0.5)
        img = f.screen()
        assert _lit_button(img, "fuel:LEFT") and _lit_button(img, "mags:R") and _lit_button(img, "knob:carb_heat")
        assert switch_on(img, "switch:pitot_heat") and not switch_on(img, "switch:avionics")
        f.fly(7.0)
        d = f.injected()["vacuum"]
        assert 2.0 <= d["after_s"] <= 6.0 and d["drawn_from_after_s"] == [2.0, 6.0]
        assert d["t"] == pytest.approx(d["after_s"], abs=1.0 / 120)  # lockstep: injected at its time
        (planned,) = f.s.info()["failures"]  # episode.json keeps the plan
        assert planned["after_s"] == d["after_s"] and planned["injected_at_t"] == d["t"]
        vac = [(x.t_sim, x.values["vacuum_inhg"]) for x in f.samples]
        assert all(s > 4.0 for t, s in vac if t < d["t"]) and all(s == 0.0 for t, s in vac if t > d["t"] + 0.02)
    finally:
        f.close()


def test_in_lockstep_a_height_trigger_is_looked_at_every_tenth_of_a_second(xvfb, tmp_path):
    task = _task()
    task.initial_state.failures = [
        FailureSpec(system="engine", trigger=FailureTrigger(agl_ft_between=(3530.0, 3560.0)), injected_by="harness")
    ]
    f = Flight(xvfb, tmp_path, task, seed=2)
    try:
        _level_on_the_autopilot(f)
        for _ in range(3):
            f.click("ap:alt+")  # climb 300 ft through the trigger band
        f.fly(40.0)  # one long advance: the host still looks every 0.1 s
        d = f.injected()["engine"]
        crossed = next(x.t_sim for x in f.samples if x.values["alt_agl_ft"] >= d["trigger_agl_ft"])
        assert crossed <= d["t"] <= crossed + 0.1 + 1e-6
        after = [x for x in f.samples if x.t_sim > d["t"] + 3.0]
        assert after and after[-1].values["engine_rpm"] < 1500 and after[-1].values["engine_running"] == 0
    finally:
        f.close()
