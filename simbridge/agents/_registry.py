"""Agent names on the command line → Agent instances, through the one registry.

An `--agent` value is `NAME` or `NAME:ARGUMENT`; NAME is a registered agent (simbridge.registry,
kind `agent`: a factory `(argument, task_id) -> Agent`). The built-ins:

noop               do nothing (baseline, scores 0)
scripted:FILE      timed actions from a YAML file (see simbridge.agents._scripted)
mcp                an external agent connects to the agent port's MCP endpoint
human              a person flies through VNC (x11vnc)
reference          the task's reference pilot on the episode's simulator (registered as
                   kind `pilot`, `TASK/SIM`, by the simulator's plug-in)
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

import os
import sys
import typing
from collections.abc import Callable
from typing import Any

from simbridge._errors import SimbridgeError
from simbridge.agents._base import Agent
from simbridge.registry import load


def _cwd_on_path() -> None:
    """`py:` agents load from the current directory like `python -m` does (docs/own-agent.md)."""
    cwd = os.getcwd()
    if cwd not in sys.path and "" not in sys.path:
        sys.path.insert(0, cwd)


def _factory(module: str, attr: str, what: str) -> Callable[[str], Agent]:
    """The factory `attr` of `module`, imported by the one resolver (`simbridge.registry.load`)
    with the current directory on sys.path."""
    _cwd_on_path()
    fn = getattr(load(module, what), attr, None)
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


def _noop(arg: str, task_id: str) -> Agent:
    from simbridge.agents._noop import NoopAgent

    return NoopAgent()


def _mcp(arg: str, task_id: str) -> Agent:
    from simbridge.agents._mcp import McpAgent

    return McpAgent()


def _human(arg: str, task_id: str) -> Agent:
    from simbridge.agents._human import HumanAgent

    return HumanAgent()


def _scripted(arg: str, task_id: str) -> Agent:
    from simbridge.agents._scripted import ScriptedAgent

    if not arg:
        raise SimbridgeError("scripted agent needs a file: --agent scripted:PATH.yaml")
    return ScriptedAgent(arg)


def _reference(arg: str, task_id: str) -> Agent:
    from simbridge.agents._reference import ReferenceAgent

    return ReferenceAgent(task_id)


def _py(arg: str, task_id: str) -> Agent:
    spec = f"py:{arg}"
    module, _, attr = arg.partition(":")
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


#: the built-in agents: name -> (factory, one line for --help)
BUILTIN_AGENTS: dict[str, tuple[Callable[[str, str], Agent], str]] = {
    "noop": (_noop, "do nothing (baseline, scores 0)"),
    "scripted": (_scripted, "scripted:FILE: timed actions from a YAML file"),
    "mcp": (_mcp, "an external agent connects to the agent port's MCP endpoint"),
    "human": (_human, "a person flies through VNC"),
    "reference": (_reference, "the task's reference pilot on the episode's simulator"),
    "py": (_py, "py:MODULE:FACTORY: any factory FACTORY(task_id) -> Agent"),
}


def register(registry: Any) -> None:
    """The built-in agents (the `agents` entry point of simbridge.plugins)."""
    for name, (factory, doc) in BUILTIN_AGENTS.items():
        registry.add("agent", name, factory, doc=doc)


def make_agent(spec: str, task_id: str) -> Agent:
    """Build the agent named by `spec` (NAME or NAME:ARGUMENT) for task `task_id`. Raises
    SimbridgeError with a clear message."""
    from simbridge.registry import registry

    name, _, arg = spec.partition(":")
    reg = registry()
    if reg.find("agent", name) is None:
        known = ", ".join(n + (":ARG" if n in ("scripted", "py") else "") for n in reg.names("agent"))
        raise SimbridgeError(f"unknown agent {spec!r} (known: {known})")
    agent = reg.agent(name)(arg, task_id)
    if not isinstance(agent, Agent):
        raise SimbridgeError(f"agent {spec!r}: its factory returned {type(agent).__name__}, not an Agent")
    return agent
