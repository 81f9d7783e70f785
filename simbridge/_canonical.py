"""The canonical signal vocabulary: one name per quantity, its unit in the name.

Adapters map native names (datarefs, properties, SimVars, actors) onto these; verifiers are
written against them and run unchanged on every simulator. Extend, never rename. A second
engine uses the same name with `2` after the first word (`engine2_rpm`).
"""

from __future__ import annotations

from collections.abc import Container

#: name -> description (units and conventions)
FLIGHT: dict[str, str] = {
    "lat_deg": "latitude, degrees north",
    "lon_deg": "longitude, degrees east",
    "alt_msl_ft": "altitude above mean sea level, feet",
    "alt_agl_ft": "height above ground, feet",
    "ias_kt": "indicated airspeed, knots",
    "gs_kt": "ground speed, knots",
    "vs_fpm": "vertical speed, feet per minute (climb positive)",
    "heading_mag_deg": "magnetic heading, degrees 0-360",
    "heading_true_deg": "true heading, degrees 0-360",
    "pitch_deg": "pitch attitude, degrees (nose up positive)",
    "bank_deg": "bank angle, degrees (right wing down positive)",
    "on_ground": "weight on wheels, 0/1",
    "crashed": "simulator crash/damage flag, 0/1",
    "engine_running": "engine running, 0/1",
    "engine_rpm": "engine (propeller) rpm",
    "magnetos": "0 off, 1 R, 2 L, 3 both, 4 start",
    "mixture": "mixture lever 0 (cut-off) .. 1 (full rich)",
    "throttle": "throttle lever 0..1",
    "primer_strokes": "primer strokes since episode start (count)",
    "master_bat": "battery master switch, 0/1",
    "master_alt": "alternator switch, 0/1",
    "beacon": "beacon light switch, 0/1",
    "avionics": "avionics master switch, 0/1",
    "fuel_selector": "0 off, 1 left, 2 right, 3 both",
    "flaps_deg": "flap deflection, degrees",
    "gear_down": "landing gear down and locked, 0/1",
    "parking_brake": "parking brake set, 0/1",
    "autopilot_on": "autopilot engaged (servos), 0/1",
    "ap_hdg": "autopilot heading mode active, 0/1",
    "ap_nav": "autopilot NAV mode active, 0/1",
    "ap_alt": "autopilot altitude hold active, 0/1",
    "ap_apr": "autopilot approach mode active, 0/1",
    "ap_alt_target_ft": "autopilot altitude target, feet",
    "ap_loc_captured": "autopilot localizer (approach lateral) mode captured, not just armed, 0/1",
    "ap_gs_captured": "autopilot glideslope mode captured, not just armed, 0/1",
    "nav1_mhz": "NAV1 active frequency, MHz",
    "nav1_obs_deg": "NAV1 OBS / course, degrees",
    "loc_dev_dots": "localizer deviation, dots (right of course positive: needle left)",
    "gs_dev_dots": "glideslope deviation, dots (above glidepath positive)",
    "com1_mhz": "COM1 active frequency, MHz",
    "com1_stby_mhz": "COM1 standby frequency, MHz",
    "xpdr_code": "transponder code as the 4 octal digits read as a decimal number, e.g. 4521",
    "xpdr_mode": "0 off, 1 standby, 2 on, 3 alt, 4 test",
    "baro_inhg": "altimeter (Kollsman) setting, inches of mercury",
    "carb_heat": "carburettor heat knob pulled (on), 0/1",
    "pitot_heat": "pitot heat switch, 0/1",
    "bus_volts": "main electrical bus voltage, volts",
    "ammeter_amps": "battery ammeter, amperes (charging positive, discharge negative)",
    "low_volts_light": "LOW VOLTS annunciator lit, 0/1",
    "vacuum_inhg": "vacuum system suction, inches of mercury",
    "fuel_left_gal": "fuel in the left tank, US gallons",
    "fuel_right_gal": "fuel in the right tank, US gallons",
    "door_open": "a cabin door is open, 0/1",
    "smoke": "smoke in the cabin, 0/1",
    "nav_lights": "navigation lights switch, 0/1",
    "landing_light": "landing light switch, 0/1",
    "taxi_light": "taxi light switch, 0/1",
    "strobe": "strobe lights switch, 0/1",
    "cabin_air": "cabin air or cabin heat knob open, 0/1",
    "flaps_cmd_deg": "flap lever position, degrees (flaps_deg is where the flaps are)",
    "stall_warning": "stall warning on, 0/1",
}

DRIVING: dict[str, str] = {
    "x_m": "position x, metres (simulator world frame; see the adapter for handedness)",
    "y_m": "position y, metres",
    "z_m": "position z, metres",
    "yaw_deg": "yaw, degrees",
    "speed_kmh": "speed, km/h",
    "throttle": "throttle pedal 0..1",
    "steer": "steering -1 (left) .. 1 (right)",
    "brake": "brake pedal 0..1",
    "lane_id": "OpenDRIVE lane id of the lane the vehicle is in",
    "lane_offset_m": "signed distance to the lane centre, metres (left positive)",
    "route_progress": "fraction of the route completed, 0..1",
}

