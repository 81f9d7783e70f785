"""Agent names on the command line → Agent instances.

noop               do nothing (baseline, scores 0)
scripted:FILE      timed actions from a YAML file (see simbridge.agents._scripted)
mcp                an external agent connects to the agent port's MCP endpoint
human              a person flies through VNC (x11vnc)
reference          the built-in pixel-reading reference pilot for the task:
                   `simbridge.agents.reference.make(task_id) -> Agent`
py:MODULE:FACTORY  any factory `FACTORY(task_id) -> Agent` (plug-ins); MODULE is imported with
                   the current directory first on sys.path (no PYTHONPATH needed for a
                   package in the directory simbridge runs from)

A `py:` agent has one name everywhere (episode.json, metrics, eval's episode ids, reports):
the name its factory declares (FACTORY an Agent subclass with its own `name`, a `name`
attribute on the factory, or the return annotation's Agent subclass), else the built agent's
own `name`, else the module's last component. Eval plans episode ids without calling the
factory, so a name only the built instance knows is not in them: declare it (docs/own-agent.md).
"""

from __future__ import annotations

import importlib
import os
import sys
import typing
from collections.abc import Callable
from typing import Any

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


def _cwd_on_path() -> None:
    """`py:` agents load from the current directory like `python -m` does (docs/own-agent.md)."""
    cwd = os.getcwd()
    if cwd not in sys.path and "" not in sys.path:
        sys.path.insert(0, cwd)


def _factory(module: str, attr: str, what: str) -> Callable[[str], Agent]:
    _cwd_on_path()
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


def _own_name(obj: Any) -> str | None:
    """The `name` an Agent subclass (or a factory) declares itself, not the base class's default."""
    name = getattr(obj, "name", None)
    if isinstance(obj, type) and issubclass(obj, Agent) and name == Agent.name:
        return None
    return name if isinstance(name, str) and name.strip() and name != Agent.name else None


def declared_name(spec: str) -> str | None:
    """The name a `py:MODULE:FACTORY` agent declares without being built (None: not a `py:`
    agent): the factory's own name (an Agent subclass's `name`, a `name` attribute on a
    function), its return annotation's, else the module's last component."""
    if not spec.startswith("py:"):
        return None
    _, module, attr = (spec.split(":", 2) + ["", ""])[:3]
    if not module or not attr:
        raise SimbridgeError("plug-in agent: use py:MODULE:FACTORY")
    fn = _factory(module, attr, f"agent {spec}")
    name = _own_name(fn)
    if name is None and not isinstance(fn, type):
        try:
            ret = typing.get_type_hints(fn).get("return")
        except Exception:  # an annotation that does not resolve names nothing
            ret = None
        name = _own_name(ret) if isinstance(ret, type) else None
    return name


def py_agent_name(spec: str) -> str:
    """A `py:` agent's name as eval plans it: declared, else the module's last component."""
    module = (spec.split(":", 2) + ["", ""])[1]
    return declared_name(spec) or module.rsplit(".", 1)[-1]


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
        agent = _factory(module, attr, f"agent {spec}")(task_id)
        if not isinstance(agent, Agent):
            raise SimbridgeError(f"agent {spec}: {attr}({task_id!r}) returned {type(agent).__name__}, not an Agent")
        declared = declared_name(spec)
        own = _own_name(agent)
        if declared is not None or own is None:
            agent.name = declared or module.rsplit(".", 1)[-1]  # one name: as eval planned it
        return agent
    raise SimbridgeError(f"unknown agent {spec!r} (noop, scripted:FILE, mcp, human, reference, py:MODULE:FACTORY)")
