"""Per-task setup for X-Plane: the flight to start, what to log, what to snapshot, what to inject.

The initial state goes to X-Plane as a Flight Initialization JSON (`POST /api/v3/flight`,
X-Plane 12.4+). The documented parts are the `aircraft.path` key and exactly one start key
(`runway_start`, `ramp_start`, `lle_ground_start`, `lle_air_start`, `boat_start`); the fields
inside `ramp_start`, the `lle_*` starts, `engine_status`, `local_time` and `weather` follow the
developer article's examples and are marked UNCONFIRMED until checked against a running 12.4.

Harness-injected failures (T11): the trigger height is drawn once per trial from the seed, so a
re-run of the same seed fails the engine at the same height; the injection is a dataref write of
the failure enum (6 = inoperative, UNCONFIRMED enum value) and is logged as `failure_injected`.
The plan and its event are the adapter kit's (`simbridge.adapters.kit.FailurePlan`).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from simbridge.canonical import AIRCRAFT_STATE
from simbridge.adapters.kit import FailurePlan, PlannedFailure, draw_height
from simbridge.adapters.xplane._mapping import TABLE

if TYPE_CHECKING:
    from simbridge import TaskSpec

#: X-Plane 12 default aircraft (paths relative to the install; confirm against the install)
AIRCRAFT_PATHS: dict[str, str] = {
    "c172": "Aircraft/Laminar Research/Cessna 172 SP/Cessna_172SP.acf",
    "c172_g1000": "Aircraft/Laminar Research/Cessna 172 SP/Cessna_172SP_G1000.acf",
    "r22": "Aircraft/Laminar Research/Robinson R22 Beta II/R22.acf",
    "b738": "Aircraft/Laminar Research/Boeing 737-800/b738.acf",
}
#: `vehicle.ids.xplane` may name the .acf file without its folder
ACF_NAMES: dict[str, str] = {
    "Cessna_172SP": AIRCRAFT_PATHS["c172"],
    "Cessna_172SP_G1000": AIRCRAFT_PATHS["c172_g1000"],
    "R22": AIRCRAFT_PATHS["r22"],
    "b738": AIRCRAFT_PATHS["b738"],
}

#: failure system -> X-Plane failure dataref (int, writable; failure enum)
FAILURE_DATAREFS: dict[str, str] = {
    "engine": "sim/operation/failures/rel_engfai0",
    "vacuum_pump": "sim/operation/failures/rel_vacuum",
}
FAILURE_INOPERATIVE = 6.0

#: signals logged on every X-Plane task in addition to the task's own list
BASE_SIGNALS = (*AIRCRAFT_STATE, "engine_running", "engine_rpm", "throttle", "autopilot_on")


@dataclass
class TaskPlan:
    task_id: str
    flight: dict[str, Any] | None
    signals: list[str]
    snapshot_groups: list[str]
    #: harness-injected failures (the kit's plan; each failure's `target` is its dataref)
    failures: FailurePlan = field(default_factory=FailurePlan)
    notes: list[str] = field(default_factory=list)

    @property
    def injections(self) -> list[PlannedFailure]:
        """The planned failures, in task order."""
        return self.failures.failures


def aircraft_path(task: "TaskSpec") -> str:
    ids = task.vehicle.ids
    if "xplane" in ids:
        acf = ids["xplane"]
        if "/" in acf:
            return acf
        stem = acf[:-4] if acf.endswith(".acf") else acf
        if stem in ACF_NAMES:
            return ACF_NAMES[stem]
        raise KeyError(f"{task.id}: X-Plane aircraft {acf!r} has no known path; give the path under Aircraft/")
    model = task.vehicle.model.lower()
    if "r22" in model or "robinson" in model:
        return AIRCRAFT_PATHS["r22"]
    if "737" in model:
        return AIRCRAFT_PATHS["b738"]
    if "172" in model:
        return AIRCRAFT_PATHS["c172_g1000" if "g1000" in model else "c172"]
    raise KeyError(f"{task.id}: no X-Plane aircraft for {task.vehicle.model!r}; set vehicle.ids.xplane")


def _helipad_point(task: "TaskSpec") -> tuple[float, float] | None:
    ist = task.initial_state
    if ist.position is not None:
        return ist.position.lat_deg, ist.position.lon_deg
    for c in task.geometry.circles:
        if c.centre is not None and (ist.helipad is None or c.id == ist.helipad or "pad" in c.id):
            return c.centre.lat_deg, c.centre.lon_deg
    return None


def flight_init(task: "TaskSpec") -> dict[str, Any]:
    """The Flight Initialization JSON for the task's initial state."""
    ist = task.initial_state
    flight: dict[str, Any] = {"aircraft": {"path": aircraft_path(task)}}
    if ist.on_ground is False and ist.position is not None:
        flight["lle_air_start"] = {  # UNCONFIRMED field names
            "latitude": ist.position.lat_deg,
            "longitude": ist.position.lon_deg,
            "elevation_in_meters": (ist.alt_msl_ft or 0.0) * 0.3048,
            "heading_true": ist.heading_deg or 0.0,
            "speed_in_meters_per_second": (ist.ias_kt or 0.0) * 1852 / 3600,
        }
    elif ist.runway and ist.airport:
        flight["runway_start"] = {"airport_id": ist.airport, "runway": ist.runway}
    elif ist.helipad is not None and (pt := _helipad_point(task)) is not None:
        flight["lle_ground_start"] = {"latitude": pt[0], "longitude": pt[1], "heading_true": ist.heading_deg or 0.0}
    elif ist.airport:
        ramp: dict[str, Any] = {"airport_id": ist.airport}
        if ist.parking and "any" not in ist.parking.lower():  # "gate (any terminal gate)": X-Plane's default ramp
            ramp["ramp"] = ist.parking  # UNCONFIRMED field name
        flight["ramp_start"] = ramp
    elif ist.position is not None:
        flight["lle_ground_start"] = {
            "latitude": ist.position.lat_deg,
            "longitude": ist.position.lon_deg,
            "heading_true": ist.heading_deg or 0.0,
        }
    else:
        raise KeyError(f"{task.id}: initial_state has no airport, runway, helipad or position to start from")
    if ist.engine in ("running", "cold_and_dark", "off"):
        flight["engine_status"] = {"all_engines": {"running": ist.engine == "running"}}  # UNCONFIRMED shape
    if ist.time.date or ist.time.local_time:
        lt: dict[str, Any] = {}
        if ist.time.date:
            lt["day_of_year"] = dt.date.fromisoformat(ist.time.date).timetuple().tm_yday
        if ist.time.local_time:
            hh, mm = (int(x) for x in ist.time.local_time.split(":"))
            lt["time_in_24_hours"] = hh + mm / 60
        flight["local_time"] = lt
    if ist.weather.preset == "clear":
        flight["weather"] = {"definition": "preset", "name": "clear"}  # UNCONFIRMED shape
    return flight


