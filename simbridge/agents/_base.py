"""The Agent interface: what the runner drives, and all an agent may use.

An agent sees the task (its instruction) and acts only through an `AgentPortClient` (screen
pixels out, keyboard/mouse in). It never sees the simulator's state. The runner calls

    agent.setup(ctx)                          # before the simulator starts (optional)
    result = agent.run(port, task, deadline_s)
    agent.close()                             # always, also after errors (optional)

`run` is called on a worker thread and returns "done" (the agent believes the task is complete)
or "give_up". `deadline_s` is the task-clock time limit (simulator seconds since the episode
start, the same clock as `port.elapsed()`); at that point the runner ends the episode and every
further port call raises `EpisodeOver`, which `run` may simply let propagate. Calling
`port.done()` / `port.give_up()` ends the episode at once, exactly like returning.

Any exception out of `run` is the agent's own failure (`agent_quit`, scored), except
`ExternalFault`: raise it for a failure outside the agent's control (the model's API is
unreachable or errors, the framework driving the agent crashed or was cancelled). The episode
then ends `harness_error`, unscored, with that reason, and `simbridge run`/`eval` exit 4.
"""

from __future__ import annotations

import abc
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from simbridge._errors import HarnessError

if TYPE_CHECKING:
    from simbridge._agent_port import AgentPortClient
    from simbridge._task import TaskSpec

AgentResult = Literal["done", "give_up"]


class ExternalFault(HarnessError):
    """A failure outside the agent's control (model/API error, a crash or cancellation of the
    framework driving the agent). Raised out of `Agent.run`, it ends the episode unscored
    (`harness_error`, detail "outside the agent: MESSAGE") instead of as the agent's failure."""


@dataclass
class AgentContext:
    """What the runner tells an agent before the episode starts (not the simulator's state)."""

    display: str
    #: MCP endpoint of the agent port, e.g. http://127.0.0.1:PORT/mcp
    port_url: str | None = None
    #: the episode's bearer token for the agent port (None: the run opted out with --no-token)
    port_token: str | None = None
    #: start a process inside the sandbox (Popen-like); torn down with the sandbox
    spawn: Callable[..., Any] | None = None
    #: set when the episode has ended (time limit, crash, the agent's done/give_up)
    ended: threading.Event = field(default_factory=threading.Event)
    #: the outcome an agent declared through the port: ("done"|"give_up", reason) or None
    outcome: Callable[[], tuple[str, str] | None] = lambda: None
    #: where the runner prints things a person must see (URLs, VNC address)
    say: Callable[[str], None] = print
    lockstep: bool = False


class Agent(abc.ABC):
    """Base class of agents. Subclasses set `name` and implement `run`."""

    name: str = "agent"

    def setup(self, ctx: AgentContext) -> None:
        """Called once before the simulator starts (start helpers, print addresses)."""

    @abc.abstractmethod
    def run(self, port: "AgentPortClient", task: "TaskSpec", deadline_s: float) -> AgentResult:
        """Fly the task through the port until done; return "done" or "give_up"."""

    def close(self) -> None:
        """Release what setup() started. Safe to call twice."""
