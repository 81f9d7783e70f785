"""Typed payloads of the event kinds simbridge's adapters emit (events.jsonl `data`).

Verifiers read events by kind (`bundle.events_of("collision")`), so a payload's field names
and types are a contract between adapters and verifiers. `BundleWriter.event` checks every
event against its kind's model before writing it; the bundle keeps `data` a plain dict.

Known fields are typed and checked; a payload may carry more fields than its model names (an
adapter may add facts without a release of this module), and a kind that is not listed here
(a third-party adapter's) is accepted with a generic payload: any JSON object.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from simbridge._errors import BundleError, first_error


class EventData(BaseModel):
    """The generic payload: any JSON object (the base of every kind's model)."""

    model_config = ConfigDict(extra="allow")


class CrashData(EventData):
    """`crash`: the vehicle crashed (the runner ends the episode; the verifier judges it)."""

    reason: str | None = Field(default=None, description="the simulator's crash reason, when it gives one")
    crashed: float | None = Field(default=None, description="the crashed signal's new value (1)")


class AutopilotChangeData(EventData):
    """`autopilot_change`: an autopilot mode or engagement changed; the modes' new values."""

    autopilot_on: float | None = None
    ap_hdg: float | None = None
    ap_nav: float | None = None
    ap_alt: float | None = None
    ap_apr: float | None = None


class FailureInjectedData(EventData):
    """`failure_injected`: the harness failed a system (an engine) during the episode.

    `trigger_agl_ft` is the planned trigger height, `agl_ft` the height at which the failure
    was actually injected (the first sample at or above the trigger), in every simulator.
    Bundles written before this schema are read the same way: jsbsim's old payload (`agl_ft`
    the trigger, `actual_agl_ft` the height at injection) is mapped onto these two fields."""

    system: str = Field(description="the failed system, as the task names it (e.g. engine)")
    trigger_agl_ft: float | None = Field(default=None, description="the planned trigger height above ground (ft)")
    agl_ft: float | None = Field(default=None, description="height above ground (ft) when the failure was injected")
    after_s: float | None = Field(default=None, description="the trigger's simulator time (s)")
    dataref: str | None = Field(default=None, description="what the adapter wrote (X-Plane dataref)")
    value: float | None = Field(default=None, description="the value it wrote")
    drawn_from_agl_ft: list[float] | None = Field(default=None, description="the range the trigger was drawn from")
    t: float | None = Field(default=None, description="simulator time of the injection (s)")
    drawn_from_after_s: list[float] | None = Field(
        default=None, description="the range the trigger time `after_s` was drawn from"
    )
    detail: dict[str, Any] | None = Field(
        default=None, description="what the simulator failed, in its terms (e.g. which magneto, which tank)"
    )

    @model_validator(mode="before")
    @classmethod
    def _legacy_jsbsim(cls, data: Any) -> Any:
        """Old jsbsim payloads: `agl_ft` was the trigger and `actual_agl_ft` the injection height."""
        if isinstance(data, Mapping) and "actual_agl_ft" in data and "trigger_agl_ft" not in data:
            data = dict(data)
            data["trigger_agl_ft"] = data.get("agl_ft")
            data["agl_ft"] = data.pop("actual_agl_ft")
        return data


class TouchdownData(EventData):
    """`touchdown`: the wheels met the ground."""

    vs_fpm: float | None = Field(default=None, description="vertical speed just before touchdown (ft/min)")


class CollisionData(EventData):
    """`collision`: the ego vehicle hit something (CARLA live sensor or recording import)."""

    other_kind: str | None = Field(default=None, description="vehicle, walker, static, ...")
    other_id: int | None = None
    other_type_id: str | None = None
    impulse: float | None = Field(default=None, description="normal impulse magnitude (N s)")
    collision_id: int | None = None
    x_m: float | None = None
    y_m: float | None = None


class LaneInvasionData(EventData):
    """`lane_invasion`: the ego vehicle crossed a lane marking or left its lane."""

    markings: list[str] | None = Field(default=None, description="crossed marking types (CARLA live sensor)")
    side: str | None = Field(default=None, description="left or right (recording import)")
    lane_id: int | None = None
    road_id: int | None = None
    lane_offset_m: float | None = None
    lane_width_m: float | None = None
    half_width_m: float | None = None


class RedLightData(EventData):
    """`red_light`: the ego vehicle entered a junction against a red light."""

    light_id: int | None = None
    road_id: int | None = None
    lane_id: int | None = None
    junction_id: int | None = None
    x_m: float | None = None
    y_m: float | None = None
    matched_by: str | None = Field(default=None, description="signal (OpenDRIVE) or nearest (distance)")


class ScenarioTriggerData(EventData):
    """`scenario_trigger`: the scenario did something on its own (a pedestrian starts crossing)."""

    what: str


class OpenBveScoreData(EventData):
    """`openbve_score`: one entry of OpenBVE's score log."""

    token: str
    token_id: int
    value: int
    position_m: float | None = None


#: event kind -> payload model; kinds not listed get `EventData`
EVENT_MODELS: dict[str, type[EventData]] = {
    "crash": CrashData,
    "autopilot_change": AutopilotChangeData,
    "failure_injected": FailureInjectedData,
    "touchdown": TouchdownData,
    "collision": CollisionData,
    "lane_invasion": LaneInvasionData,
    "red_light": RedLightData,
    "scenario_trigger": ScenarioTriggerData,
    "openbve_score": OpenBveScoreData,
}


def event_model(kind: str) -> type[EventData]:
    """The payload model of `kind` (the generic one for a kind not listed)."""
    return EVENT_MODELS.get(kind, EventData)


def validate_event(kind: str, data: Mapping[str, Any] | None) -> EventData:
    """`data` checked against `kind`'s model; BundleError naming the kind and field otherwise."""
    if not kind or not isinstance(kind, str):
        raise BundleError(f"event kind must be a non-empty string, not {kind!r}")
    try:
        return event_model(kind).model_validate(dict(data or {}))
    except ValidationError as exc:
        raise BundleError(first_error(exc, f"event {kind!r}", prefix="data.")) from None


__all__ = [
    "AutopilotChangeData",
    "CollisionData",
    "CrashData",
    "EVENT_MODELS",
    "EventData",
    "FailureInjectedData",
    "LaneInvasionData",
    "OpenBveScoreData",
    "RedLightData",
    "ScenarioTriggerData",
    "TouchdownData",
    "event_model",
    "validate_event",
]
