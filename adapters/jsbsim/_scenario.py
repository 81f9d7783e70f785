"""The task's initial state turned into what the embedded simulator needs: a place, an
attitude, a speed, and which systems are on.

Only the fields the embedded simulator honours are read; anything it cannot do (gusts, clouds,
visibility, weather presets other than clear, failures) is listed in `unsupported` so the runner
can report it. A steady wind (`weather.wind_dir_deg` at `wind_kt`) is flown.
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

from simbridge.adapters.jsbsim._airports import MAG_VAR_EAST_DEG, Airport, from_local_m, load_airport

if TYPE_CHECKING:
    from simbridge import TaskSpec

DEFAULT_AIRCRAFT = "c172x"
#: the task's `initial_state.configuration` keys the cockpit applies at start (after the trim)
CONFIGURATION_KEYS = frozenset(
    {
        "fuel_selector",
        "magnetos",
        "mixture",
        "throttle",
        "carb_heat",
        "pitot_heat",
        "master_bat",
        "master_alt",
        "avionics",
        "flaps_deg",
        "fuel_left_gal",
        "fuel_right_gal",
    }
)
KT_TO_FPS = 1852.0 / 3600.0 / 0.3048
LINEUP_OFFSET_M = 30.0  # distance past the (displaced) threshold where the aircraft lines up


@dataclass
class Scenario:
    airport: str
    aircraft: str
    lat_deg: float
    lon_deg: float
    field_elevation_ft: float
    heading_true_deg: float
    mag_var_east_deg: float
    on_ground: bool
    alt_msl_ft: float
    ias_kt: float
    engine_running: bool
    avionics_on: bool
    autopilot_on: bool
    cold_and_dark: bool
    unsupported: list[str] = field(default_factory=list)
    #: configuration deviations applied at start, after the trim (`CONFIGURATION_KEYS`)
    configuration: dict[str, Any] = field(default_factory=dict)
    #: a steady wind: the direction it blows FROM (degrees true) and its speed; 0 kt is calm
    wind_from_deg: float = 0.0
    wind_kt: float = 0.0

    @property
    def wind_ned_fps(self) -> tuple[float, float]:
        """The air's velocity (north, east) in ft/s: a wind from 270° moves the air east."""
        v = self.wind_kt * KT_TO_FPS
        a = math.radians(self.wind_from_deg)
        return (-v * math.cos(a), -v * math.sin(a))

    @property
    def heading_mag_deg(self) -> float:
        return (self.heading_true_deg - self.mag_var_east_deg) % 360.0

    def to_json(self) -> str:
        return json.dumps(asdict(self), indent=1)

    @classmethod
    def from_json(cls, text: str) -> "Scenario":
        return cls(**json.loads(text))


def from_task(task: "TaskSpec") -> Scenario:
    """Resolve a TaskSpec's initial state. Raises KeyError/ValueError with the reason if impossible."""
    st = task.initial_state
    aircraft = task.vehicle.ids.get("jsbsim", DEFAULT_AIRCRAFT)
    if not st.airport:
        raise ValueError(f"{task.id}: initial_state.airport is required by the embedded simulator")
    apt = load_airport(st.airport)
    conf = _configuration(task)
    sc = resolve(
        apt,
        aircraft=aircraft,
        runway=st.runway,
        parking=st.parking,
        position=(st.position.lat_deg, st.position.lon_deg) if st.position else None,
        alt_msl_ft=st.alt_msl_ft,
        alt_agl_ft=st.alt_agl_ft,
        ias_kt=st.ias_kt,
        heading_deg=st.heading_deg,
        on_ground=st.on_ground,
        engine=st.engine,
        avionics_on=st.avionics_on,
        autopilot_on=st.autopilot_on,
        distance_nm=st.distance_nm,
        unsupported=_unsupported(task),
    )
    sc.configuration = {k: v for k, v in conf.items() if k in CONFIGURATION_KEYS}
    sc.wind_from_deg, sc.wind_kt = wind(task)
    sc.unsupported += [f"configuration {k}" for k in conf if k not in CONFIGURATION_KEYS]
    return sc


def _configuration(task: "TaskSpec") -> dict[str, Any]:
    """The task's configuration deviations as a plain dict of the keys it sets."""
    conf = getattr(task.initial_state, "configuration", None)
    if conf is None:
        return {}
    if hasattr(conf, "model_dump"):
        conf = conf.model_dump(exclude_none=True)
    return {k: v for k, v in dict(conf).items() if v is not None}


