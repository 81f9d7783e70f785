"""Agents: what flies an episode through the agent port.

`Agent` (in `_base`) is the interface; `make_agent(spec, task_id)` resolves command-line names
(noop, scripted:FILE, mcp, human, reference, py:MODULE:FACTORY). Reference pilots live in
`simbridge.agents.reference` and expose `make(task_id) -> Agent`.
"""

from simbridge.agents._base import Agent, AgentContext, AgentResult, ExternalFault
from simbridge.agents._registry import REFERENCE_MODULE, make_agent

__all__ = ["Agent", "AgentContext", "AgentResult", "ExternalFault", "REFERENCE_MODULE", "make_agent"]
