"""What an episode page shows, gathered from the bundle, its task and its score."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path


from simbridge._bundle import Bundle, read_bundle
from simbridge._errors import BundleError, TaskSpecError
from simbridge._metrics import read_score_file
from simbridge._score import Score
from simbridge._task import TaskSpec, load_task


@dataclass
class EpisodeView:
    """One episode, read and ready to render."""

    path: Path
    bundle: Bundle
    task: TaskSpec
    score: Score
    #: where the score came from: 'score.json' (as recorded) or 'verified now' (no score.json)
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
    """Read a bundle for its page. The score is score.json when the bundle has one (what was
    reported), else the verifier is run now; bad input is a BundleError naming the file."""
    path = Path(path)
    bundle = read_bundle(path)
    try:
        task = load_task(bundle.episode.task_id)
    except TaskSpecError as exc:
        raise BundleError(f"{path / 'episode.json'}: {exc}") from None
    from simbridge._cmd_verify import manifest_problems, verify_path

    integrity = manifest_problems(path) if (path / "manifest.json").is_file() else []
    score_path = path / "score.json"
    if score_path.is_file():
        score, source = read_score_file(score_path), "score.json"
    elif integrity:
        # verify would refuse it; the page still shows the recording, unscored and saying why
        score = Score.unscored(task.id, task.verifier.name, f"bundle fails its manifest: {integrity[0]}")
        source = "not scored: the bundle does not match its manifest"
    else:
        score, source = verify_path(path), "verified now (the bundle has no score.json)"
    if score.task_id != task.id:
        raise BundleError(f"{score_path}: field 'task_id': {score.task_id!r} is not the episode's {task.id!r}")
    return EpisodeView(path, bundle, task, score, source, instruction_seen(bundle, task), integrity)