#: trains (OpenBVE), ships (Bridge Command), rockets (KSP); ships reuse lat_deg lon_deg gs_kt heading_true_deg
OTHER_VEHICLES: dict[str, str] = {
    "clock_s": "in-game clock, seconds since midnight (timetables)",
    "track_position_m": "position along the track of the first car's front axle, metres",
    "accel_ms2": "longitudinal acceleration, m/s²",
    "reverser": "reverser -1 backward, 0 neutral, 1 forward",
    "power_notch": "power handle notch (0 = off)",
    "brake_notch": "brake handle: n > 0 notch, 0 released, -1 emergency, -2 hold, -3 release, -4 lap, -5 service",
    "emergency_brake": "emergency brake applied by the driver or the safety system, 0/1",
    "cog_deg": "course over ground, degrees true",
    "rate_of_turn_dpm": "rate of turn, degrees per minute (starboard positive)",
    "depth_m": "water depth under the transducer, metres",
    "rudder_deg": "rudder angle, degrees (starboard positive)",
    "alt_m": "altitude above sea level of the body orbited, metres",
    "pe_alt_m": "periapsis altitude, metres",
    "apoapsis_m": "apoapsis altitude, metres (missing on an escape trajectory)",
}

SIGNALS: dict[str, str] = {**FLIGHT, **DRIVING, **OTHER_VEHICLES}


#: old names still read from bundles written before a rename: old -> canonical
#: (`ap_alt_m` sat next to `ap_alt`, the autopilot's altitude hold)
ALIASES: dict[str, str] = {"ap_alt_m": "apoapsis_m"}


def is_canonical(name: str) -> bool:
    """True for a vocabulary name or its second-engine form (`engine2_rpm`)."""
    if name in SIGNALS:
        return True
    head, _, rest = name.partition("_")
    return head.endswith("2") and f"{head[:-1]}_{rest}" in SIGNALS


# --------------------------------------------------------------------------- physical ranges
#
# A sample outside its signal's range is not a measurement of anything (a sensor fault, an
# uninitialised dataref, a unit mix-up): the data-quality check (simbridge._signals) treats it as
# missing and counts it. Ranges are deliberately generous: they catch garbage, not bad flying.
# Small negative readings at rest (airspeed -0.3 kt on the ramp) are real sensor output and are
# inside the range.

#: continuous signals: name -> (lowest, highest) plausible value, inclusive
RANGES: dict[str, tuple[float, float]] = {
    "lat_deg": (-90.0, 90.0),
    "lon_deg": (-180.0, 180.0),
    "alt_msl_ft": (-2000.0, 100_000.0),
    "alt_agl_ft": (-500.0, 100_000.0),
    "ias_kt": (-30.0, 1000.0),
    "gs_kt": (0.0, 5000.0),
    "vs_fpm": (-60_000.0, 60_000.0),
    "heading_mag_deg": (0.0, 360.0),
    "heading_true_deg": (0.0, 360.0),
    "pitch_deg": (-90.0, 90.0),
    "bank_deg": (-180.0, 180.0),
    "engine_rpm": (0.0, 50_000.0),
    "mixture": (0.0, 1.0),
    "throttle": (0.0, 1.0),
    "primer_strokes": (0.0, 10_000.0),
    "flaps_deg": (-45.0, 90.0),
    "ap_alt_target_ft": (-2000.0, 100_000.0),
    "nav1_mhz": (100.0, 120.0),
    "nav1_obs_deg": (0.0, 360.0),
    "loc_dev_dots": (-20.0, 20.0),
    "gs_dev_dots": (-20.0, 20.0),
    "com1_mhz": (110.0, 140.0),
    "com1_stby_mhz": (110.0, 140.0),
    "xpdr_code": (0.0, 7777.0),
    "baro_inhg": (25.0, 35.0),
    "bus_volts": (0.0, 40.0),
    "ammeter_amps": (-400.0, 400.0),
    "vacuum_inhg": (0.0, 15.0),
    "fuel_left_gal": (0.0, 1000.0),
    "fuel_right_gal": (0.0, 1000.0),
    "flaps_cmd_deg": (-45.0, 90.0),
    "x_m": (-1e7, 1e7),
    "y_m": (-1e7, 1e7),
    "z_m": (-1e7, 1e7),
    "yaw_deg": (-360.0, 360.0),
    "speed_kmh": (-1000.0, 1000.0),
    "steer": (-1.0, 1.0),
    "brake": (0.0, 1.0),
    "lane_id": (-1000.0, 1000.0),
    "lane_offset_m": (-100.0, 100.0),
    "route_progress": (0.0, 1.0),
    "clock_s": (0.0, 7 * 86_400.0),
    "track_position_m": (-1e7, 1e7),
    "accel_ms2": (-100.0, 100.0),
    "power_notch": (0.0, 100.0),
    "brake_notch": (-5.0, 100.0),
    "cog_deg": (0.0, 360.0),
    "rate_of_turn_dpm": (-3600.0, 3600.0),
    "depth_m": (0.0, 12_000.0),
    "rudder_deg": (-90.0, 90.0),
    "alt_m": (-20_000.0, 1e13),
    "pe_alt_m": (-1e9, 1e13),
    "apoapsis_m": (-1e9, 1e13),
}

