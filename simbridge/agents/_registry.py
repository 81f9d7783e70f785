"""Agent names on the command line → Agent instances.

noop               do nothing (baseline, scores 0)
scripted:FILE      timed actions from a YAML file (see simbridge.agents._scripted)
mcp                an external agent connects to the agent port's MCP endpoint
human              a person flies through VNC (x11vnc)
reference          the built-in pixel-reading reference pilot for the task:
                   `simbridge.agents.reference.make(task_id) -> Agent`
py:MODULE:FACTORY  any factory `FACTORY(task_id) -> Agent` (plug-ins)
"""

from __future__ import annotations

import importlib
from collections.abc import Callable

from simbridge._errors import SimbridgeError
from simbridge.agents._base import Agent

REFERENCE_MODULE = "simbridge.agents.reference"

_SIMPLE: dict[str, Callable[[], Agent]] = {}


def _simple() -> dict[str, Callable[[], Agent]]:
    if not _SIMPLE:
        from simbridge.agents._human import HumanAgent
        from simbridge.agents._mcp import McpAgent
        from simbridge.agents._noop import NoopAgent

        _SIMPLE.update(noop=NoopAgent, mcp=McpAgent, human=HumanAgent)
    return _SIMPLE


def _factory(module: str, attr: str, what: str) -> Callable[[str], Agent]:
    try:
        mod = importlib.import_module(module)
    except ModuleNotFoundError as exc:
        if exc.name and module.startswith(exc.name):
            raise SimbridgeError(f"{what}: module {module} is not available ({exc})") from None
        raise
    fn = getattr(mod, attr, None)
    if not callable(fn):
        raise SimbridgeError(f"{what}: {module} has no callable {attr!r}")
    return fn


def make_agent(spec: str, task_id: str) -> Agent:
    """Build the agent named by `spec` for task `task_id`. Raises SimbridgeError with a clear message."""
    simple = _simple()
    if spec in simple:
        return simple[spec]()
    if spec.startswith("scripted:"):
        from simbridge.agents._scripted import ScriptedAgent

        path = spec.split(":", 1)[1]
        if not path:
            raise SimbridgeError("scripted agent needs a file: --agent scripted:PATH.yaml")
        return ScriptedAgent(path)
    if spec == "reference":
        try:
            make = _factory(REFERENCE_MODULE, "make", "reference agent")
        except SimbridgeError:
            raise SimbridgeError(
                f"reference agent: the reference pilots ({REFERENCE_MODULE}) are not "
                "installed in this version; use --agent scripted:FILE, noop, mcp or human"
            ) from None
        agent = make(task_id)
        if agent is None:
            raise SimbridgeError(f"reference agent: no reference pilot for task {task_id}")
        return agent
    if spec.startswith("py:"):
        _, module, attr = (spec.split(":", 2) + ["", ""])[:3]
        if not module or not attr:
            raise SimbridgeError("plug-in agent: use py:MODULE:FACTORY")
        return _factory(module, attr, f"agent {spec}")(task_id)
    raise SimbridgeError(f"unknown agent {spec!r} (noop, scripted:FILE, mcp, human, reference, py:MODULE:FACTORY)")
