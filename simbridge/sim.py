"""The public contracts for simulator adapters and sandbox providers.

An adapter author needs nothing else: subclass `SimSession` (launch the simulator in the
sandbox through `Sandbox.spawn`, reach its state port with `Sandbox.reach`, hand out
`StateSample`s and `SimEvent`s), decide by the sandbox's capabilities (`Sandbox.telemetry`,
`Sandbox.harness_addr`, `Sandbox.isolated`), never by the provider's name, and raise
`HarnessError` for the harness's own faults, and register the session in a plug-in as an
`AdapterSpec` (docs/plugins.md). A provider subclasses `Provider` and returns a
`Sandbox`. Event payloads of the known kinds are typed here too (`CrashData`, ...; checked
when the bundle records an event).

The implementation lives in private modules; import these names from here.
"""

from simbridge._adapter import (
    Forward,
    LogTail,
    ProcessHandle,
    Sandbox,
    SimEvent,
    SimSession,
    Spawn,
    StateSample,
    Telemetry,
    process_state,
)
from simbridge._adapters_registry import AdapterSpec, EpisodeCost, ImporterSpec, Option
from simbridge._errors import HarnessError, SimbridgeError
from simbridge._user_cache import cached_text, user_cache_dir
from simbridge._events import (
    EVENT_MODELS,
    AutopilotChangeData,
    CollisionData,
    CrashData,
    EventData,
    FailureInjectedData,
    LaneInvasionData,
    OpenBveScoreData,
    RedLightData,
    ScenarioTriggerData,
    TouchdownData,
    event_model,
    validate_event,
)
from simbridge._net import free_port
from simbridge._providers._base import SCREEN_DEPTH, SCREEN_H, SCREEN_W, Provider
from simbridge._providers._procs import end_process, kill_group

__all__ = [
    # adapters
    "SimSession",
    # what a plug-in registers a simulator as (simbridge.registry, kind `simulator`)
    "AdapterSpec",
    "EpisodeCost",
    "ImporterSpec",
    "Option",
    "StateSample",
    "SimEvent",
    # sandboxes and providers
    "Sandbox",
    "Provider",
    "ProcessHandle",
    "LogTail",
    "Spawn",
    "Forward",
    "Telemetry",
    "SCREEN_W",
    "SCREEN_H",
    "SCREEN_DEPTH",
    # process and port helpers for launching a simulator
    "process_state",
    "end_process",
    "kill_group",
    "free_port",
    # the per-user cache, for what an adapter converts once and keeps between processes
    "user_cache_dir",
    "cached_text",
    # event payloads
    "EventData",
    "CrashData",
    "AutopilotChangeData",
    "FailureInjectedData",
    "TouchdownData",
    "CollisionData",
    "LaneInvasionData",
    "RedLightData",
    "ScenarioTriggerData",
    "OpenBveScoreData",
    "EVENT_MODELS",
    "event_model",
    "validate_event",
    # errors
    "HarnessError",
    "SimbridgeError",
]
