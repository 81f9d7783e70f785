"""The CARLA recorder binary format: packet ids and record layouts (little-endian, packed).

Sources: carla-simulator/carla `Unreal/CarlaUE4/Plugins/Carla/Source/Carla/Recorder/*` (every
record struct is `#pragma pack(push, 1)`) and `Docs/ref_recorder_binary_file_format.md`.

File = header + packets. Header: u16 version (1), FString magic `CARLA_RECORDER`, i64 date
(Unix seconds: the recorder writes `std::time(0)`), FString map name. FString = u16 byte
length + UTF-8 bytes without NUL. Packet = u8 id + u32 data size + data; most packets start
their data with a u16 record count.

Packet ids 0-20 are the same in 0.9.13-0.9.16. Later ids moved:

* 0.9.14/0.9.15: 21 AnimVehicleWheels, 22 AnimBiker.
* ue4-dev builds between PR #6922 (Nov 2023) and PR #8779 (Mar 2025) inserted VehicleDoor as
  21, shifting wheels to 22 and biker to 23. PR #8779 moved VehicleDoor to the end "so that a
  uint8_t value of 21 in an old log file is interpreted as AnimVehicleWheels" again; 0.9.16 is
  therefore 21 wheels, 22 biker, 23 door. UNCONFIRMED on a 0.9.16 recording (none available):
  taken from the PR's description. A later Weather packet (PR #9556) comes after those; its
  record layout changed while it was written, so it is skipped as an unknown id.

Readers must skip what they do not know by its size; the reader here also checks each known
packet's size against its layout, and recognises the 2023-2025 ue4-dev order by structure.
"""

from __future__ import annotations

import enum

import numpy as np


class PacketId(enum.IntEnum):
    FRAME_START = 0
    FRAME_END = 1
    EVENT_ADD = 2
    EVENT_DEL = 3
    EVENT_PARENT = 4
    COLLISION = 5
    POSITION = 6
    TRAFFIC_LIGHT_STATE = 7
    ANIM_VEHICLE = 8
    ANIM_WALKER = 9
    VEHICLE_LIGHT = 10
    SCENE_LIGHT = 11
    KINEMATICS = 12
    BOUNDING_BOX = 13
    PLATFORM_TIME = 14
    PHYSICS_CONTROL = 15
    TRAFFIC_LIGHT_TIME = 16
    TRIGGER_VOLUME = 17
    FRAME_COUNTER = 18
    WALKER_BONES = 19
    VISUAL_TIME = 20
    ANIM_VEHICLE_WHEELS = 21
    ANIM_BIKER = 22
    VEHICLE_DOOR = 23


class ActorKind(enum.IntEnum):
    """`CarlaRecorderEventAdd::Type` = FCarlaActor::ActorType (Carla/Actor/CarlaActor.h).

    The binary-format doc lists only 0-4 (4 = INVALID); since FCarlaActor (0.9.12) the enum is
    Other, Vehicle, Walker, TrafficLight, TrafficSign, Sensor, INVALID, and 0.9.13 logs hold 5.
    """

    OTHER = 0
    VEHICLE = 1
    WALKER = 2
    TRAFFIC_LIGHT = 3
    TRAFFIC_SIGN = 4
    SENSOR = 5
    INVALID = 6


class TrafficLightState(enum.IntEnum):
    """ETrafficLightState as written into the state packet (one char)."""

    RED = 0
    YELLOW = 1
    GREEN = 2
    OFF = 3
    UNKNOWN = 4


#: actor id the recorder writes for a collision partner that is not a CARLA actor (uint32(-1))
NON_ACTOR_ID = 0xFFFFFFFF

MAGIC = "CARLA_RECORDER"

_F = "<f4"
FRAME_START = np.dtype([("frame", "<u8"), ("duration_s", "<f8"), ("elapsed_s", "<f8")])

#: fixed-size records of count-prefixed packets, by packet id
RECORD_DTYPES: dict[int, np.dtype] = {
    PacketId.EVENT_DEL: np.dtype([("id", "<u4")]),
    PacketId.EVENT_PARENT: np.dtype([("id", "<u4"), ("parent", "<u4")]),
    PacketId.COLLISION: np.dtype(
        [("collision_id", "<u4"), ("actor1", "<u4"), ("actor2", "<u4"), ("hero1", "u1"), ("hero2", "u1")]
    ),
    # location in cm; rotation in degrees as FRotator::Euler(): X roll, Y pitch, Z yaw
    PacketId.POSITION: np.dtype(
        [("id", "<u4"), ("x", _F), ("y", _F), ("z", _F), ("roll", _F), ("pitch", _F), ("yaw", _F)]
    ),
    PacketId.TRAFFIC_LIGHT_STATE: np.dtype([("id", "<u4"), ("frozen", "u1"), ("elapsed_s", _F), ("state", "u1")]),
    PacketId.ANIM_VEHICLE: np.dtype(
        [("id", "<u4"), ("steer", _F), ("throttle", _F), ("brake", _F), ("handbrake", "u1"), ("gear", "<i4")]
    ),
    PacketId.ANIM_WALKER: np.dtype([("id", "<u4"), ("speed", _F)]),
    PacketId.VEHICLE_LIGHT: np.dtype([("id", "<u4"), ("lights", "<u4")]),
    PacketId.SCENE_LIGHT: np.dtype(
        [("id", "<i4"), ("intensity", _F), ("r", _F), ("g", _F), ("b", _F), ("a", _F), ("on", "u1"), ("type", "u1")]
    ),
    # velocity in m/s (AddActorKinematics scales UE's cm/s by 1e-2); angular velocity as UE
    # reports it, deg/s (UNCONFIRMED: not scaled by the recorder, unit not stated there)
    PacketId.KINEMATICS: np.dtype(
        [("id", "<u4"), ("vx", _F), ("vy", _F), ("vz", _F), ("wx", _F), ("wy", _F), ("wz", _F)]
    ),
    PacketId.BOUNDING_BOX: np.dtype(
        [("id", "<u4"), ("ox", _F), ("oy", _F), ("oz", _F), ("ex", _F), ("ey", _F), ("ez", _F)]
    ),
    PacketId.TRAFFIC_LIGHT_TIME: np.dtype([("id", "<u4"), ("green_s", _F), ("yellow_s", _F), ("red_s", _F)]),
    PacketId.TRIGGER_VOLUME: np.dtype(
        [("id", "<u4"), ("ox", _F), ("oy", _F), ("oz", _F), ("ex", _F), ("ey", _F), ("ez", _F)]
    ),
    PacketId.ANIM_BIKER: np.dtype([("id", "<u4"), ("forward_speed", _F), ("engine_rotation", _F)]),
    PacketId.VEHICLE_DOOR: np.dtype([("id", "<u4"), ("door", "u1"), ("open", "u1")]),
}

#: packets holding one scalar and no record count
SCALAR_DTYPES: dict[int, np.dtype] = {
    PacketId.PLATFORM_TIME: np.dtype("<f8"),
    PacketId.FRAME_COUNTER: np.dtype("<u8"),
    PacketId.VISUAL_TIME: np.dtype("<f8"),
}

#: one wheel of an AnimVehicleWheels record: EVehicleWheelLocation (uint8), steer deg, rotation deg
WHEEL = np.dtype([("wheel", "u1"), ("steer_deg", _F), ("rotation_deg", _F)])
