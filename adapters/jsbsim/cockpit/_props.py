"""The cockpit's state as a FlightGear-style property tree.

Paths mirror FlightGear's c172p where FlightGear has one (`/position/altitude-ft`,
`/engines/engine[0]/rpm`, `/controls/switches/magnetos`, `/sim/crashed`...), so the host side
reads both simulators with one client and near-identical mapping tables. Every JSBSim property
is also reachable under `/fdm/jsbsim/`, as in FlightGear.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Callable

from simbridge.adapters.jsbsim.cockpit._controls import Controls
from simbridge.adapters.jsbsim.cockpit._fdm import FPS_TO_KT, FlightModel
from simbridge.adapters.jsbsim.cockpit._systems import FAILURE_PROPS

LBS_PER_GAL = 6.0
#: FlightGear's KT76C knob (0 off, 1 stby, 2 test, 3 gnd, 4 on, 5 alt) <-> canonical xpdr_mode
MODE_FROM_FG_KNOB = {0: 0, 1: 1, 2: 4, 3: 2, 4: 2, 5: 3}
FG_KNOB_FROM_MODE = {0: 0, 1: 1, 2: 4, 3: 5, 4: 2}


@dataclass
class Prop:
    get: Callable[[], Any]
    set: Callable[[Any], None] | None
    type: str  # FlightGear value type name: double, bool, int, string


def _b(v: Any) -> int:
    if isinstance(v, str):
        return int(v.strip().lower() in ("1", "true", "yes"))
    return int(bool(float(v)))


class PropertyTree:
    def __init__(self, model: FlightModel, controls: Controls, runtime: dict[str, Any]):
        """`runtime` carries cockpit-loop facts: frame_rate, paused, rt_factor, exit_requested."""
        self.m, self.c, self.rt = model, controls, runtime
        self.props: dict[str, Prop] = {}
        self._build()

    # ---------------------------------------------------------------- registration
    def _fdm(self, name: str) -> Callable[[], float]:
        f = self.m.fdm
        return lambda: f[name]

    def add(
        self, path: str, get: Callable[[], Any], set_: Callable[[Any], None] | None = None, type_: str = "double"
    ) -> None:
        self.props[path] = Prop(get, set_, type_)

    def _ctl(self, path: str, attr: str, type_: str = "double", conv: Callable[[Any], Any] = float) -> None:
        c = self.c
        self.add(path, lambda: getattr(c, attr), lambda v: setattr(c, attr, conv(v)), type_)

    def _build(self) -> None:
        m, c, f = self.m, self.c, self.m.fdm
        fdm = self._fdm
        add = self.add
        # position / orientation / velocities
        add("/position/latitude-deg", fdm("position/lat-geod-deg"))
        add("/position/longitude-deg", fdm("position/long-gc-deg"))
        add("/position/altitude-ft", fdm("position/h-sl-ft"))
        add("/position/altitude-agl-ft", lambda: f["position/h-agl-ft"] - m.rest_cg_agl_ft)
        add("/position/ground-elev-ft", lambda: m.scenario.field_elevation_ft)
        add("/orientation/roll-deg", fdm("attitude/phi-deg"))
        add("/orientation/pitch-deg", fdm("attitude/theta-deg"))
        add("/orientation/heading-deg", lambda: f["attitude/psi-deg"] % 360.0)
        add("/orientation/heading-magnetic-deg", lambda: m.heading_mag_deg)
        add("/velocities/airspeed-kt", fdm("velocities/vc-kts"))
        add("/velocities/groundspeed-kt", lambda: f["velocities/vg-fps"] * FPS_TO_KT)
        add("/velocities/vertical-speed-fps", fdm("velocities/h-dot-fps"))
        # the instruments' indications (a blocked pitot tube, toppled vacuum gyros); the
        # aircraft's own state is under /velocities and /orientation
        add("/instrumentation/airspeed-indicator/indicated-speed-kt", m.indicated_airspeed_kt)
        add("/instrumentation/attitude-indicator/indicated-pitch-deg", lambda: m.attitude_indication()[0])
        add("/instrumentation/attitude-indicator/indicated-roll-deg", lambda: m.attitude_indication()[1])
        add("/instrumentation/heading-indicator/indicated-heading-deg", m.heading_indication)
        add("/instrumentation/altimeter/indicated-altitude-ft", m.indicated_altitude_ft)
        self._ctl("/instrumentation/altimeter/setting-inhg", "baro_inhg")
        add("/instrumentation/turn-indicator/indicated-turn-rate", m.turn_rate_dps)

        # per-index getters/setters come from factories so each closure binds its own index
        def wow(i: int) -> Callable[[], int]:
            return lambda: int(f[f"gear/unit[{i}]/WOW"] > 0.5)

        def tank_gal(i: int) -> Callable[[], float]:
            return lambda: f[f"propulsion/tank[{i}]/contents-lbs"] / LBS_PER_GAL

        def tank_selected(i: int) -> Callable[[], int]:
            return lambda: int(c.fuel_selector in ((1, 3) if i == 0 else (2, 3)))

        def select_tank(i: int) -> Callable[[Any], None]:
            return lambda v: self._select_tank(i, _b(v))

        for i in range(3):
            add(f"/gear/gear[{i}]/wow", wow(i), None, "bool")
        # engine
        add("/engines/engine[0]/running", lambda: int(m.engine_running), None, "bool")
        add("/engines/engine[0]/rpm", fdm("propulsion/engine/engine-rpm"))
        add("/engines/engine[0]/oil-temperature-degf", fdm("propulsion/engine/oil-temperature-degF"))
        add("/engines/engine[0]/oil-pressure-psi", fdm("propulsion/engine/oil-pressure-psi"))
        add("/engines/engine[0]/cranking", lambda: int(f["propulsion/starter_cmd"] > 0.5), None, "bool")
        for i in range(2):
            add(f"/consumables/fuel/tank[{i}]/level-gal_us", tank_gal(i))
            add(f"/consumables/fuel/tank[{i}]/selected", tank_selected(i), select_tank(i), "bool")
        # controls
        self._ctl("/controls/switches/magnetos", "magnetos", "int", lambda v: int(float(v)))
        add(
            "/controls/switches/starter",
            lambda: int(c.magnetos_effective == 4),
            lambda v: setattr(c, "starter_held", _b(v)),
            "bool",
        )
        self._ctl("/controls/switches/master-bat", "master_bat", "bool", _b)
        self._ctl("/controls/switches/master-alt", "master_alt", "bool", _b)
        self._ctl("/controls/switches/master-avionics", "avionics", "bool", _b)
        self._ctl("/controls/lighting/beacon", "beacon", "bool", _b)
        self._ctl("/controls/engines/engine[0]/throttle", "throttle")
        self._ctl("/controls/engines/engine[0]/mixture", "mixture")
        self._ctl("/controls/engines/engine[0]/primer", "primer_strokes", "int", lambda v: int(float(v)))
        self._ctl("/controls/fuel/selector", "fuel_selector", "int", lambda v: int(float(v)))
        self._ctl("/controls/flight/elevator", "elevator")
        self._ctl("/controls/flight/aileron", "aileron")
        self._ctl("/controls/flight/rudder", "rudder")
        self._ctl("/controls/flight/elevator-trim", "elevator_trim")
        add("/controls/flight/flaps", lambda: c.flaps_cmd_norm, lambda v: c.set_flaps(round(float(v) * 3)))
        add("/surface-positions/flap-pos-norm", lambda: m.flaps_deg / 30.0)
        self._ctl("/controls/gear/brake-parking", "parking_brake", "bool", _b)
        self._ctl("/controls/gear/brake-left", "brake_left")
        self._ctl("/controls/gear/brake-right", "brake_right")
        add("/systems/electrical/volts", lambda: m.elec.bus_volts)
        add("/systems/electrical/amps", lambda: m.sys.ammeter_amps)
        add("/systems/electrical/load-amps", lambda: m.sys.load_amps)
        add("/systems/electrical/battery-charge-norm", lambda: m.sys.battery_soc)
        add("/instrumentation/annunciators/low-volts", lambda: int(m.sys.low_volts_light), None, "bool")
        add("/systems/vacuum/suction-inhg", lambda: m.sys.suction_inhg)
        add("/instrumentation/annunciators/vacuum", lambda: int(m.sys.vacuum_light()), None, "bool")
        add("/sim/cabin/smoke", lambda: int(m.sys.smoke_in_cabin), None, "bool")
        add("/sim/cabin/smoke-density-norm", lambda: m.sys.smoke_density)
        add("/sim/cabin/door-open", lambda: int(m.sys.door_open), None, "bool")
        add("/sim/alarms/stall-warning", lambda: int(m.stall_warning), None, "bool")
        add("/engines/engine[0]/carb-ice-norm", lambda: m.sys.carb_ice)
        self._ctl("/controls/anti-ice/engine[0]/carb-heat", "carb_heat", "bool", _b)
        self._ctl("/controls/anti-ice/pitot-heat", "pitot_heat", "bool", _b)
        self._ctl("/controls/lighting/nav-lights", "nav_lights", "bool", _b)
        self._ctl("/controls/lighting/landing-lights", "landing_light", "bool", _b)
        self._ctl("/controls/lighting/taxi-light", "taxi_light", "bool", _b)
        self._ctl("/controls/lighting/strobe", "strobe", "bool", _b)
        self._ctl("/controls/environment/cabin-heat", "cabin_heat", "bool", _b)
        self._ctl("/controls/environment/cabin-air", "cabin_air", "bool", _b)
        # radios
        self._ctl("/instrumentation/comm[0]/frequencies/selected-mhz", "com1_mhz")
        self._ctl("/instrumentation/comm[0]/frequencies/standby-mhz", "com1_stby_mhz")
        self._ctl("/instrumentation/nav[0]/frequencies/selected-mhz", "nav1_mhz")
        self._ctl("/instrumentation/nav[0]/frequencies/standby-mhz", "nav1_stby_mhz")
        self._ctl("/instrumentation/nav[0]/radials/selected-deg", "nav1_obs_deg")
        # as FlightGear: needle deflection -1..1, positive = needle right / up (aircraft left of
        # course / below the glidepath)
        add("/instrumentation/nav[0]/heading-needle-deflection-norm", lambda: -m.nav1().dots / 5.0)
        add("/instrumentation/nav[0]/gs-needle-deflection-norm", lambda: -m.nav1().gs_dots / 5.0)
        add("/instrumentation/nav[0]/in-range", lambda: int(m.nav1().in_range), None, "bool")
        add("/instrumentation/nav[0]/gs-in-range", lambda: int(m.nav1().gs_in_range), None, "bool")
        add("/instrumentation/nav[0]/to-flag", lambda: int(m.nav1().to_flag), None, "bool")
        add("/instrumentation/nav[0]/nav-id", lambda: m.nav1().ident, None, "string")
        add(
            "/instrumentation/transponder/id-code", lambda: c.xpdr_code, lambda v: c.set_xpdr_code(int(float(v))), "int"
        )
        self._ctl("/instrumentation/transponder/mode", "xpdr_mode", "int", lambda v: int(float(v)))
        add("/systems/electrical/outputs/avionics", lambda: m.elec.bus_volts if m.elec.avionics_powered else 0.0)
        # autopilot (KAP 140 style modes, c172x)
        self._ctl("/autopilot/switches/ap", "ap_on", "bool", _b)
        self._ctl("/autopilot/switches/hdg", "ap_hdg", "bool", _b)
        self._ctl("/autopilot/switches/nav", "ap_nav", "bool", _b)
        self._ctl("/autopilot/switches/alt", "ap_alt", "bool", _b)
        add("/autopilot/switches/apr", lambda: 0, None, "bool")
        self._ctl("/autopilot/settings/heading-bug-deg", "ap_hdg_bug_deg")
        self._ctl("/autopilot/settings/target-altitude-ft", "ap_alt_target_ft")

        # failures (FlightGear's failure-manager path); the harness sets these, not the pilot
        def serviceable(system: str) -> Callable[[], int]:
            return lambda: int(m.serviceable(system))

        def set_serviceable(system: str) -> Callable[[Any], None]:
            return lambda v: m.set_serviceable(system, bool(_b(v)))

        for system, path in FAILURE_PROPS.items():
            add(path, serviceable(system), set_serviceable(system), "bool")
        # FlightGear c172p aliases, so a FlightGear mapping table reads this cockpit too
        for alias, target in (
            ("/controls/engines/current-engine/throttle", "/controls/engines/engine[0]/throttle"),
            ("/controls/engines/current-engine/mixture", "/controls/engines/engine[0]/mixture"),
            ("/engines/active-engine/running", "/engines/engine[0]/running"),
            ("/engines/active-engine/rpm", "/engines/engine[0]/rpm"),
            ("/sim/model/c172p/brake-parking", "/controls/gear/brake-parking"),
        ):
            self.props[alias] = self.props[target]
        add(
            "/instrumentation/transponder/inputs/knob-mode",
            lambda: FG_KNOB_FROM_MODE[c.xpdr_mode],
            lambda v: setattr(c, "xpdr_mode", MODE_FROM_FG_KNOB[int(float(v))]),
            "int",
        )
        # sim
        add("/sim/crashed", lambda: int(m.crashed), None, "bool")
        add("/sim/crash-reason", lambda: m.crash_reason, None, "string")
        add("/sim/time/elapsed-sec", lambda: m.sim_time_s)
        add("/sim/freeze/master", lambda: int(m.frozen), lambda v: setattr(m, "frozen", bool(_b(v))), "bool")
        add("/sim/aircraft", lambda: m.scenario.aircraft, None, "string")
        add("/sim/airport", lambda: m.scenario.airport, None, "string")
        add("/sim/signals/fdm-initialized", lambda: 1, None, "bool")
        add("/sim/frame-rate", lambda: self.rt.get("frame_rate", 0.0))
        add("/sim/real-time-factor", lambda: self.rt.get("rt_factor", 0.0))
        add("/sim/rendering/sim-frame-count", lambda: self.rt.get("frames", 0), None, "int")
        add("/sim/fdm-steps", lambda: m.steps, None, "int")
        add("/sim/version/jsbsim", lambda: self.rt.get("jsbsim_version", ""), None, "string")
        add("/sim/rendering/video-driver", lambda: self.rt.get("video_driver", ""), None, "string")
        # the aids drawn that a C172 does not have (`--assist`), comma-separated; "" = none
        add("/sim/rendering/assists", lambda: self.rt.get("assists", ""), None, "string")
        add("/sim/has-autopilot", lambda: int(m.has_autopilot), None, "bool")
        add("/sim/mouse-yoke", lambda: c.mouse_yoke, None, "bool")

    def _select_tank(self, i: int, on: int) -> None:
        left, right = self.c.fuel_selector in (1, 3), self.c.fuel_selector in (2, 3)
        if i == 0:
            left = bool(on)
        else:
            right = bool(on)
        self.c.fuel_selector = int(left) + 2 * int(right)

    # ---------------------------------------------------------------- access
    def _fdm_path(self, path: str) -> str | None:
        if path.startswith("/fdm/jsbsim/"):
            return path[len("/fdm/jsbsim/") :]
        return None

    def get(self, path: str) -> tuple[Any, str]:
        """(value, type) at `path`. Raises KeyError if there is no such property."""
        path = normalise(path)
        p = self.props.get(path)
        if p is not None:
            return p.get(), p.type
        native = self._fdm_path(path)
        if native is not None:
            try:
                return self.m.fdm[native], "double"
            except Exception:  # noqa: BLE001 - jsbsim raises on unknown names
                pass
        raise KeyError(path)

    def set(self, path: str, value: str) -> None:
        path = normalise(path)
        p = self.props.get(path)
        if p is not None:
            if p.set is None:
                raise PermissionError(path)
            p.set(value)
            return
        native = self._fdm_path(path)
        if native is not None:
            self.m.fdm[native] = float(value)
            return
        raise KeyError(path)

    def children(self, path: str) -> list[tuple[str, bool]]:
        """Immediate children of a directory: (name, is_directory)."""
        prefix = normalise(path).rstrip("/") + "/"
        out: dict[str, bool] = {}
        for p in self.props:
            if p.startswith(prefix):
                rest = p[len(prefix) :]
                head, sep, _ = rest.partition("/")
                out[head] = out.get(head, False) or bool(sep)
        if prefix == "/":
            out["fdm"] = True
        return sorted(out.items())


_INDEXED = re.compile(
    r"^(/engines/engine|/controls/engines/engine|/consumables/fuel/tank|/gear/gear|/controls/anti-ice/engine|"
    r"/instrumentation/comm|/instrumentation/nav)(?=/|$)"
)


def normalise(path: str) -> str:
    """FlightGear treats `name` and `name[0]` alike; this tree stores `[0]` on indexed nodes."""
    if not path.startswith("/"):
        path = "/" + path
    return _INDEXED.sub(lambda mo: mo.group(1) + "[0]", path)