def plan_task(task: "TaskSpec", seed: int | None = None) -> TaskPlan:
    base_id = task.id.split("@")[0]
    signals = [s for s in dict.fromkeys([*BASE_SIGNALS, *task.signals]) if s in TABLE]
    missing = [s for s in task.signals if s not in TABLE]
    ist = task.initial_state
    starts = ist.airport or ist.runway or ist.helipad or ist.position
    flight = flight_init(task) if starts else None
    plan = TaskPlan(task.id, flight, signals, ["position", "radios", "aircraft"])
    if flight is None:
        plan.notes.append("no start location: the agent starts the flight through X-Plane's screens")
    if missing:
        plan.notes.append(f"no X-Plane mapping for {missing}; those columns stay empty")
    extra = []
    if base_id == "T11" and not any(f.injected_by == "harness" for f in task.initial_state.failures):
        from simbridge import FailureSpec, FailureTrigger

        extra.append(FailureSpec(system="engine", trigger=FailureTrigger(agl_ft_between=(400, 1200))))
    plan.failures = FailurePlan.from_task(task, seed, FAILURE_DATAREFS, extra=extra)
    plan.notes += [f"{u} has no X-Plane dataref; not injected" for u in plan.failures.unsupported]
    if base_id == "T08":
        plan.snapshot_groups += ["time", "weather", "failures"]
    if base_id in ("T04", "T20"):
        plan.snapshot_groups += ["autopilot", "fms"]
    if base_id == "T11":
        plan.snapshot_groups += ["failures"]
    return plan


__all__ = ["FAILURE_DATAREFS", "FAILURE_INOPERATIVE", "TaskPlan", "draw_height", "plan_task"]
