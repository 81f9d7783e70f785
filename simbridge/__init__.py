"""simbridge: GUI-only agent tasks on real vehicle simulators, scored from the simulator's true state.

The public API: task specs, the episode bundle, scores and the scoring engine (here);
the verifier author's API (`simbridge.verifier`, `simbridge.primitives`); the one registry of
plug-ins (`simbridge.registry`);
the contracts for simulator adapters and sandbox providers (`simbridge.sim`); the agent port's
client for agents (`simbridge.agent`); the canonical signal vocabulary (`simbridge.canonical`);
what importers of simulators' own recordings build on (`simbridge.importing`). Modules whose names start with `_` are the
implementation and may change.
"""

from simbridge._bundle import Bundle, BundleWriter, EpisodeInfo, EpisodeStatus, Event, read_bundle, write_bundle
from simbridge._errors import BundleError, HarnessError, SimbridgeError, TaskSpecError, Unscorable
from simbridge._score import Component, SafetyResult, Score
from simbridge._scoring import score_bundle
from simbridge._signals import Signals
from simbridge._task import TaskSpec, load_all_tasks, load_task
from simbridge._taskspec import FailureSpec, FailureTrigger, RunwaySpec
from simbridge._version import __version__


def verify(bundle: Bundle | str, task: TaskSpec | None = None) -> Score:
    """Score a bundle (or a bundle directory) with its task's verifier."""
    from simbridge import score_bundle

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
