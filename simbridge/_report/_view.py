"""What an episode page shows, gathered from the bundle, its task and its score."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path


from simbridge._bundle import Bundle, read_bundle
from simbridge._errors import BundleError, TaskSpecError
from simbridge._verify import SCORE_JSON_DISAGREES
from simbridge._score import Score
from simbridge._task import TaskSpec, load_task


@dataclass
class EpisodeView:
    """One episode, read and ready to render."""

    path: Path
    bundle: Bundle
    task: TaskSpec
    score: Score
    #: where the score came from: re-derived from the verified bundle, or UNVERIFIED (not scored)
    score_source: str
    instruction: str
    #: files that do not match manifest.json (the page warns: what it shows may not be the recording)
    integrity: list[str] = field(default_factory=list)

    @property
    def sim(self) -> str:
        return self.bundle.episode.sim or self.task.simulator.name


def instruction_seen(bundle: Bundle, task: TaskSpec) -> str:
    """The instruction as the agent saw it: the brief the runner recorded, else the task's text
    for the episode's simulator."""
    brief = getattr(bundle.episode, "agent_brief", None)
    if isinstance(brief, dict) and isinstance(brief.get("instruction"), str) and brief["instruction"].strip():
        return brief["instruction"]
    return task.instruction_for(bundle.episode.sim or task.simulator.name)


def load_episode(path: str | Path) -> EpisodeView:
    """Read a bundle for its page. The score is the one integrity rule's (`checked_score`):
    re-derived from a bundle whose manifest verifies, else unscored and marked unverified —
    never the number in score.json. Bad input (a symbolic link or special file in the bundle
    included) is a BundleError naming the file."""
    from simbridge._verify import checked_score

    path = Path(path)
    bundle = read_bundle(path)
    try:
        task = load_task(bundle.episode.task_id)
    except TaskSpecError as exc:
        raise BundleError(f"{path / 'episode.json'}: {exc}") from None
    checked = checked_score(path)
    score = checked.score
    if checked.verified:
        source = "re-derived from the bundle now (manifest verified)"
        if SCORE_JSON_DISAGREES in score.flags:
            source += "; score.json disagrees and is ignored"
        integrity: list[str] = []
    elif checked.unfinished:
        source = "derived now: unscored (no manifest: the episode did not finish)"
        integrity = []
    else:
        source = f"UNVERIFIED: not scored ({checked.why_unverified})"
        integrity = [checked.why_unverified]
    return EpisodeView(path, bundle, task, score, source, instruction_seen(bundle, task), integrity)
