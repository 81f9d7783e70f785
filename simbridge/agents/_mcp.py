"""`mcp`: an external agent drives the episode through the agent port's MCP endpoint.

The runner serves the port, prints its URL and waits (before starting the simulator) for the
agent to connect; the episode ends when the agent calls `done`/`give_up` or the time limit.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from simbridge._errors import SimbridgeError
from simbridge.agents._base import Agent, AgentContext, AgentResult

if TYPE_CHECKING:
    from simbridge._agent_port import AgentPortClient
    from simbridge._task import TaskSpec


class McpAgent(Agent):
    name = "mcp"

    def __init__(self, connect_timeout_s: float = 600.0) -> None:
        self.connect_timeout_s = connect_timeout_s
        self._ctx: AgentContext | None = None
        #: set by the runner to a callable that is true once a client has called a tool
        self.connected = lambda: False

    def setup(self, ctx: AgentContext) -> None:
        self._ctx = ctx
        if not ctx.port_url:
            raise SimbridgeError("mcp agent: the agent port has no MCP endpoint")
        ctx.say(f"agent port (MCP, streamable HTTP): {ctx.port_url}")
        ctx.say(f"waiting up to {self.connect_timeout_s:.0f} s for an agent to connect and call a tool ...")

    def wait_connected(self) -> None:
        t_end = time.monotonic() + self.connect_timeout_s
        while not self.connected():
            if time.monotonic() > t_end:
                raise SimbridgeError(f"mcp agent: nobody connected to {self._ctx.port_url if self._ctx else 'the port'} "
                                     f"within {self.connect_timeout_s:.0f} s")
            time.sleep(0.1)

    def run(self, port: "AgentPortClient", task: "TaskSpec", deadline_s: float) -> AgentResult:
        assert self._ctx is not None
        while not self._ctx.ended.wait(0.2):
            out = self._ctx.outcome()
            if out is not None:
                return out[0]  # type: ignore[return-value]
        out = self._ctx.outcome()
        return out[0] if out else "give_up"  # type: ignore[return-value]
