"""Property -> canonical signal table for the embedded simulator.

Each canonical signal is computed from one or more property paths of `_props` (the same paths
the generic-protocol packet carries). NaN means "no reading" (e.g. NAV1 out of range). The table is data, so the host side, the protocol file
and the tests all use one definition.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable


@dataclass(frozen=True)
class Mapping:
    canonical: str
    paths: tuple[str, ...]
    fn: Callable[..., float] = lambda v: float(v)


def _bool(v: float) -> float:
    return 1.0 if float(v) > 0.5 else 0.0


MAPPINGS: tuple[Mapping, ...] = (
    Mapping("lat_deg", ("/position/latitude-deg",)),
    Mapping("lon_deg", ("/position/longitude-deg",)),
    Mapping("alt_msl_ft", ("/position/altitude-ft",)),
    Mapping("alt_agl_ft", ("/position/altitude-agl-ft",)),
    # the aircraft's airspeed, not the airspeed indicator's reading (a blocked pitot tube
    # fools the instrument, not the recording that judges stalls and Vne)
    Mapping("ias_kt", ("/velocities/airspeed-kt",)),
    Mapping("gs_kt", ("/velocities/groundspeed-kt",)),
    Mapping("vs_fpm", ("/velocities/vertical-speed-fps",), lambda v: float(v) * 60.0),
    Mapping("heading_mag_deg", ("/orientation/heading-magnetic-deg",)),
    Mapping("heading_true_deg", ("/orientation/heading-deg",)),
    Mapping("pitch_deg", ("/orientation/pitch-deg",)),
    Mapping("bank_deg", ("/orientation/roll-deg",)),
    Mapping(
        "on_ground",
        ("/gear/gear[0]/wow", "/gear/gear[1]/wow", "/gear/gear[2]/wow"),
        lambda a, b, c: _bool(max(float(a), float(b), float(c))),
    ),
    Mapping("crashed", ("/sim/crashed",), _bool),
    Mapping("engine_running", ("/engines/engine[0]/running",), _bool),
    Mapping("engine_rpm", ("/engines/engine[0]/rpm",)),
    Mapping(
        "magnetos",
        ("/controls/switches/magnetos", "/controls/switches/starter"),
        lambda m, s: 4.0 if _bool(s) else float(m),
    ),
    Mapping("mixture", ("/controls/engines/engine[0]/mixture",)),
    Mapping("throttle", ("/controls/engines/engine[0]/throttle",)),
    Mapping("primer_strokes", ("/controls/engines/engine[0]/primer",)),
    Mapping("master_bat", ("/controls/switches/master-bat",), _bool),
    Mapping("master_alt", ("/controls/switches/master-alt",), _bool),
    Mapping("beacon", ("/controls/lighting/beacon",), _bool),
    Mapping("avionics", ("/controls/switches/master-avionics",), _bool),
    Mapping(
        "fuel_selector",
        ("/consumables/fuel/tank[0]/selected", "/consumables/fuel/tank[1]/selected"),
        lambda left, right: _bool(left) + 2.0 * _bool(right),
    ),
    Mapping("flaps_deg", ("/surface-positions/flap-pos-norm",), lambda v: float(v) * 30.0),
    Mapping("gear_down", ("/gear/gear[0]/wow",), lambda v: 1.0),  # fixed gear
    Mapping("parking_brake", ("/controls/gear/brake-parking",), _bool),
    Mapping("autopilot_on", ("/autopilot/switches/ap",), _bool),
    Mapping("ap_hdg", ("/autopilot/switches/ap", "/autopilot/switches/hdg"), lambda a, m: _bool(a) * _bool(m)),
    Mapping("ap_nav", ("/autopilot/switches/ap", "/autopilot/switches/nav"), lambda a, m: _bool(a) * _bool(m)),
    Mapping("ap_alt", ("/autopilot/switches/ap", "/autopilot/switches/alt"), lambda a, m: _bool(a) * _bool(m)),
    Mapping("ap_apr", ("/autopilot/switches/apr",), _bool),
    Mapping("ap_alt_target_ft", ("/autopilot/settings/target-altitude-ft",)),
    Mapping("nav1_mhz", ("/instrumentation/nav[0]/frequencies/selected-mhz",), lambda v: round(float(v), 3)),
    Mapping("nav1_obs_deg", ("/instrumentation/nav[0]/radials/selected-deg",)),
    Mapping(
        "loc_dev_dots",
        ("/instrumentation/nav[0]/in-range", "/instrumentation/nav[0]/heading-needle-deflection-norm"),
        lambda ok, v: -float(v) * 5.0 if _bool(ok) else math.nan,
    ),
    Mapping(
        "gs_dev_dots",
        ("/instrumentation/nav[0]/gs-in-range", "/instrumentation/nav[0]/gs-needle-deflection-norm"),
        lambda ok, v: -float(v) * 5.0 if _bool(ok) else math.nan,
    ),
    Mapping("com1_mhz", ("/instrumentation/comm[0]/frequencies/selected-mhz",), lambda v: round(float(v), 3)),
    Mapping("com1_stby_mhz", ("/instrumentation/comm[0]/frequencies/standby-mhz",), lambda v: round(float(v), 3)),
    Mapping("xpdr_code", ("/instrumentation/transponder/id-code",)),
    Mapping("xpdr_mode", ("/instrumentation/transponder/mode",)),
    Mapping("baro_inhg", ("/instrumentation/altimeter/setting-inhg",), lambda v: round(float(v), 2)),
    # the C172 systems and their failures
    Mapping("carb_heat", ("/controls/anti-ice/engine[0]/carb-heat",), _bool),
    Mapping("pitot_heat", ("/controls/anti-ice/pitot-heat",), _bool),
    Mapping("bus_volts", ("/systems/electrical/volts",)),
    Mapping("ammeter_amps", ("/systems/electrical/amps",)),
    Mapping("low_volts_light", ("/instrumentation/annunciators/low-volts",), _bool),
    Mapping("vacuum_inhg", ("/systems/vacuum/suction-inhg",)),
    Mapping("fuel_left_gal", ("/consumables/fuel/tank[0]/level-gal_us",)),
    Mapping("fuel_right_gal", ("/consumables/fuel/tank[1]/level-gal_us",)),
    Mapping("door_open", ("/sim/cabin/door-open",), _bool),
    Mapping("smoke", ("/sim/cabin/smoke",), _bool),
    Mapping("nav_lights", ("/controls/lighting/nav-lights",), _bool),
    Mapping("landing_light", ("/controls/lighting/landing-lights",), _bool),
    Mapping("taxi_light", ("/controls/lighting/taxi-light",), _bool),
    Mapping("strobe", ("/controls/lighting/strobe",), _bool),
    Mapping(
        "cabin_air",
        ("/controls/environment/cabin-air", "/controls/environment/cabin-heat"),
        lambda a, h: max(_bool(a), _bool(h)),
    ),
    Mapping("flaps_cmd_deg", ("/controls/flight/flaps",), lambda v: round(float(v) * 30.0, 2)),
    Mapping("stall_warning", ("/sim/alarms/stall-warning",), _bool),
)

#: flight signals this simulator does not produce, and why (a verifier needing one is unscorable)
NOT_PRODUCED: dict[str, str] = {
    "ap_loc_captured": "the autopilot has no approach mode",
    "ap_gs_captured": "the autopilot has no approach mode",
}

#: failure system (task YAML) -> the cockpit property the harness sets false to inject it
#: (`engine_rough:L` / `:R`: which magneto misfires, drawn by the host)
FAILURE_PROPS: dict[str, str] = {
    "engine": "/sim/failure-manager/engines/engine/serviceable",
    "engine_rough:L": "/sim/failure-manager/engines/engine/magneto-left/serviceable",
    "engine_rough:R": "/sim/failure-manager/engines/engine/magneto-right/serviceable",
    "alternator": "/sim/failure-manager/systems/electrical/alternator/serviceable",
    "vacuum": "/sim/failure-manager/systems/vacuum/serviceable",
    "pitot": "/sim/failure-manager/systems/pitot/serviceable",
    "carb_ice": "/sim/failure-manager/engines/engine/carburetor/serviceable",
    "flaps": "/sim/failure-manager/controls/flight/flaps/serviceable",
    "electrical_fire": "/sim/failure-manager/systems/electrical/wiring/serviceable",
    "door": "/sim/failure-manager/cabin/door/serviceable",
    "fuel_empty_tank": "/sim/failure-manager/fuel/selected-tank/serviceable",
}

#: the sim-time property every sample is stamped with
TIME_PATH = "/sim/time/elapsed-sec"


def all_paths() -> list[str]:
    """Every property the mappings read, in a stable order (the generic packet's chunks)."""
    out: list[str] = [TIME_PATH]
    for m in MAPPINGS:
        for p in m.paths:
            if p not in out:
                out.append(p)
    return out


def to_canonical(values: dict[str, float]) -> dict[str, float]:
    """Canonical signals from property values (paths missing from `values` are skipped)."""
    out: dict[str, float] = {}
    for m in MAPPINGS:
        try:
            args = [values[p] for p in m.paths]
        except KeyError:
            continue
        out[m.canonical] = m.fn(*args)
    return out


def protocol_chunks() -> list:
    """The default packet: every property the mapping table reads (the clock comes first)."""
    from simbridge.adapters.fgproto import CLOCK_NODE, Chunk

    return [Chunk(p, p, "double", "%.6f") for p in all_paths() if p != CLOCK_NODE]


def default_protocol():
    from simbridge.adapters.fgproto import GenericProtocol

    return GenericProtocol(protocol_chunks(), name="generic")
