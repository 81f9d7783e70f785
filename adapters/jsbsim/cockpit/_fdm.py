"""JSBSim wrapped as the aircraft: the flight model plus the C172 systems JSBSim leaves to its
host (electrical bus, fuel selector, primer, spring-loaded key, KAP-style autopilot modes) and
crash detection.

Everything engine-related goes through JSBSim's own piston engine: magnetos
(`propulsion/magneto_cmd`), starter (`propulsion/starter_cmd`), mixture, throttle and the tank
priorities. The primer is modelled as a gate: a cold engine (oil below 75 °F) gets no fuel while
cranking until it has been primed at least twice since it last stopped.
"""

from __future__ import annotations

import math
import os
import re
import tempfile
from dataclasses import dataclass
from pathlib import Path

import jsbsim

from simbridge.adapters.jsbsim._airports import load_airport
from simbridge.adapters.jsbsim.cockpit._controls import FLAP_DETENTS_DEG, Controls
from simbridge.adapters.jsbsim.cockpit._crash import CrashDetector, GroundState, RunwayArea
from simbridge.adapters.jsbsim.cockpit._navaids import NavReading, receive
from simbridge.adapters.jsbsim.cockpit._systems import DOOR_DRAG_SQFT, FAILURE_PROPS, Systems
from simbridge.adapters.jsbsim._scenario import Scenario

DT_S = 1.0 / 120.0
PRIME_STROKES_COLD = 2
COLD_OIL_DEGF = 75.0
COLD_BARO_INHG = 30.12
FPS_TO_KT = 0.592484
LBS_PER_GAL_DEFAULT = 6.0
#: CG height above the ground with the gear at rest; starting lower makes the gear spring launch it
REST_CG_AGL_FT = {"c172x": 4.3, "c172p": 4.3, "c172r": 4.3}


@dataclass
class Electrical:
    bus_volts: float = 0.0
    avionics_powered: bool = False


def _aircraft_dir(aircraft: str, root: str) -> str | None:
    """An aircraft folder to load from instead of the wheel's, or None for the wheel's own.

    The c172x pulls in JSBSim's generic `Autopilot` system, whose roll channel writes
    `fcs/steer-cmd-norm` every step and so locks the nose wheel straight. A private copy of the
    aircraft gets that system without the steering output (a per-user cache folder, written
    atomically so concurrent cockpits can share it).
    """
    if aircraft != "c172x":
        return None
    src = Path(root) / "aircraft" / aircraft
    text = (Path(root) / "systems" / "Autopilot.xml").read_text()
    patched = re.sub(r"\s*<output>fcs/steer-cmd-norm</output>", "", text)
    base = Path(tempfile.gettempdir()) / f"simbridge-jsbsim-{os.getuid()}" / "aircraft"
    dst = base / aircraft
    (dst / "Systems").mkdir(parents=True, exist_ok=True)
    files = {p.name: p.read_bytes() for p in src.iterdir() if p.is_file()}
    files["Systems/Autopilot.xml"] = patched.encode()
    files[f"{aircraft}.xml"] = _with_door_drag(files[f"{aircraft}.xml"].decode()).encode()
    for name, data in files.items():
        target = dst / name
        if target.exists() and target.read_bytes() == data:
            continue
        tmp = target.with_name(f".{target.name}.{os.getpid()}")
        tmp.write_bytes(data)
        os.replace(tmp, target)
    return str(base)


#: the drag area (sq ft) of an open cabin door, a property the patched aircraft adds to its drag
DOOR_DRAG_PROP = "systems/door/drag-sqft"


def _with_door_drag(xml: str) -> str:
    """The aircraft file with one more drag term: dynamic pressure x `DOOR_DRAG_PROP`."""
    system = f'<system name="Door">\n  <property value="0">{DOOR_DRAG_PROP}</property>\n</system>\n'
    drag = (
        '<axis name="DRAG">\n  <function name="aero/coefficient/CDdoor"><description>Open cabin door'
        f"</description><product><property>aero/qbar-psf</property><property>{DOOR_DRAG_PROP}</property>"
        "</product></function>"
    )
    if "<system" not in xml or '<axis name="DRAG">' not in xml:
        return xml
    xml = xml.replace("<system", system + "<system", 1)
    return xml.replace('<axis name="DRAG">', drag, 1)