#: discrete signals: name -> the values a sample may take
DISCRETE: dict[str, frozenset[float]] = {
    **{
        n: frozenset({0.0, 1.0})
        for n in (
            "on_ground",
            "crashed",
            "engine_running",
            "master_bat",
            "master_alt",
            "beacon",
            "avionics",
            "gear_down",
            "parking_brake",
            "autopilot_on",
            "ap_hdg",
            "ap_nav",
            "ap_alt",
            "ap_apr",
            "ap_loc_captured",
            "ap_gs_captured",
            "emergency_brake",
            "carb_heat",
            "pitot_heat",
            "low_volts_light",
            "door_open",
            "smoke",
            "nav_lights",
            "landing_light",
            "taxi_light",
            "strobe",
            "cabin_air",
            "stall_warning",
        )
    },
    "magnetos": frozenset({0.0, 1.0, 2.0, 3.0, 4.0}),
    "fuel_selector": frozenset({0.0, 1.0, 2.0, 3.0}),
    "xpdr_mode": frozenset({0.0, 1.0, 2.0, 3.0, 4.0}),
    "reverser": frozenset({-1.0, 0.0, 1.0}),
}

#: readable names of coded values (a score says "ALT", never "mode 3"), as the descriptions above
VALUE_NAMES: dict[str, dict[int, str]] = {
    "xpdr_mode": {0: "OFF", 1: "STBY", 2: "ON", 3: "ALT", 4: "TEST"},
    "magnetos": {0: "OFF", 1: "R", 2: "L", 3: "BOTH", 4: "START"},
    "fuel_selector": {0: "OFF", 1: "LEFT", 2: "RIGHT", 3: "BOTH"},
}


def value_name(signal: str, value: float) -> str:
    """A coded value by its name (`xpdr_mode` 3 → "ALT"); an unknown code as "code N"."""
    code = int(round(value))
    return VALUE_NAMES.get(signal, {}).get(code, f"code {code}")


#: angles that wrap (interpolate on the circle, never straight across 359 -> 0 or 179 -> -179)
ANGLES: frozenset[str] = frozenset(
    {
        "heading_mag_deg",
        "heading_true_deg",
        "nav1_obs_deg",
        "cog_deg",
        "yaw_deg",
        "lon_deg",
        "bank_deg",
    }
)


#: the aircraft's state every flight adapter records on every task, whatever signals the task
#: names: position, speeds, attitude, ground contact, crash (names of FLIGHT, in its order)
AIRCRAFT_STATE: tuple[str, ...] = (
    "lat_deg",
    "lon_deg",
    "alt_msl_ft",
    "alt_agl_ft",
    "ias_kt",
    "gs_kt",
    "vs_fpm",
    "heading_mag_deg",
    "heading_true_deg",
    "pitch_deg",
    "bank_deg",
    "on_ground",
    "crashed",
)


def flight_signals(produced: Container[str]) -> tuple[str, ...]:
    """The flight signals of FLIGHT an adapter produces (`produced`: any container of names, e.g.
    its mapping's output), in FLIGHT's order: an adapter's signal list derives from this."""
    return tuple(n for n in FLIGHT if n in produced)


def _base_name(name: str) -> str:
    """`engine2_rpm` -> `engine_rpm`; other names unchanged."""
    if name in SIGNALS:
        return name
    head, _, rest = name.partition("_")
    if head.endswith("2") and f"{head[:-1]}_{rest}" in SIGNALS:
        return f"{head[:-1]}_{rest}"
    return name


def physical_range(name: str) -> tuple[float, float] | None:
    """(lo, hi) plausible values of a continuous canonical signal; None if unknown or discrete."""
    return RANGES.get(_base_name(name))


def discrete_values(name: str) -> frozenset[float] | None:
    """The allowed values of a discrete (boolean or enumerated) canonical signal, else None."""
    return DISCRETE.get(_base_name(name))


def is_angle(name: str) -> bool:
    """True for a wrapping angle: the canonical ones plus any `heading_*_deg`, `*course*_deg`,
    `*track*_deg`, `*cog*_deg` or `*yaw*_deg` an importer adds."""
    if _base_name(name) in ANGLES:
        return True
    if not name.endswith("_deg"):
        return False
    return name.startswith("heading_") or any(w in name for w in ("course", "track", "cog", "yaw", "bearing"))
