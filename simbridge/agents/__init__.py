"""Agents: what flies an episode through the agent port.

`Agent` (in `_base`) is the interface; `make_agent(spec, task_id)` resolves command-line names
through the one registry (kind `agent`; noop, scripted:FILE, mcp, human, reference,
py:MODULE:FACTORY and any plug-in's). Reference pilots are registered per task and simulator
(kind `pilot`) by the simulators' plug-ins and live beside their adapters.
"""

from simbridge.agents._base import Agent, AgentContext, AgentResult, ExternalFault
from simbridge.agents._registry import make_agent, register

__all__ = ["Agent", "AgentContext", "AgentResult", "ExternalFault", "make_agent", "register"]
