"""`mcp`: an external agent drives the episode through the agent port's MCP endpoint.

The runner serves the port, prints its URL (also in RUN_DIR/agent_port.json) and waits, before
starting the simulator, for the agent's first request; the agent may read the task at once, and
its actions are served once the simulator is up and audited. The episode ends when the agent
calls `done`/`give_up`, at the time limit, or when its MCP client disconnects (after a grace
period). An agent that never connects ends the episode at its start: `agent_disconnected`,
scored on the initial state.
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
    #: driven from outside through the MCP server: the runner watches its connection
    external = True

    def __init__(self, connect_timeout_s: float = 600.0) -> None:
        self.connect_timeout_s = connect_timeout_s
        self._ctx: AgentContext | None = None
        #: set by the runner to a callable that is true once a client has called a tool
        self.connected = lambda: False

    def setup(self, ctx: AgentContext) -> None:
        self._ctx = ctx
        if not ctx.port_url:
            raise SimbridgeError("mcp agent: the agent port has no MCP endpoint")
        auth = f"  token {ctx.port_token}" if ctx.port_token else "  no token (--no-token: any client may act)"
        ctx.say(f"agent port (MCP, streamable HTTP): {ctx.port_url}{auth}")
        ctx.say(f"waiting up to {self.connect_timeout_s:.0f} s for an agent to connect and call a tool ...")

    def wait_connected(self) -> str | None:
        """Wait for the agent's first request; the reason it never came, or None."""
        t_end = time.monotonic() + self.connect_timeout_s
        while not self.connected():
            if time.monotonic() > t_end:
                return (
                    f"no agent connected to {self._ctx.port_url if self._ctx else 'the port'} "
                    f"within {self.connect_timeout_s:g} s"
                )
            time.sleep(0.05)
        return None

    def run(self, port: "AgentPortClient", task: "TaskSpec", deadline_s: float) -> AgentResult:
        assert self._ctx is not None
        while not self._ctx.ended.wait(0.2):
            out = self._ctx.outcome()
            if out is not None:
                return out[0]  # type: ignore[return-value]
        out = self._ctx.outcome()
        return out[0] if out else "give_up"  # type: ignore[return-value]
