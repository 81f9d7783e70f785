"""What one run is: the configuration an episode is opened with (`RunConfig`), the result it
closes with (`TrialResult`), and the simulator it names resolved to its session class.

`RunConfig` is the one configuration type: the framework integrations' `EpisodeConfig` and the
eval driver's `EpisodeSpec` are turned into it (`RunConfig.of`), never copied field by field.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from simbridge._adapter import SimSession
from simbridge._errors import SimbridgeError
from simbridge._score import Score
from simbridge._status import AGENT_OUTCOMES as AGENT_OUTCOMES  # re-exported: the groups live in _status
from simbridge.registry import load

if TYPE_CHECKING:
    from simbridge._task import TaskSpec


#: simulator seconds the simulator runs after each input in lockstep, unless a run says otherwise
#: (`run --slice`, a suite's `lockstep_slice_s`, Gymnasium's `step_s`, Inspect's `lockstep_slice_s`)
DEFAULT_LOCKSTEP_SLICE_S = 0.1


@dataclass
class RunConfig:
    task: str
    sim: str
    agent: str
    trials: int = 1
    out: Path | None = None
    lockstep: bool = False
    #: simulator seconds the simulator runs after each input in lockstep
    lockstep_slice_s: float = DEFAULT_LOCKSTEP_SLICE_S
    seed: int | None = None
    provider: str = "local"
    #: run even when the isolation audit fails; every score is then marked unisolated
    unisolated: bool = False
    #: save a PNG of the screen when the task clock passes these times (simulator seconds)
    snapshot_at: list[float] = field(default_factory=list)
    #: periodic screen frames (JPEG, half size) per simulator second; 0 disables
    frame_hz: float = 1.0
    #: cut the task's time limit (for smoke runs); recorded as a flag
    time_limit_s: float | None = None
    #: the agent port's MCP server: address and TCP port (0 = a free one), optional bearer token
    mcp_host: str = "127.0.0.1"
    mcp_port: int = 0
    #: the bearer token the agent's MCP client must send; None: a fresh random one per episode
    token: str | None = None
    #: False (--no-token): the agent port admits any client without a token; flagged agent_port_auth:none
    auth: bool = True
    #: assists the simulator shows beyond the real vehicle's own displays (--assist NAME; what the
    #: simulator's adapter offers, `offered_assists`): recorded in episode.json `assists`, flagged
    #: `assist:NAME`, never pooled with unassisted episodes
    assists: tuple[str, ...] = ()
    #: the MCP `computer` tool returns the screen after each action
    computer_screenshot: bool = True
    #: an external agent whose MCP client has left for this long has disconnected (agent outcome)
    disconnect_grace_s: float = 10.0
    #: an external agent that has had no request in flight for this long has gone (wall seconds;
    #: the stateless MCP protocol has no connection whose loss could tell sooner)
    idle_timeout_s: float = 300.0
    #: also write the agent port's status (URL, ready) here, besides RUN_DIR/agent_port.json
    status_file: Path | None = None
    #: seconds an external (mcp) agent has to make its first request before the episode starts without it
    connect_timeout_s: float | None = None
    #: print progress lines here
    say: Callable[[str], None] = print

    @classmethod
    def of(cls, source: Any, **overrides: Any) -> "RunConfig":
        """A RunConfig from any object (or mapping) with some of its fields: the fields it
        has are taken, `overrides` win, the rest keep their defaults."""
        get = source.get if isinstance(source, dict) else lambda k, d: getattr(source, k, d)
        missing = object()
        given = {f.name: v for f in dataclasses.fields(cls) if (v := get(f.name, missing)) is not missing}
        return cls(**{**given, **overrides})


@dataclass
class TrialResult:
    trial: int
    path: Path
    status: str
    detail: str
    score: Score | None
    sim_s: float
    n_actions: int
    snapshots: list[Path] = field(default_factory=list)
    n_failed_actions: int = 0


def resolve_session(sim: str) -> type[SimSession]:
    """A simulator name from the registry, or `module:Class` of any SimSession (tests, plug-ins)."""
    if ":" in sim:
        cls = load(sim, f"simulator {sim!r}")
        if not (isinstance(cls, type) and issubclass(cls, SimSession)):
            raise SimbridgeError(f"simulator {sim!r} is not a SimSession class")
        return cls
    from simbridge._sims import session_class

    return session_class(sim)


def offered_assists(sim: str) -> dict[str, str]:
    """The assists simulator `sim` offers (name -> what it shows): its AdapterSpec's `assists`;
    a `module:Class` simulator, which has no AdapterSpec, declares them as the class's
    `offered_assists`."""
    if ":" in sim:
        return dict(getattr(resolve_session(sim), "offered_assists", None) or {})
    from simbridge._adapters_registry import adapter

    return dict(adapter(sim).assists)


def check_assists(sim: str, assists: Any) -> tuple[str, ...]:
    """The assists asked for, each once and sorted; one the simulator does not offer is a
    SimbridgeError naming it and what the simulator offers."""
    names = [assists] if isinstance(assists, str) else list(assists or ())
    offered = offered_assists(sim) if names else {}
    for name in names:
        if not isinstance(name, str) or name not in offered:
            have = ", ".join(sorted(offered)) or "none"
            raise SimbridgeError(f"assist {name!r}: simulator {sim!r} does not offer it (it offers: {have})")
    return tuple(sorted(set(names)))


def assist_flags(assists: Any) -> list[str]:
    """The episode's and score's flags for its assists: `assist:NAME` each."""
    return [f"assist:{a}" for a in assists]


def check_sim(task: "TaskSpec", sim: str) -> None:
    """Refuse a simulator the task does not run on (a `module:Class` simulator is the caller's choice)."""
    if ":" in sim:
        return
    allowed = [task.simulator.name, *task.simulator.alternatives]
    if sim not in allowed:
        raise SimbridgeError(f"task {task.id} runs on {', '.join(allowed)}, not {sim!r}")
