"""The one registry: everything simbridge is extended with, found by kind and name.

Kinds (`KINDS`): `simulator` (an `AdapterSpec`: its session, recorder, importers), `provider`
(a sandbox factory), `agent` (an `--agent` name), `pilot` (a task's reference pilot on one
simulator, named `TASK/SIM`), `verifier`, `scenario_check`, `suite` (a suite YAML) and `tasks`
(a folder of task YAMLs).

It is filled by the callables of the entry-point group `simbridge.plugins`, each called once as
`register(registry)`. simbridge's own plug-in folders (adapters/, verifiers/, tasks/) register
through that same group, so the core reaches them exactly as it reaches a third party's
package: by entry point, never by import. A package installed beside simbridge that declares

    [project.entry-points."simbridge.plugins"]
    mysim = "mysim.plugin:register"

adds its simulators, agents, verifiers and tasks to the CLI, `tasks list`, Gymnasium and
Inspect AI without editing simbridge (docs/plugins.md).

Values may be given as "module:attribute" strings: they are imported only when looked up with
`load`, so listing names never imports a simulator's dependencies (pygame, jsbsim, carla).
"""

from __future__ import annotations

import importlib
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from simbridge._errors import SimbridgeError

if TYPE_CHECKING:
    from simbridge._adapters_registry import AdapterSpec
    from simbridge._providers._base import Provider
    from simbridge.agents._base import Agent
    from simbridge.verifier import VerifierDef

_T = TypeVar("_T")

#: the entry-point group plug-in distributions (and simbridge itself) declare `register` in
ENTRY_POINT_GROUP = "simbridge.plugins"

KINDS = ("simulator", "provider", "agent", "pilot", "verifier", "scenario_check", "suite", "tasks")

#: the distribution whose entry points are simbridge's own plug-in folders
BUILTIN = "simbridge"


@dataclass(frozen=True)
class Entry:
    """One registered thing: its kind, name, value (an object or a "module:attribute" string),
    the distribution that registered it and a one-line description."""

    kind: str
    name: str
    value: Any
    origin: str
    doc: str = ""


class Registry:
    """Name → thing, per kind. Lookups load the entry points first (once, thread-safe)."""

    def __init__(self, group: str = ENTRY_POINT_GROUP) -> None:
        self.group = group
        self._entries: dict[str, dict[str, Entry]] = {k: {} for k in KINDS}
        self._loaded = False
        self._loading = threading.RLock()
        self._origin = BUILTIN
        #: plug-ins whose `register` failed: (entry point, one-line reason)
        self.broken: list[tuple[str, str]] = []
        #: seconds each entry point took to import and register
        self.load_s: dict[str, float] = {}

    # -- filling
    def add(self, kind: str, name: str, value: Any, *, doc: str = "", replace: bool = False) -> None:
        """Register `value` as `kind` `name`. Two distributions registering one name is an error
        naming both; the same distribution registering it again (a module re-imported) replaces."""
        if kind not in self._entries:
            raise SimbridgeError(f"registry: unknown kind {kind!r} (kinds: {', '.join(KINDS)})")
        if not name or not isinstance(name, str):
            raise SimbridgeError(f"registry: a {kind} needs a name, got {name!r}")
        old = self._entries[kind].get(name)
        if old is not None and old.origin == BUILTIN and self._origin != BUILTIN:
            # replace=True or not: a plug-in never silently swaps out simbridge's own
            raise SimbridgeError(
                f"registry: {kind} {name!r} is simbridge's own; {self._origin} may not replace it (choose another name)"
            )
        if old is not None and not replace and old.origin != self._origin:
            raise SimbridgeError(f"registry: {kind} {name!r} is registered by both {old.origin} and {self._origin}")
        self._entries[kind][name] = Entry(kind, name, value, self._origin, doc)

    def load_plugins(self) -> None:
        """Call every `register` of the entry-point group once (simbridge's own first)."""
        if self._loaded:
            return
        with self._loading:
            if self._loaded:
                return
            self._loaded = True  # set first: a register() that looks things up must not recurse
            points = sorted(_entry_points(self.group), key=lambda ep: (_dist_name(ep) != BUILTIN, ep.name))
            for ep in points:
                self._origin = _dist_name(ep) or ep.value
                before = {kind: dict(entries) for kind, entries in self._entries.items()}
                t0 = time.monotonic()
                try:
                    ep.load()(self)
                except BaseException as exc:  # noqa: BLE001 - a plug-in must not break (or exit) simbridge
                    if self._origin == BUILTIN:
                        raise
                    # SystemExit and KeyboardInterrupt from a plug-in's code too: a sys.exit() in an
                    # import would otherwise set every command's exit code
                    self._entries = before  # a plug-in is in whole or not at all
                    reason = _describe(exc)
                    self.broken.append((f"{ep.name} = {ep.value}", reason))
                    print(f"simbridge: plug-in {ep.value} ({self._origin}) not loaded: {reason}", file=sys.stderr)
                finally:
                    took = time.monotonic() - t0
                    self.load_s[f"{ep.name} = {ep.value}"] = took
                    if took > SLOW_PLUGIN_S and self._origin != BUILTIN:
                        print(
                            f"simbridge: note: plug-in {ep.value} ({self._origin}) took {took:.1f} s to load "
                            f"(every simbridge command pays it)",
                            file=sys.stderr,
                        )
                    self._origin = BUILTIN

    # -- looking up
    def entries(self, kind: str) -> dict[str, Entry]:
        self.load_plugins()
        try:
            return dict(self._entries[kind])
        except KeyError:
            raise SimbridgeError(f"registry: unknown kind {kind!r} (kinds: {', '.join(KINDS)})") from None

    def names(self, kind: str) -> list[str]:
        """The registered names of `kind`, sorted."""
        return sorted(self.entries(kind))

    def find(self, kind: str, name: str) -> Entry | None:
        return self.entries(kind).get(name)

    def entry(self, kind: str, name: str) -> Entry:
        """The entry, or one SimbridgeError line naming what is known."""
        found = self.find(kind, name)
        if found is None:
            known = ", ".join(self.names(kind)) or "none"
            raise SimbridgeError(f"unknown {kind} {name!r} (known: {known})")
        return found

    def get(self, kind: str, name: str) -> Any:
        """The registered value, a "module:attribute" string imported on the way. Untyped: for a
        kind known only at run time; the typed lookups below are the ones to call."""
        e = self.entry(kind, name)
        return load(e.value, f"{kind} {name!r} ({e.origin})") if isinstance(e.value, str) else e.value

    def _of(self, kind: str, name: str, expected: str) -> Any:
        """The value, checked to be an instance of the core class named `expected` (by name along
        its MRO: the registry imports nothing of the modules that import it, so no cycle)."""
        value = self.get(kind, name)
        if expected not in {c.__name__ for c in type(value).__mro__}:
            raise SimbridgeError(
                f"{kind} {name!r} ({self.entry(kind, name).origin}) is a {type(value).__name__}, not a {expected}"
            )
        return value

    def _callable(self, kind: str, name: str) -> Callable[..., Any]:
        value = self.get(kind, name)
        if not callable(value):
            raise SimbridgeError(
                f"{kind} {name!r} ({self.entry(kind, name).origin}) is a {type(value).__name__}, not a callable"
            )
        return value

    # -- typed lookups, one per kind (each: unknown name or wrong type -> one SimbridgeError line)
    def simulator(self, name: str) -> AdapterSpec:
        """The simulator's AdapterSpec."""
        spec: AdapterSpec = self._of("simulator", name, "AdapterSpec")
        return spec

    def provider(self, name: str) -> Callable[..., Provider]:
        """The sandbox factory, called as `factory(task=..., session_cls=...)`."""
        return self._callable("provider", name)

    def agent(self, name: str) -> Callable[[str, str], Agent]:
        """The `--agent NAME[:ARG]` factory, called as `factory(arg, task_id)`."""
        return self._callable("agent", name)

    def pilot(self, name: str) -> Callable[[], Agent]:
        """The reference pilot `TASK/SIM` (or `TASK/*`): an Agent class or factory of no arguments."""
        return self._callable("pilot", name)

    def verifier(self, name: str) -> VerifierDef:
        """The verifier's definition (what `@verifier` registers)."""
        vdef: VerifierDef = self._of("verifier", name, "VerifierDef")
        return vdef

    def scenario_check(self, name: str) -> Callable[..., str | None]:
        """The verifier `name`'s scenario check, called as `check(bundle, task)`."""
        return self._callable("scenario_check", name)

    def tasks(self, name: str) -> Path:
        """The folder of task YAMLs registered as `name`."""
        return Path(self.get("tasks", name))

    def suite(self, name: str) -> Path:
        """The suite YAML registered as `name`."""
        return Path(self.get("suite", name))


