"""X-Plane adapter: XPlaneConnect (UDP 49009), native UDP (49000: RREF/DREF/CMND/BECN), Web API (8086).

Built from X-Plane's documented protocols and proven against the protocol double in
`tests/doubles/xplane_double.py`, never against a real X-Plane in this repository's tests.
"""

from simbridge.adapters.xplane._fms import FmsEntry, FmsProbeClient
from simbridge.adapters.xplane._frames import Frame, FrameAssembler
from simbridge.adapters.xplane._lockdown import (
    LockdownError,
    LockdownReport,
    host_only_rules,
    inspect_install,
    require_locked_down,
)
from simbridge.adapters.xplane._logger import RrefLogger
from simbridge.adapters.xplane._mapping import CLOCK_DATAREF, TABLE, SignalMap
from simbridge.adapters.xplane._recorder import XPlaneRecorder
from simbridge.adapters.xplane._session import XPlaneSession
from simbridge.adapters.xplane._tasks import TaskPlan, flight_init, plan_task
from simbridge.adapters.xplane._udp import RrefPacket, UdpClient, listen_beacon
from simbridge.adapters.xplane._webapi import WebApiClient, WebSocketSubscription
from simbridge.adapters.xplane._xpc import XpcClient

__all__ = [
    "CLOCK_DATAREF",
    "FmsEntry",
    "FmsProbeClient",
    "Frame",
    "FrameAssembler",
    "LockdownError",
    "LockdownReport",
    "RrefLogger",
    "RrefPacket",
    "SignalMap",
    "TABLE",
    "TaskPlan",
    "UdpClient",
    "WebApiClient",
    "WebSocketSubscription",
    "XPlaneRecorder",
    "XPlaneSession",
    "XpcClient",
    "flight_init",
    "host_only_rules",
    "inspect_install",
    "listen_beacon",
    "plan_task",
    "require_locked_down",
]
