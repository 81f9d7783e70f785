"""The agent port: the agent's only door into the sandbox.

Screen capture out (PNG/JPEG, optional scaling), synthetic keyboard and mouse in (XTEST),
`wait`, the agent's folder (`list_files`, `read_file`, `write_file`: task inputs in, answer
files out), and `done`/`give_up`; every action is logged with wall and simulator time. Served as
MCP tools (`McpPortServer`) and as a Python client (`AgentPortClient`: `DirectClient`
in-process, `connect(url)` over MCP).
"""

from simbridge._agent_port._client import AgentPortClient, DirectClient, McpClient, connect
from simbridge._agent_port._files import AgentFiles
from simbridge._agent_port._input import MIN_TAP_SPACING_S, XInput
from simbridge._agent_port._mappings import run_anthropic_action, run_openai_action
from simbridge._agent_port._mcp_server import McpPortServer
from simbridge._agent_port._brief import Control, TaskBrief, make_brief
from simbridge._agent_port._port import ACTIONS, ActionError, AgentPort, EpisodeOver, LockstepPacer, NotReady, Pacer
from simbridge._agent_port._screen import ScreenGrabber, Screenshot

__all__ = [
    "ACTIONS",
    "ActionError",
    "Control",
    "NotReady",
    "TaskBrief",
    "make_brief",
    "AgentFiles",
    "AgentPort",
    "AgentPortClient",
    "DirectClient",
    "EpisodeOver",
    "LockstepPacer",
    "McpClient",
    "McpPortServer",
    "MIN_TAP_SPACING_S",
    "Pacer",
    "ScreenGrabber",
    "Screenshot",
    "XInput",
    "connect",
    "run_anthropic_action",
    "run_openai_action",
]
