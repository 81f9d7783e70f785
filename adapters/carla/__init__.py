"""CARLA: recorder-file reader, bundle importer with OpenDRIVE lane geometry, live client.

The reader and importer need only numpy (scipy speeds up lane lookups); the live client needs
the `carla` client package (`pip install simbridge[carla]`) and a reachable CARLA server.
"""

from simbridge.adapters.carla._errors import OpenDriveError, RecorderFormatError
from simbridge.adapters.carla._format import ActorKind, PacketId, TrafficLightState
from simbridge.adapters.carla._import import build, find_ego, import_recording
from simbridge.adapters.carla._manual import Control, Hud, KeyboardDriver, Keys, ManualControlWindow
from simbridge.adapters.carla._reader import (
    Actor,
    Collision,
    Packet,
    RecorderHeader,
    RecorderReader,
    Recording,
    Track,
    read_recording,
)
from simbridge.adapters.carla._session import CarlaSession, manual_control_window, plan_route, probe_server
from simbridge.adapters.kit.opendrive import LaneLocator, LanePosition, OpenDriveMap, read_opendrive

__all__ = [
    "Actor",
    "ActorKind",
    "CarlaSession",
    "Collision",
    "Control",
    "Hud",
    "KeyboardDriver",
    "Keys",
    "ManualControlWindow",
    "LaneLocator",
    "LanePosition",
    "OpenDriveError",
    "OpenDriveMap",
    "Packet",
    "PacketId",
    "RecorderFormatError",
    "RecorderHeader",
    "RecorderReader",
    "Recording",
    "Track",
    "TrafficLightState",
    "build",
    "find_ego",
    "import_recording",
    "manual_control_window",
    "plan_route",
    "probe_server",
    "read_opendrive",
    "read_recording",
]
