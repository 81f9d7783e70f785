"""The scoring engine: a bundle and its task in, a Score out.

Applies what no verifier should decide for itself: harness faults and unfinished episodes are
unscored, the data-quality contract (simbridge._signals) is checked, the recording must show the
task's scenario, then the task's verifier measures and this module weights its components,
applies the safety gate and primary goals, and scores the agent's own early end as 0.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, TypedDict

from simbridge._bundle import Bundle
from simbridge._errors import Unscorable
from simbridge._score import Component, DataQuality, Score
from simbridge._signals import check_quality
from simbridge._status import AGENT_ENDED, AGENT_OUTCOMES, HARNESS_FAULTS, RUNNING
from simbridge._taskspec import TaskSpec
from simbridge.verifier import VERIFIER_API_VERSION, VerifyContext, get, scenario_problem


class _ScoreHeader(TypedDict):
    """The fields every Score from score_bundle carries, scored or not."""

    task_id: str
    verifier: str
    unisolated: bool
    verifier_version: str
    flags: list[str]
    data_quality: DataQuality | None


def score_bundle(bundle: Bundle, task: "TaskSpec") -> Score:
    """Run the task's verifier on the bundle and apply weighting, the safety gate and unscored rules."""
    vname = task.verifier.name
    ep = bundle.episode
    # the episode's own flags (lockstep, time_limit_cut, truncated_import, audit_failed …) travel with
    # the score, so a score written by the runner says what a re-verification says
    base = _ScoreHeader(
        task_id=task.id,
        verifier=vname,
        unisolated=ep.unisolated,
        verifier_version=VERIFIER_API_VERSION,
        flags=list(ep.flags),
        data_quality=None,
    )
    if ep.task_id != task.id:
        return Score.unscored(reason=f"bundle is for task {ep.task_id!r}, not {task.id!r}", **base)
    if ep.status in HARNESS_FAULTS:
        return Score.unscored(
            reason=f"harness fault, not an agent failure: {ep.status}"
            + (f" ({ep.status_detail})" if ep.status_detail else ""),
            **base,
        )
    if ep.status == RUNNING:
        last = f"{bundle.signals.t[-1]:.1f} s" if len(bundle.signals) else "no samples"
        return Score.unscored(
            reason=f"episode did not finish (status 'running', recording ends at {last}): "
            "the runner stopped before closing the bundle",
            **base,
        )
    if len(bundle.signals) == 0:
        if _ended_at_once(ep, None, task):
            return _ended_at_once_score(task, vdef_components(vname), ep, "the recording has no samples", base)
        return Score.unscored(reason="the recording has no samples", **base)
    # the time axis is checked whole; a column's range and missing samples when it is first read,
    # so the quality record (and its cost) covers only the signals the task and its verifier read
    checked = check_quality(bundle.signals, task.max_sample_gap_s, sim_end_s=_sim_end_s(ep), on_read=True)
    episode_flags = list(base["flags"])

    def report_quality(asked: list[str]) -> None:
        """Data quality of the columns the task or the verifier read, into the score's header."""
        dq = checked.report([*task.signals, *asked])
        base["data_quality"] = dq
        base["flags"] = [*episode_flags, *(f for f in dq.flags() if f not in episode_flags)]

    report_quality([])
    dq = checked.quality
    if checked.broken:
        return Score.unscored(reason=f"broken recording: {checked.broken}", **base)
    missing = checked.signals.missing(task.signals)
    if missing:
        why = [
            f"{m} ({dq.signals[m].out_of_range} sample(s) out of range)"
            if m in dq.signals and dq.signals[m].out_of_range
            else m
            for m in missing
        ]
        return Score.unscored(reason=f"required signal(s) missing from the recording: {', '.join(why)}", **base)
    bundle = Bundle(bundle.path, ep, checked.signals, bundle.events, bundle.snapshots, bundle.actions, bundle.files)
    if (problem := scenario_problem(bundle, task)) is not None:
        return Score.unscored(reason=problem, **base)
    vdef = get(vname)
    params = vdef.params.model_validate(task.verifier.params)
    ctx = VerifyContext(bundle=bundle, task=task, p=params, too_short=checked.single, band_signals=vdef.bands)
    try:
        explanation = vdef.fn(ctx) or ""
    except Unscorable as exc:
        report_quality(ctx.asked)
        violated = [r for r in ctx.safety_results.values() if not r.ok]
        if (
            not violated
            and checked.single
            and str(exc) == checked.single
            and _ended_at_once(ep, float(bundle.signals.t[-1]), task)
        ):
            # The agent itself ended the episode (done, gave up, went away) before a second sample:
            # nothing was flown, which is the agent's failure, scored 0, never hidden as unscored.
            return _ended_at_once_score(task, vdef.components, ep, str(exc), base, ctx)
        if not violated:
            return Score.unscored(reason=str(exc), **base)
        # A hard constraint was already seen violated: the safety gate decides the score (0)
        # whatever the undecidable items would have earned. The agent's failure is scored.
        for c in vdef.components:
            if c not in ctx.components:
                ctx.component(c, 0.0, explanation=f"not judged: {exc}")
        comps = [ctx.components[c.name] for c in task.partial_credit]
        safety = [ctx.safety_results[s.name] for s in task.safety if s.name in ctx.safety_results]  # judged only
        return Score(
            status="scored",
            score=0.0,
            raw_score=None,
            success=False,
            components=comps,
            safety=safety,
            bands=list(ctx.bands),
            explanation=f"safety gate: {', '.join(r.name for r in violated)} violated, score 0; "
            f"the rest not judged: {exc}",
            **base,
        )
    except Exception as exc:  # noqa: BLE001 - a verifier's own bug is the harness's fault, never the agent's
        return Score.unscored(reason=verifier_bug(vname, exc), **base)
    report_quality(ctx.asked)
    missing_c = [c for c in vdef.components if c not in ctx.components]
    missing_s = [s for s in vdef.safety if s not in ctx.safety_results]
    if missing_c or missing_s:
        return Score.unscored(reason=f"verifier bug: {vname!r} did not record {missing_c + missing_s}", **base)
    if vdef.quality and ctx.task_progress is None:
        return Score.unscored(
            reason=f"verifier bug: {vname!r} declares quality items {list(vdef.quality)} but recorded no progress",
            **base,
        )
    comps = [_scaled(ctx.components[c.name], vdef.quality, ctx) for c in task.partial_credit]
    safety = [ctx.safety_results[s.name] for s in task.safety]
    raw = round(sum(c.points for c in comps), 6)
    safe = all(s.ok for s in safety)
    primary_failed = [c.name for c in comps if task.credit(c.name).primary and c.earned == 0.0]
    gated = raw if safe and not primary_failed else 0.0
    notes = []
    if not safe:
        bad = [s.name for s in safety if not s.ok]
        notes.append(f"safety gate: {', '.join(bad)} violated, score 0")
    if primary_failed:
        notes.append(f"primary goal failed: {', '.join(primary_failed)}, score 0")
    if explanation:
        notes.append(explanation)
    success = safe and all(c.earned >= 1.0 - 1e-9 for c in comps)
    return Score(
        status="scored",
        score=gated,
        raw_score=raw,
        success=success,
        components=comps,
        safety=safety,
        bands=list(ctx.bands),
        explanation="; ".join(notes),
        **base,
    )


