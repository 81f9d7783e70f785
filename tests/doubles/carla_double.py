"""A test double of the `carla` Python client API — NOT CARLA.

It implements only the part of the client API that `simbridge.adapters.carla.CarlaSession`
calls (names and signatures as in carla 0.9.16's `libcarla.pyi`), with a toy world behind it:
point-mass cars (speed from throttle/brake, yaw rate from steer), walkers that follow their
WalkerControl, a collision when the ego comes within 2 m of another vehicle or walker, a lane
invasion when the ego's y leaves its spawn lane (|y - y_spawn| > 1.5 m). It has no physics, no
rendering and no roads; it exists to test the session's sequencing, not to stand in for results.

On `stop_recorder()` it hands its tick history to `write_recording(path, history)` if the test
gave one, so a test can check the session's import of "the server recording".
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Callable


class Vector3D:
    def __init__(self, x: float = 0.0, y: float = 0.0, z: float = 0.0) -> None:
        self.x, self.y, self.z = float(x), float(y), float(z)


class Location(Vector3D):
    def distance(self, other: "Location") -> float:
        return math.sqrt((self.x - other.x) ** 2 + (self.y - other.y) ** 2 + (self.z - other.z) ** 2)


class Rotation:
    def __init__(self, pitch: float = 0.0, yaw: float = 0.0, roll: float = 0.0) -> None:
        self.pitch, self.yaw, self.roll = float(pitch), float(yaw), float(roll)


class Transform:
    def __init__(self, location: Location | None = None, rotation: Rotation | None = None) -> None:
        self.location = location or Location()
        self.rotation = rotation or Rotation()

    def __repr__(self) -> str:
        return f"Transform(x={self.location.x}, y={self.location.y}, yaw={self.rotation.yaw})"


class VehicleControl:
    def __init__(
        self,
        throttle: float = 0.0,
        steer: float = 0.0,
        brake: float = 0.0,
        hand_brake: bool = False,
        reverse: bool = False,
        manual_gear_shift: bool = False,
        gear: int = 0,
    ) -> None:
        self.throttle, self.steer, self.brake = throttle, steer, brake
        self.hand_brake, self.reverse, self.manual_gear_shift, self.gear = hand_brake, reverse, manual_gear_shift, gear


class WalkerControl:
    def __init__(self, direction: Vector3D | None = None, speed: float = 0.0, jump: bool = False) -> None:
        self.direction, self.speed, self.jump = direction or Vector3D(1, 0, 0), speed, jump


class WorldSettings:
    def __init__(
        self, synchronous_mode: bool = False, no_rendering_mode: bool = False, fixed_delta_seconds: float | None = None
    ) -> None:
        self.synchronous_mode = synchronous_mode
        self.no_rendering_mode = no_rendering_mode
        self.fixed_delta_seconds = fixed_delta_seconds


@dataclass
class Timestamp:
    frame: int
    elapsed_seconds: float
    delta_seconds: float
    platform_timestamp: float = 0.0


@dataclass
class WorldSnapshot:
    frame: int
    timestamp: Timestamp


@dataclass
class LaneMarking:
    type: str = "Solid"


@dataclass
class CollisionEvent:
    actor: Any
    other_actor: Any
    normal_impulse: Vector3D
    frame: int = 0


@dataclass
class LaneInvasionEvent:
    actor: Any
    crossed_lane_markings: list[LaneMarking]
    frame: int = 0


class ActorBlueprint:
    def __init__(self, id: str) -> None:
        self.id = id
        self.attributes: dict[str, str] = {"role_name": ""}
        if id.startswith("walker."):
            self.attributes["is_invincible"] = "true"

    def has_attribute(self, id: str) -> bool:
        return id in self.attributes

    def set_attribute(self, id: str, value: str) -> None:
        if id not in self.attributes:
            raise IndexError(id)
        self.attributes[id] = value


class BlueprintLibrary:
    PREFIXES = ("vehicle.", "walker.", "sensor.other.collision", "sensor.other.lane_invasion", "sensor.camera.rgb")

    def find(self, id: str) -> ActorBlueprint:
        if not id.startswith(self.PREFIXES):
            raise IndexError(f"blueprint {id!r} not found")
        return ActorBlueprint(id)


class Actor:
    def __init__(self, world: "World", actor_id: int, bp: ActorBlueprint, transform: Transform, parent: Any) -> None:
        self.world, self.id, self.type_id = world, actor_id, bp.id
        self.attributes = dict(bp.attributes)
        self.parent = parent
        self._tf = Transform(
            Location(transform.location.x, transform.location.y, transform.location.z),
            Rotation(0, transform.rotation.yaw, 0),
        )
        self._speed = 0.0
        self._control = VehicleControl()
        self._walker = WalkerControl(speed=0.0)
        self._callback: Callable[[Any], None] | None = None
        self.is_alive = True

    def get_transform(self) -> Transform:
        return self._tf

    def get_location(self) -> Location:
        return self._tf.location

    def get_velocity(self) -> Vector3D:
        a = math.radians(self._tf.rotation.yaw)
        return Vector3D(self._speed * math.cos(a), self._speed * math.sin(a), 0.0)

    def get_control(self) -> VehicleControl:
        return self._control

    def apply_control(self, control: Any) -> None:
        if not hasattr(control, "throttle"):  # a WalkerControl (the double's or the real one)
            self._walker = control
        else:
            self._control = control

    def listen(self, callback: Callable[[Any], None]) -> None:
        self._callback = callback

    def stop(self) -> None:
        self._callback = None

    @property
    def is_listening(self) -> bool:
        return self._callback is not None

    def destroy(self) -> bool:
        self.is_alive = False
        self.world.actors.pop(self.id, None)
        return True


class Waypoint:
    def __init__(self, transform: Transform, lane_id: int, is_junction: bool = False) -> None:
        self.transform, self.lane_id, self.is_junction = transform, lane_id, is_junction

    def next(self, distance: float) -> list["Waypoint"]:
        """The double's roads run straight on forever along the waypoint's yaw."""
        a = math.radians(self.transform.rotation.yaw)
        loc = self.transform.location
        ahead = Location(loc.x + distance * math.cos(a), loc.y + distance * math.sin(a), loc.z)
        return [Waypoint(Transform(ahead, Rotation(0, self.transform.rotation.yaw, 0)), self.lane_id)]


class Map:
    def __init__(
        self, name: str, spawn_points: list[Transform], opendrive: str, lane_of: Callable[[Location], int]
    ) -> None:
        self.name = name
        self._spawn_points = spawn_points
        self._opendrive = opendrive
        self._lane_of = lane_of

    def get_spawn_points(self) -> list[Transform]:
        return list(self._spawn_points)

    def get_waypoint(self, location: Location, project_to_road: bool = True, lane_type: Any = None) -> Waypoint:
        return Waypoint(Transform(Location(location.x, location.y, location.z)), self._lane_of(location))

    def to_opendrive(self) -> str:
        return self._opendrive


class World:
    def __init__(self, server: "Server", town: str) -> None:
        self.server = server
        self.map = Map(f"Carla/Maps/{town}", server.spawn_points, server.opendrive, server.lane_of)
        self.settings = WorldSettings()
        self.actors: dict[int, Actor] = {}
        self.frame = 0
        self.elapsed = 0.0
        self._next_id = 100
        self.collided: set[int] = set()

    def get_settings(self) -> WorldSettings:
        s = self.settings
        return WorldSettings(s.synchronous_mode, s.no_rendering_mode, s.fixed_delta_seconds)

    def apply_settings(self, world_settings: WorldSettings) -> int:
        self.settings = WorldSettings(
            world_settings.synchronous_mode, world_settings.no_rendering_mode, world_settings.fixed_delta_seconds
        )
        return self.frame

    def get_map(self) -> Map:
        return self.map

    def get_blueprint_library(self) -> BlueprintLibrary:
        return BlueprintLibrary()

    def try_spawn_actor(
        self,
        blueprint: ActorBlueprint,
        transform: Transform,
        attach_to: Actor | None = None,
        attachment_type: Any = None,
    ) -> Actor | None:
        if attach_to is None and not blueprint.id.startswith("sensor."):
            for a in self.actors.values():
                if a.parent is None and a.get_location().distance(transform.location) < 1.0:
                    return None  # occupied
        self._next_id += 1
        actor = Actor(self, self._next_id, blueprint, transform, attach_to)
        self.actors[actor.id] = actor
        return actor

    def spawn_actor(
        self,
        blueprint: ActorBlueprint,
        transform: Transform,
        attach_to: Actor | None = None,
        attachment_type: Any = None,
    ) -> Actor:
        actor = self.try_spawn_actor(blueprint, transform, attach_to)
        if actor is None:
            raise RuntimeError("Spawn failed because of collision at spawn position")
        return actor

    def get_snapshot(self) -> WorldSnapshot:
        dt = self.settings.fixed_delta_seconds or 0.05
        return WorldSnapshot(self.frame, Timestamp(self.frame, self.elapsed, dt))

    def tick(self, seconds: float = 10.0) -> int:
        if not self.settings.synchronous_mode:
            raise RuntimeError("tick() in asynchronous mode")
        dt = self.settings.fixed_delta_seconds or 0.05
        self.frame += 1
        self.elapsed += dt
        movers = [a for a in self.actors.values() if a.parent is None]
        for a in movers:
            if a.type_id.startswith("vehicle."):
                c = a._control
                acc = 4.0 * c.throttle - 8.0 * c.brake - (20.0 if c.hand_brake else 0.0) - 0.1
                a._speed = max(0.0, a._speed + acc * dt)
                a._tf.rotation.yaw += 40.0 * c.steer * dt * min(1.0, a._speed)
                r = math.radians(a._tf.rotation.yaw)
                sign = -1.0 if c.reverse else 1.0
                a._tf.location.x += sign * a._speed * dt * math.cos(r)
                a._tf.location.y += sign * a._speed * dt * math.sin(r)
            elif a.type_id.startswith("walker."):
                w = a._walker
                a._tf.location.x += w.direction.x * w.speed * dt
                a._tf.location.y += w.direction.y * w.speed * dt
        collisions = []
        for s in [a for a in self.actors.values() if a.parent is not None]:
            ego = s.parent
            if s.type_id == "sensor.other.collision" and s._callback:
                for o in movers:
                    if (
                        o is not ego
                        and o.id not in self.collided
                        and ego.get_location().distance(o.get_location()) < 2.0
                    ):
                        self.collided.add(o.id)
                        collisions.append((ego.id, o.id))
                        s._callback(CollisionEvent(ego, o, Vector3D(ego._speed * 1500.0, 0, 0), self.frame))
            if s.type_id == "sensor.other.lane_invasion" and s._callback:
                y0 = float(ego.attributes.get("_spawn_y", ego.get_location().y))
                ego.attributes.setdefault("_spawn_y", str(y0))
                out = abs(ego.get_location().y - y0) > 1.5
                if out and not ego.attributes.get("_out"):
                    s._callback(LaneInvasionEvent(ego, [LaneMarking("Broken")], self.frame))
                ego.attributes["_out"] = "1" if out else ""
        if self.server.recording is not None:
            self.server.history.append(
                {
                    "frame": self.frame,
                    "elapsed": self.elapsed,
                    "collisions": collisions,
                    "actors": [
                        (
                            a.id,
                            a.type_id,
                            dict(a.attributes),
                            a._tf.location.x,
                            a._tf.location.y,
                            a._tf.location.z,
                            a._tf.rotation.yaw,
                            a._control.throttle,
                            a._control.steer,
                            a._control.brake,
                            a._speed,
                        )
                        for a in movers
                    ],
                }
            )
        return self.frame


@dataclass
class Server:
    """The double's server side: what the test configures and inspects."""

    towns: tuple[str, ...] = ("Town01", "Town03", "Town04")
    spawn_points: list[Transform] = field(
        default_factory=lambda: [Transform(Location(10.0, 20.0, 0.5), Rotation(0, 0, 0))]
    )
    opendrive: str = "<OpenDRIVE/>"
    lane_of: Callable[[Location], int] = lambda loc: -1
    version: str = "0.9.16 (test double)"
    write_recording: Callable[[str, list[dict[str, Any]]], None] | None = None
    world: World | None = None
    recording: str | None = None
    history: list[dict[str, Any]] = field(default_factory=list)
    calls: list[str] = field(default_factory=list)


