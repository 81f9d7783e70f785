"""The public API for agents: the agent port's client and what it returns.

An agent programs against `AgentPortClient` (screen out, keyboard and mouse in, the agent's
folder, done/give_up): `connect(url)` gives one over MCP (an agent in another process, the URL
from the run directory's agent_port.json), `DirectClient` one in-process. `TaskBrief` is what
the `task` action returns; `run_anthropic_action` / `run_openai_action` execute a model's
computer-use action on a client. Every call raises `EpisodeOver` once the episode has ended,
`NotReady` before the episode is ready, `ActionError` for an action the port refuses.

The implementation lives in simbridge._agent_port; import these names from here.
"""

from simbridge._agent_port._brief import BriefInput, Control, TaskBrief
from simbridge._agent_port._client import AgentPortClient, DirectClient, McpClient, connect
from simbridge._agent_port._mappings import run_anthropic_action, run_openai_action
from simbridge._agent_port._port import ACTIONS, ActionError, EpisodeOver, NotReady
from simbridge._agent_port._screen import ImageFormat, Screenshot

__all__ = [
    # clients
    "AgentPortClient",
    "DirectClient",
    "McpClient",
    "connect",
    # what the port returns
    "Screenshot",
    "ImageFormat",
    "TaskBrief",
    "Control",
    "BriefInput",
    "ACTIONS",
    # ends and refusals
    "EpisodeOver",
    "NotReady",
    "ActionError",
    # model computer-use actions
    "run_anthropic_action",
    "run_openai_action",
]
