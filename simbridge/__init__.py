"""simbridge: GUI-only agent tasks on real vehicle simulators, scored from the simulator's true state.

The public API: task specs, the episode bundle, scores and the scoring engine (here);
the verifier author's API (`simbridge.verifier`, `simbridge.primitives`); the one registry of
plug-ins (`simbridge.registry`);
the contracts for simulator adapters and sandbox providers (`simbridge.sim`); the agent port's
client for agents (`simbridge.agent`); the canonical signal vocabulary (`simbridge.canonical`);
what importers of simulators' own recordings build on (`simbridge.importing`). Modules whose names start with `_` are the
implementation and may change.

The names here are loaded when first used (PEP 562), so a process that needs only a small part
of the package (the VM guest's supervisor, a simulator's own process) does not import numpy,
pyarrow and pydantic to start: under software emulation that import took the guest ~7 s a boot.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from simbridge._lazy import lazy_names

if TYPE_CHECKING:
    from simbridge._bundle import Bundle, BundleWriter, EpisodeInfo, EpisodeStatus, Event, read_bundle, write_bundle
    from simbridge._errors import BundleError, HarnessError, SimbridgeError, TaskSpecError, Unscorable
    from simbridge._score import Component, SafetyResult, Score
    from simbridge._scoring import score_bundle
    from simbridge._signals import Signals
    from simbridge._task import TaskSpec, load_all_tasks, load_task
    from simbridge._taskspec import FailureSpec, FailureTrigger, RunwaySpec
    from simbridge._version import __version__

#: each public name and the module that defines it
_WHERE = {
    **dict.fromkeys(
        ("Bundle", "BundleWriter", "EpisodeInfo", "EpisodeStatus", "Event", "read_bundle", "write_bundle"),
        "simbridge._bundle",
    ),
    **dict.fromkeys(
        ("BundleError", "HarnessError", "SimbridgeError", "TaskSpecError", "Unscorable"), "simbridge._errors"
    ),
    **dict.fromkeys(("Component", "SafetyResult", "Score"), "simbridge._score"),
    "score_bundle": "simbridge._scoring",
    "Signals": "simbridge._signals",
    **dict.fromkeys(("TaskSpec", "load_all_tasks", "load_task"), "simbridge._task"),
    **dict.fromkeys(("FailureSpec", "FailureTrigger", "RunwaySpec"), "simbridge._taskspec"),
    "__version__": "simbridge._version",
}


__getattr__, __dir__ = lazy_names(__name__, _WHERE)


def verify(bundle: Bundle | str, task: TaskSpec | None = None) -> Score:
    """Score a bundle (or a bundle directory) with its task's verifier."""
    from simbridge._bundle import Bundle, read_bundle
    from simbridge._scoring import score_bundle
    from simbridge._task import load_task

    b = bundle if isinstance(bundle, Bundle) else read_bundle(bundle)
    return score_bundle(b, task or load_task(b.episode.task_id))


__all__ = [
    "Bundle",
    "EpisodeStatus",
    "FailureSpec",
    "FailureTrigger",
    "RunwaySpec",
    "BundleError",
    "BundleWriter",
    "Component",
    "EpisodeInfo",
    "Event",
    "HarnessError",
    "SafetyResult",
    "Score",
    "Signals",
    "SimbridgeError",
    "TaskSpec",
    "TaskSpecError",
    "Unscorable",
    "__version__",
    "load_all_tasks",
    "load_task",
    "read_bundle",
    "score_bundle",
    "verify",
    "write_bundle",
]