def wind(task: "TaskSpec") -> tuple[float, float]:
    """The task's steady wind as (from degrees true, knots); (0, 0) is calm. A speed without a
    direction, or a direction without a speed, is a ValueError naming the missing field."""
    w = task.initial_state.weather
    if w.wind_kt is None and w.wind_dir_deg is None:
        return 0.0, 0.0
    if w.wind_dir_deg is None:
        if not w.wind_kt:
            return 0.0, 0.0
        raise ValueError(f"{task.id}: initial_state.weather.wind_kt needs initial_state.weather.wind_dir_deg")
    if w.wind_kt is None:
        raise ValueError(f"{task.id}: initial_state.weather.wind_dir_deg needs initial_state.weather.wind_kt")
    return float(w.wind_dir_deg) % 360.0, float(w.wind_kt)


def _unsupported(task: "TaskSpec") -> list[str]:
    st = task.initial_state
    out = []
    w = st.weather
    if w.preset not in ("clear", "any") or w.clouds or w.visibility_sm:
        out.append("weather other than a steady wind (the embedded simulator flies in clear air, no gusts)")
    if st.time.local_time or st.time.date:
        out.append("time of day (always noon)")
    return out


def resolve(
    apt: Airport,
    *,
    aircraft: str = DEFAULT_AIRCRAFT,
    runway: str | None = None,
    parking: str | None = None,
    position: tuple[float, float] | None = None,
    alt_msl_ft: float | None = None,
    alt_agl_ft: float | None = None,
    ias_kt: float | None = None,
    heading_deg: float | None = None,
    on_ground: bool | None = None,
    engine: str = "any",
    avionics_on: bool | None = None,
    autopilot_on: bool | None = None,
    distance_nm: float | None = None,
    unsupported: list[str] | None = None,
) -> Scenario:
    """`heading_deg` is true (as the catalog's task files give it, from apt.dat).

    Where the aircraft starts: lined up on `runway` (or on final `distance_nm` out) if given,
    else at the `parking` spot if the airport has one by that name, else at `position`.
    """
    var = MAG_VAR_EAST_DEG.get(apt.icao, 0.0)
    elev = apt.elevation_ft
    airborne = bool(alt_msl_ft or alt_agl_ft or distance_nm) and on_ground is not True
    spot = None
    if parking and not runway:
        try:
            spot = apt.parking(parking)
        except KeyError:
            if position is None:
                raise
    if runway:
        rwy, end = apt.runway_end(runway)
        hdg_true = end.heading_true_deg
        along = end.displaced_m + LINEUP_OFFSET_M
        if distance_nm:
            along = -distance_nm * 1852.0
        e = along * math.sin(math.radians(hdg_true))
        n = along * math.cos(math.radians(hdg_true))
        lat, lon = from_local_m(e, n, end.lat_deg, end.lon_deg)
    elif spot is not None:
        lat, lon, hdg_true = spot.lat_deg, spot.lon_deg, spot.heading_true_deg
        if heading_deg is not None:
            hdg_true = heading_deg % 360.0
    elif position is not None:
        lat, lon = position
        hdg_true = (heading_deg or 0.0) % 360.0
    else:
        spot = apt.parking(None)
        lat, lon, hdg_true = spot.lat_deg, spot.lon_deg, spot.heading_true_deg
    if airborne:
        alt = alt_msl_ft if alt_msl_ft is not None else elev + (alt_agl_ft or 0.0)
        if distance_nm and alt_msl_ft is None and alt_agl_ft is None:
            alt = elev + distance_nm * 1852.0 * 3.28084 * math.tan(math.radians(3.0))
        speed = ias_kt if ias_kt is not None else 90.0
    else:
        alt, speed = elev, 0.0
    running = engine == "running" or (engine == "any" and airborne)
    cold = engine in ("cold_and_dark", "off") and not airborne
    return Scenario(
        airport=apt.icao,
        aircraft=aircraft,
        lat_deg=lat,
        lon_deg=lon,
        field_elevation_ft=elev,
        heading_true_deg=hdg_true,
        mag_var_east_deg=var,
        on_ground=not airborne,
        alt_msl_ft=alt,
        ias_kt=speed,
        engine_running=running or airborne,
        avionics_on=bool(avionics_on) if avionics_on is not None else (running and engine != "cold_and_dark"),
        autopilot_on=bool(autopilot_on),
        cold_and_dark=cold,
        unsupported=list(unsupported or []),
    )
