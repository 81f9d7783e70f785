"""What the driver's window draws each frame: the contract between the world (SUMO traffic, the
ego vehicle's dynamics) and the view (perspective scene, HUD, minimap).

All positions are CARLA world metres and degrees: x east-ish, y = -y of OpenDRIVE (CARLA's
left-handed frame), yaw measured so that the heading vector is (cos yaw, sin yaw) in (x, y), i.e.
yaw_carla = -yaw_opendrive. The ground is flat (z = 0); heights are above the road surface.
SUMO's network coordinates are OpenDRIVE's shifted by the net's `netOffset`:
`carla_xy(sumo_x, sumo_y, offset)` converts.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

ActorKind = Literal["vehicle", "pedestrian", "static"]
LightState = Literal["red", "yellow", "green", "off"]


def carla_xy(sumo_x: float, sumo_y: float, net_offset: tuple[float, float]) -> tuple[float, float]:
    """SUMO network coordinates -> CARLA world metres (OpenDRIVE = SUMO - netOffset, then y flipped)."""
    return sumo_x - net_offset[0], -(sumo_y - net_offset[1])


def sumo_xy(x_m: float, y_m: float, net_offset: tuple[float, float]) -> tuple[float, float]:
    """CARLA world metres -> SUMO network coordinates (the inverse of `carla_xy`)."""
    return x_m + net_offset[0], -y_m + net_offset[1]


@dataclass(frozen=True)
class Actor:
    """Another road user or obstacle, drawn as a box (vehicles, static) or an upright figure."""

    actor_id: str
    kind: ActorKind
    x_m: float
    y_m: float
    yaw_deg: float
    length_m: float
    width_m: float
    height_m: float
    rgb: tuple[int, int, int] = (90, 90, 160)


@dataclass(frozen=True)
class LightHead:
    """A traffic-light head on its pole beside the stop line, facing the approaching traffic."""

    light_id: str
    x_m: float
    y_m: float
    #: direction the lamps face (towards the drivers who must obey them)
    yaw_deg: float
    state: LightState
    height_m: float = 4.5


@dataclass(frozen=True)
class EgoControls:
    """The controls as CARLA's manual_control shows them on its HUD."""

    throttle: float = 0.0
    steer: float = 0.0
    brake: float = 0.0
    reverse: bool = False
    hand_brake: bool = False
    manual_gear_shift: bool = False
    gear: int = 1


@dataclass(frozen=True)
class Frame:
    """One frame of the world as the driver sees it."""

    sim_time_s: float
    town: str
    ego_x_m: float
    ego_y_m: float
    ego_yaw_deg: float
    speed_kmh: float
    controls: EgoControls
    actors: tuple[Actor, ...] = ()
    lights: tuple[LightHead, ...] = ()
    #: route polyline for the minimap (CARLA metres), empty when the task has no route
    route_xy_m: tuple[tuple[float, float], ...] = ()
    #: marked areas painted on the road (e.g. T07's parking bay), each a closed polygon
    road_marks_xy_m: tuple[tuple[tuple[float, float], ...], ...] = ()
    #: (sim_time_s, text) of recent collisions, newest last, as manual_control's notices
    collisions: tuple[tuple[float, str], ...] = ()
    #: one-line notices shown briefly (e.g. "Autopilot is disabled")
    notices: tuple[str, ...] = field(default_factory=tuple)
    vehicle_name: str = "Lincoln MKZ 2017"