class FlightModel:
    """One C172 in JSBSim, stepped at `DT_S`."""

    def __init__(self, scenario: Scenario, controls: Controls, *, root: str | None = None):
        self.scenario = scenario
        self.controls = controls
        root = root or jsbsim.get_default_root_dir()
        self.fdm = jsbsim.FGFDMExec(root)
        self.fdm.set_debug_level(0)
        private = _aircraft_dir(scenario.aircraft, root)
        if private:
            self.fdm.set_aircraft_path(private)
        if not self.fdm.load_model(scenario.aircraft):
            raise RuntimeError(f"JSBSim cannot load aircraft {scenario.aircraft!r}")
        self.fdm.set_dt(DT_S)
        self.has_autopilot = self._has("ap/heading_hold")
        self.has_ny = self._has("accelerations/Ny")
        self.rest_cg_agl_ft = REST_CG_AGL_FT.get(scenario.aircraft, 4.3)
        self.elec = Electrical()
        self.sys = Systems()
        self.has_door_drag = self._has(DOOR_DRAG_PROP)
        self.has_stall_warning = self._has("systems/stall-warn-norm")
        self.crash = CrashDetector(RunwayArea(load_airport(scenario.airport)))
        self.crashed = False
        self.crash_reason = ""
        self.frozen = False
        self.engine_serviceable = True  # False once the harness injects an engine failure
        self._tank_drained: int | None = None  # the tank a fuel_empty_tank failure emptied
        self.unsupported: list[str] = []
        self._nav = NavReading()
        self._nav_t = -1.0
        self.steps = 0
        self._primes_since_stop = 0
        self._last_primer_count = 0
        self._was_running = scenario.engine_running
        self._t0 = 0.0
        self.roll_rigging = 0.0
        self.yaw_rigging = 0.0
        self._init()

    # ---------------------------------------------------------------- setup
    def _has(self, prop: str) -> bool:
        return any(line.startswith(prop + " ") for line in self.fdm.query_property_catalog(prop).splitlines())

    def _init(self) -> None:
        sc, f, c = self.scenario, self.fdm, self.controls
        f["ic/lat-geod-deg"] = sc.lat_deg
        f["ic/long-gc-deg"] = sc.lon_deg
        f["ic/terrain-elevation-ft"] = sc.field_elevation_ft
        f["ic/psi-true-deg"] = sc.heading_true_deg
        f["ic/phi-deg"] = 0.0
        if sc.on_ground:
            f["ic/h-agl-ft"] = REST_CG_AGL_FT.get(sc.aircraft, 4.3)
            f["ic/vc-kts"] = 0.0
            f["ic/theta-deg"] = 0.0
        else:
            f["ic/h-sl-ft"] = sc.alt_msl_ft
            f["ic/vc-kts"] = sc.ias_kt
            f["ic/gamma-deg"] = 0.0
        if sc.engine_running:
            f["propulsion/set-running"] = -1
        # the air is ISA (29.92 inHg at sea level); an aircraft found cold on the ramp still has
        # the last flight's setting in the Kollsman window, a ready one is set correctly
        c.baro_inhg = 29.92 if sc.engine_running else COLD_BARO_INHG
        c.ap_hdg_bug_deg = round(sc.heading_mag_deg)
        c.ap_alt_target_ft = round(sc.alt_msl_ft / 100.0) * 100.0 if not sc.on_ground else 3000.0
        if sc.engine_running:
            c.master_bat = c.master_alt = c.beacon = 1
            c.magnetos, c.mixture, c.fuel_selector = 3, 1.0, 3
            c.throttle = 0.0 if sc.on_ground else 0.7
            c.avionics = int(sc.avionics_on or not sc.on_ground)
        else:
            c.master_bat = c.master_alt = c.beacon = 0
            c.magnetos, c.mixture, c.throttle, c.fuel_selector = 0, 0.0, 0.0, 3
            c.avionics = int(bool(sc.avionics_on))
            if sc.avionics_on:
                c.master_bat = 1
        c.parking_brake = int(sc.on_ground)  # as FlightGear's c172p: parked with the brake set
        c.ap_on = int(sc.autopilot_on and self.has_autopilot)
        flaps = sc.configuration.get("flaps_deg")
        if flaps is not None and float(flaps) in FLAP_DETENTS_DEG:
            # an aircraft configured with flaps is trimmed with them (the trim also sets them)
            c.set_flaps(FLAP_DETENTS_DEG.index(float(flaps)))
        if not f.run_ic():
            raise RuntimeError("JSBSim rejected the initial conditions")
        self._apply_controls()
        for _ in range(6):
            f.run()
        if not sc.on_ground and sc.engine_running:
            self._trim()
        elif sc.on_ground:
            for _ in range(240):  # let the gear settle before the episode clock starts
                self._apply_controls()
                f.run()
        self._apply_wind()
        self.unsupported = self._configure(sc.configuration)
        self._t0 = f["simulation/sim-time-sec"]

    def _apply_wind(self) -> None:
        """Fly the scenario's steady wind from here on. The trim (and a parked aircraft's settle)
        ran in calm air; an airborne aircraft is re-initialised with the same attitude and air-
        relative motion carried by the wind, so it starts coordinated (no sideslip jolt). The
        wind is set after every initialisation: JSBSim's run_ic and its trim reset it."""
        wn, we = self.scenario.wind_ned_fps
        if not (wn or we):
            return  # calm: nothing changes
        f = self.fdm
        if not self.scenario.on_ground:
            for ic, prop in (
                ("ic/lat-geod-deg", "position/lat-geod-deg"),
                ("ic/long-gc-deg", "position/long-gc-deg"),
                ("ic/h-sl-ft", "position/h-sl-ft"),
                ("ic/phi-deg", "attitude/phi-deg"),
                ("ic/theta-deg", "attitude/theta-deg"),
                ("ic/psi-true-deg", "attitude/psi-deg"),
                ("ic/p-rad_sec", "velocities/p-rad_sec"),
                ("ic/q-rad_sec", "velocities/q-rad_sec"),
                ("ic/r-rad_sec", "velocities/r-rad_sec"),
            ):
                f[ic] = f[prop]
            vn, ve, vd = f["velocities/v-north-fps"], f["velocities/v-east-fps"], f["velocities/v-down-fps"]
            f["ic/vn-fps"], f["ic/ve-fps"], f["ic/vd-fps"] = vn + wn, ve + we, vd
            if not f.run_ic():
                raise RuntimeError("JSBSim rejected the initial conditions with the wind")
        f["atmosphere/wind-north-fps"] = wn
        f["atmosphere/wind-east-fps"] = we
        self._apply_controls()
        f.run()

    def _configure(self, conf: dict) -> list[str]:
        """Apply the task's configuration deviations (after the trim); the keys it cannot honour."""
        c, f = self.controls, self.fdm
        names = {
            "fuel_selector": {"off": 0, "left": 1, "right": 2, "both": 3},
            "magnetos": {"off": 0, "right": 1, "left": 2, "both": 3},
        }
        bad: list[str] = []
        for key, v in conf.items():
            if v is None:
                continue
            if key in names:
                code = names[key].get(str(v).lower())
                if code is None:
                    bad.append(f"configuration {key}={v!r}")
                    continue
                setattr(c, key, code)
            elif key in ("mixture", "throttle"):
                setattr(c, key, max(0.0, min(1.0, float(v))))
            elif key in ("carb_heat", "pitot_heat", "master_bat", "master_alt", "avionics"):
                setattr(c, key, int(bool(v)))
            elif key == "flaps_deg":
                if float(v) not in FLAP_DETENTS_DEG:
                    bad.append(f"configuration flaps_deg={v!r} (detents {FLAP_DETENTS_DEG})")
                    continue
                c.set_flaps(FLAP_DETENTS_DEG.index(float(v)))
                # the flaps are at the setting when the episode starts, not on their way to it
                # (a failure at 1 s would otherwise jam them part-way)
                f["fcs/flap-pos-deg"] = float(v)
            elif key in ("fuel_left_gal", "fuel_right_gal"):
                i = 0 if key == "fuel_left_gal" else 1
                f[f"propulsion/tank[{i}]/contents-lbs"] = max(0.0, float(v)) * LBS_PER_GAL_DEFAULT
            else:
                bad.append(f"configuration {key}")
        if conf:
            self._apply_controls()
        return bad

    def _trim(self) -> None:
        f, c = self.fdm, self.controls
        f["fcs/mixture-cmd-norm"] = 1.0
        try:
            f["simulation/do_simple_trim"] = 1
        except Exception:  # noqa: BLE001 - jsbsim raises a bare trim failure; fly untrimmed then
            return
        c.throttle = round(f["fcs/throttle-cmd-norm[0]"], 3)
        c.elevator_trim = max(-1.0, min(1.0, f["fcs/pitch-trim-cmd-norm"] + f["fcs/elevator-cmd-norm"]))
        # the trim solution's aileron and rudder become fixed rigging trim, so the pilot's
        # controls start centred and the aircraft still flies straight
        self.roll_rigging = f["fcs/aileron-cmd-norm"] + f["fcs/roll-trim-cmd-norm"]
        self.yaw_rigging = f["fcs/rudder-cmd-norm"] + f["fcs/yaw-trim-cmd-norm"]
        c.elevator = 0.0
        c.aileron = c.rudder = 0.0
        self._apply_controls()

    # ---------------------------------------------------------------- stepping
    @property
    def sim_time_s(self) -> float:
        """Seconds since the episode started (frozen time excluded)."""
        return self.fdm["simulation/sim-time-sec"] - self._t0

    def step(self) -> None:
        if self.frozen or self.crashed:
            return
        self._apply_controls()
        self.fdm.run()
        self.steps += 1
        self._after_step()

    def _apply_controls(self) -> None:
        f, c = self.fdm, self.controls
        # electrical bus, the systems, their failures
        running = f["propulsion/engine/set-running"] > 0.5
        rpm = f["propulsion/engine/engine-rpm"]
        sy = self.sys
        mags = c.magnetos_effective if self.engine_serviceable else 0
        flaps_cmd = sy.flaps_jammed_norm if sy.flaps_jammed else c.flaps_cmd_norm
        flaps_moving = abs(f["fcs/flap-pos-norm"] - flaps_cmd) > 0.005
        sy.electrical(DT_S, c, rpm, mags == 4 and bool(c.master_bat), flaps_moving)
        volts = sy.bus_volts
        self.elec.bus_volts = volts
        self.elec.avionics_powered = sy.powered and bool(c.avionics)
        sy.vacuum(DT_S, rpm)
        sy.pitot(DT_S, c)
        sy.carburettor(DT_S, self.sim_time_s, c, running)
        sy.smoke(DT_S, c)
        throttle_factor, mags_fired = sy.engine_factor(DT_S, self.sim_time_s, c, mags)
        if self.has_door_drag:
            f[DOOR_DRAG_PROP] = DOOR_DRAG_SQFT if sy.door_open else 0.0
        # ignition and starter (the key is spring-loaded; `s` cranks too)
        cranking = mags == 4 and volts > 20.0
        f["propulsion/magneto_cmd"] = 3 if mags_fired == 4 else mags_fired
        f["propulsion/starter_cmd"] = 1 if cranking else 0
        # primer gate
        if c.primer_strokes != self._last_primer_count:
            self._primes_since_stop += c.primer_strokes - self._last_primer_count
            self._last_primer_count = c.primer_strokes
        oil_f = f["propulsion/engine/oil-temperature-degF"]
        primed = self._primes_since_stop >= PRIME_STROKES_COLD or oil_f >= COLD_OIL_DEGF
        mixture = c.mixture if (running or primed) else 0.0
        f["fcs/mixture-cmd-norm"] = mixture
        f["fcs/throttle-cmd-norm"] = max(0.0, min(1.0, c.throttle * throttle_factor))
        # fuel selector -> tank feed
        f["propulsion/tank[0]/priority"] = 1 if c.fuel_selector in (1, 3) else 0
        f["propulsion/tank[1]/priority"] = 1 if c.fuel_selector in (2, 3) else 0
        # flight controls
        f["fcs/elevator-cmd-norm"] = c.elevator
        f["fcs/aileron-cmd-norm"] = c.aileron
        f["fcs/rudder-cmd-norm"] = -c.rudder  # as FlightGear: pedal right (+) = nose right
        f["fcs/pitch-trim-cmd-norm"] = c.elevator_trim
        f["fcs/roll-trim-cmd-norm"] = self.roll_rigging
        f["fcs/yaw-trim-cmd-norm"] = self.yaw_rigging
        f["fcs/flap-cmd-norm"] = flaps_cmd
        brake = 1.0 if c.parking_brake else 0.0
        f["fcs/left-brake-cmd-norm"] = max(brake, c.brake_left)
        f["fcs/right-brake-cmd-norm"] = max(brake, c.brake_right)
        f["fcs/steer-cmd-norm"] = c.rudder
        if self.has_autopilot:
            self._autopilot()

    def _autopilot(self) -> None:
        f, c = self.fdm, self.controls
        on = bool(c.ap_on) and self.elec.avionics_powered
        if not on:
            c.ap_on = 0 if not self.elec.avionics_powered else c.ap_on
        lateral = on and (c.ap_hdg or c.ap_nav)
        f["ap/attitude_hold"] = 1 if on and not lateral else 0
        f["ap/heading_hold"] = 1 if lateral else 0
        course_mag = c.ap_hdg_bug_deg
        if c.ap_nav:
            nav = self.nav1()
            course_mag = c.nav1_obs_deg
            if nav.in_range:
                if nav.kind == "LOC":
                    course_mag = nav.course_true_deg - self.scenario.mag_var_east_deg
                course_mag -= max(-30.0, min(30.0, nav.dots * (6.0 if nav.kind == "LOC" else 10.0)))
        true = (course_mag + self.scenario.mag_var_east_deg) % 360.0
        f["ap/heading_setpoint"] = true if true <= 180.0 else true - 360.0 + 360.0
        f["ap/altitude_hold"] = 1 if on and c.ap_alt else 0
        f["ap/altitude_setpoint"] = c.ap_alt_target_ft
        if not on:
            f["ap/aileron_cmd"] = 0.0
            f["ap/elevator_cmd"] = 0.0

    def _after_step(self) -> None:
        f = self.fdm
        running = f["propulsion/engine/set-running"] > 0.5
        if running != self._was_running:  # the prime charge is used by a start, lost after a stop
            self._primes_since_stop = 0
            self._was_running = running
        s = GroundState(
            lat_deg=f["position/lat-geod-deg"],
            lon_deg=f["position/long-gc-deg"],
            gear_contact=self.on_ground,
            structure_contact=any(f[f"contact/unit[{i}]/WOW"] > 0.5 for i in (3, 4, 5)),
            sink_fpm=-f["velocities/h-dot-fps"] * 60.0,
            bank_deg=f["attitude/phi-deg"],
            gs_kt=f["velocities/vg-fps"] * FPS_TO_KT,
        )
        reason = self.crash.update(s)
        if f["position/h-agl-ft"] < 0.5 and not reason:
            reason = self.crash.reason = "below ground"
        if reason:
            self.crashed = True
            self.crash_reason = reason
            f["propulsion/set-running"] = 0

    # ---------------------------------------------------------------- state
    @property
    def on_ground(self) -> bool:
        f = self.fdm
        return any(f[f"gear/unit[{i}]/WOW"] > 0.5 for i in range(3))

    @property
    def flaps_deg(self) -> float:
        return self.fdm["fcs/flap-pos-deg"]

    @property
    def engine_running(self) -> bool:
        return self.fdm["propulsion/engine/set-running"] > 0.5

    @property
    def heading_mag_deg(self) -> float:
        return (self.fdm["attitude/psi-deg"] - self.scenario.mag_var_east_deg) % 360.0

    def nav1(self) -> NavReading:
        """NAV1's indication (recomputed at most 20 times per simulator second); dead without power."""
        t = self.sim_time_s
        if abs(t - self._nav_t) >= 0.05:
            self._nav_t = t
            if self.elec.avionics_powered:
                f, c = self.fdm, self.controls
                self._nav = receive(
                    c.nav1_mhz,
                    c.nav1_obs_deg,
                    f["position/lat-geod-deg"],
                    f["position/long-gc-deg"],
                    f["position/h-sl-ft"],
                )
            else:
                self._nav = NavReading()
        return self._nav

    # ---------------------------------------------------------------- failures
    def serviceable(self, system: str) -> bool:
        sy = self.sys
        if system == "engine":
            return self.engine_serviceable
        if system.startswith("engine_rough:"):
            return sy.magneto_failed != system[-1]
        return not {
            "alternator": sy.alternator_failed,
            "vacuum": sy.vacuum_failed,
            "pitot": sy.pitot_blocked,
            "carb_ice": sy.carb_icing,
            "flaps": sy.flaps_jammed,
            "electrical_fire": sy.fire,
            "door": sy.door_open,
            "fuel_empty_tank": self._tank_drained is not None,
        }[system]

    def set_serviceable(self, system: str, ok: bool) -> None:
        """Fail (ok False) or restore a system, as the harness asks through `FAILURE_PROPS`."""
        if system not in FAILURE_PROPS:
            raise KeyError(system)
        sy, f = self.sys, self.fdm
        if system == "engine":
            self.engine_serviceable = ok
        elif system.startswith("engine_rough:"):
            sy.magneto_failed = "" if ok else system[-1]
        elif system == "alternator":
            sy.alternator_failed = not ok
        elif system == "vacuum":
            sy.vacuum_failed = not ok
            if ok:
                sy.gyro_spin, sy.ai_bank_err, sy.ai_pitch_err, sy.hi_err = 1.0, 0.0, 0.0, 0.0
        elif system == "pitot":
            if ok:
                sy.pitot_blocked = False
            elif not sy.pitot_blocked:
                sy.block_pitot(f["atmosphere/P-psf"], f["velocities/vc-kts"])
        elif system == "carb_ice":
            sy.carb_icing = not ok
        elif system == "flaps":
            sy.flaps_jammed = not ok
            sy.flaps_jammed_norm = f["fcs/flap-pos-norm"]
        elif system == "electrical_fire":
            sy.fire = not ok
        elif system == "door":
            sy.door_open = not ok
        elif system == "fuel_empty_tank" and not ok and self._tank_drained is None:
            # the tank the selector draws from runs dry (on BOTH: the left one)
            i = 1 if self.controls.fuel_selector == 2 else 0
            f[f"propulsion/tank[{i}]/contents-lbs"] = 0.0
            self._tank_drained = i

    @property
    def stall_warning(self) -> bool:
        return self.has_stall_warning and self.fdm["systems/stall-warn-norm"] > 0.0 and not self.on_ground

    def indicated_airspeed_kt(self) -> float:
        """The airspeed indicator's reading (a blocked pitot tube makes it an altimeter)."""
        f = self.fdm
        return self.sys.indicated_airspeed(f["velocities/vc-kts"], f["atmosphere/P-psf"])

    def attitude_indication(self) -> tuple[float, float]:
        """(pitch, bank) as the vacuum attitude indicator shows them."""
        f = self.fdm
        return self.sys.attitude_indication(f["attitude/theta-deg"], f["attitude/phi-deg"])

    def heading_indication(self) -> float:
        """The vacuum heading indicator's reading, magnetic degrees."""
        return (self.heading_mag_deg + self.sys.hi_err) % 360.0

    def indicated_altitude_ft(self) -> float:
        """Altimeter reading: pressure altitude corrected by the Kollsman setting (1000 ft per inHg)."""
        return self.fdm["position/h-sl-ft"] + (self.controls.baro_inhg - 29.92) * 1000.0

    def turn_rate_dps(self) -> float:
        return math.degrees(self.fdm["velocities/psidot-rad_sec"])