class Client:
    server: Server = Server()

    def __init__(self, host: str = "127.0.0.1", port: int = 2000, worker_threads: int = 0) -> None:
        self.host, self.port = host, port
        self.server.calls.append(f"Client({host}, {port})")

    def set_timeout(self, seconds: float) -> None:
        self.server.calls.append("set_timeout")

    def get_server_version(self) -> str:
        return self.server.version

    def get_client_version(self) -> str:
        return self.server.version

    def load_world(self, map_name: str, reset_settings: bool = True, map_layers: Any = None) -> World:
        if map_name not in self.server.towns:
            raise RuntimeError(f"map '{map_name}' not found")
        self.server.calls.append(f"load_world({map_name})")
        self.server.world = World(self.server, map_name)
        return self.server.world

    def get_world(self) -> World:
        assert self.server.world is not None
        return self.server.world

    def start_recorder(self, filename: str, additional_data: bool = False) -> str:
        self.server.calls.append(f"start_recorder(additional_data={additional_data})")
        self.server.recording = filename
        self.server.history = []
        return filename

    def stop_recorder(self) -> None:
        self.server.calls.append("stop_recorder")
        if self.server.recording and self.server.write_recording:
            self.server.write_recording(self.server.recording, self.server.history)
        self.server.recording = None


class CarlaDouble:
    """Namespace passed as `carla_module=`: the classes above, bound to one `Server`."""

    def __init__(self, server: Server | None = None) -> None:
        self.server = server or Server()
        srv = self.server

        class BoundClient(Client):
            server = srv

        self.Client = BoundClient
        for cls in (Vector3D, Location, Rotation, Transform, VehicleControl, WalkerControl, WorldSettings):
            setattr(self, cls.__name__, cls)