def vdef_components(vname: str) -> tuple[str, ...]:
    return get(vname).components


def _ended_at_once(ep: Any, t_last: float | None, task: TaskSpec) -> bool:
    """The agent's own outcome (done, give_up, quit, disconnect, its time limit) ended the episode
    before the recording could hold a time span: the recording is not short for the harness's
    fault, as it would be if the episode ran on (sim_end_s) past its last sample."""
    if ep.status not in AGENT_OUTCOMES or "imported" in ep.flags:
        return False  # an imported file's shortness is the file's, not an agent's ending
    end = _sim_end_s(ep)
    if end is None:  # a writer that does not say when the episode ended: only an explicit quit
        return ep.status in AGENT_ENDED
    return end <= (t_last or 0.0) + task.max_sample_gap_s


def _ended_at_once_score(
    task: TaskSpec,
    components: tuple[str, ...],
    ep: Any,
    why: str,
    base: _ScoreHeader,
    ctx: VerifyContext | None = None,
) -> Score:
    """Score 0: the agent ended the episode before anything of the task could be shown."""
    recorded = ctx.components if ctx is not None else {}
    note = f"not shown: the agent ended the episode ({ep.status}) at once"
    comps = [
        recorded.get(c.name) or Component(name=c.name, weight=c.weight, earned=0.0, kind=c.kind, explanation=note)
        for c in task.partial_credit
        if c.name in components or c.name in recorded
    ]
    comps = [c.model_copy(update={"earned": 0.0}) if c.earned else c for c in comps]
    results = ctx.safety_results if ctx is not None else {}
    return Score(
        status="scored",
        score=0.0,
        raw_score=0.0,
        success=False,
        components=comps,
        safety=[results[x.name] for x in task.safety if x.name in results],
        bands=list(ctx.bands) if ctx is not None else [],
        explanation=f"the agent ended the episode ({ep.status}) before anything could be judged: {why}",
        **base,
    )


def _scaled(c: Component, quality: tuple[str, ...], ctx: VerifyContext) -> Component:
    """A quality item scaled by the task progress: worth only as much of the task as was done."""
    prog = ctx.task_progress
    if c.name not in quality or prog is None or prog >= 1.0 or c.earned == 0.0:
        return c
    note = f"scaled by task progress {prog:.2f}" + (f" ({ctx.progress_note})" if ctx.progress_note else "")
    return c.model_copy(
        update={
            "earned": round(c.earned * prog, 6),
            "explanation": f"{c.explanation}; {note}" if c.explanation else note,
        }
    )


def _sim_end_s(ep: Any) -> float | None:
    """The sim time the episode ended at, if episode.json tells it."""
    v = getattr(ep, "sim_end_s", None)
    try:
        return float(v) if v is not None else None
    except (TypeError, ValueError):
        return None


def verifier_bug(name: str, exc: BaseException) -> str:
    """One line for an exception raised inside verifier `name`: its type, message and the
    verifier's own line that raised it (the innermost frame outside simbridge's core)."""
    import traceback

    core = Path(__file__).parent
    plugins = tuple(core / name for name in ("verifiers", "adapters", "tasks"))
    where = ""
    for frame in reversed(traceback.extract_tb(exc.__traceback__)):
        path = Path(frame.filename)
        in_core = path.is_relative_to(core) and not any(path.is_relative_to(p) for p in plugins)
        if "site-packages" in path.parts or in_core:
            continue
        where = f" at {path.name}:{frame.lineno}"
        break
    text = exc.args[0] if isinstance(exc, KeyError) and exc.args else str(exc)
    return f"verifier bug: {name!r} raised {type(exc).__name__}: {str(text).splitlines()[0] if text else ''}{where}"