#: a plug-in taking longer than this to import and register is named on stderr
SLOW_PLUGIN_S = 2.0


def _describe(exc: BaseException, limit: int = 300) -> str:
    """'Type: message' of a plug-in's exception on one line, at most `limit` characters, even
    when its __str__ raises or returns something that is not a string."""
    try:
        text = str(exc)
    except BaseException:  # noqa: BLE001 - a plug-in's __str__ is its own code too
        text = "(its message cannot be shown: __str__ failed)"
    name = type(exc).__name__
    line = " ".join(f"{name}: {text}".split()) if text else name
    return line if len(line) <= limit else line[: limit - 1] + "…"


def load(target: str, what: str) -> Any:
    """The object named by "module:attribute" (or a module, without ":"); a missing module or
    attribute is one SimbridgeError line naming `what`. The one resolver of such names."""
    module, _, attr = target.partition(":")
    try:
        obj = importlib.import_module(module)
        for part in attr.split(".") if attr else ():
            obj = getattr(obj, part)
    except (ImportError, AttributeError) as exc:
        raise SimbridgeError(f"{what}: {target} is not available: {_describe(exc)}") from None
    except SimbridgeError:
        raise
    except (Exception, SystemExit) as exc:  # a module's own import failing (or calling sys.exit)
        raise SimbridgeError(f"{what}: {target} failed to import: {_describe(exc)}") from None
    return obj


def _entry_points(group: str) -> list[metadata.EntryPoint]:
    """The group's entry points, one per (distribution, name): a source checkout's egg-info
    beside the installed metadata names the same distribution twice."""
    seen: set[tuple[str, str]] = set()
    out = []
    for ep in metadata.entry_points(group=group):
        key = (_dist_name(ep), ep.name)
        if key not in seen:
            seen.add(key)
            out.append(ep)
    return out


def _dist_name(ep: metadata.EntryPoint) -> str:
    dist = getattr(ep, "dist", None)
    return str(dist.metadata["Name"]).lower().replace("_", "-") if dist is not None else ""


#: the process's registry
REGISTRY = Registry()


def registry() -> Registry:
    """The process's registry, its plug-ins loaded."""
    REGISTRY.load_plugins()
    return REGISTRY


__all__ = ["ENTRY_POINT_GROUP", "KINDS", "REGISTRY", "Entry", "Registry", "load", "registry"]
