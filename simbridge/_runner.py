"""The runner: one task, one simulator, one agent, N trials → one scored bundle per trial.

Each trial is one `Episode` (simbridge._episode): the sandbox, the agent port, the simulator in
the task's initial state, the isolation audit, the recording, the agent acting on its own
thread, and the end on the first of: the agent's done/give-up, the time limit (simulator time),
an aircraft crash, the simulator exiting, a harness fault, Ctrl-C; then everything torn down, the
bundle closed with its status and scored. See simbridge._episode for the statuses.

The configuration and result types live in simbridge._run_config, the episode's parts in
simbridge._episode_parts and its end conditions in simbridge._end_watch. Callers use the public
door, `simbridge.episode`.
"""

from __future__ import annotations

import time
from pathlib import Path

from simbridge._episode import Episode
from simbridge._run_config import RunConfig, TrialResult, check_assists, check_sim, resolve_session
from simbridge._task import TaskSpec, load_task


def run_trial(cfg: RunConfig, task: TaskSpec, trial: int, path: Path) -> TrialResult:
    """One episode → one closed, scored bundle at `path`: the episode started, the agent's own
    thread acting until the first end condition, closed. Never raises for agent or simulator
    failures (they become statuses); re-raises KeyboardInterrupt after closing the bundle."""
    return Episode(cfg, task, trial, path).run()


def preflight(cfg: RunConfig, task: TaskSpec) -> None:
    """Everything that can be checked before a bundle exists: the provider can start a sandbox
    here, the simulator is installed or reachable. Raises SimbridgeError naming what is missing."""
    from simbridge._providers import make_provider

    session_cls = resolve_session(cfg.sim)
    make_provider(cfg.provider, task=task, session_cls=session_cls).preflight()
    session_cls.preflight(cfg.provider)


def claim_run_dir(base: Path) -> Path:
    """A new directory `base`, else `base~2`, `base~3`, ..., made here with one `mkdir` each: runs
    started in the same second into one folder (a benchmark's or a suite's parallel workers) each
    get their own, where a look before the mkdir let two share one and lose a bundle."""
    base.parent.mkdir(parents=True, exist_ok=True)
    n = 1
    while True:
        root = base if n == 1 else base.with_name(f"{base.name}~{n}")
        try:
            root.mkdir()
            return root
        except FileExistsError:
            n += 1


def run(cfg: RunConfig) -> list[TrialResult]:
    """All trials of `cfg`; bundles go to OUT/TASK-YYYYmmdd-HHMMSS/trial-N."""
    task = load_task(cfg.task)
    check_sim(task, cfg.sim)
    resolve_session(cfg.sim)  # fail fast on a missing adapter
    check_assists(cfg.sim, cfg.assists)  # and on an assist the simulator does not offer
    from simbridge.agents import make_agent

    make_agent(cfg.agent, task.id)  # fail fast on a bad agent spec
    preflight(cfg, task)
    root = claim_run_dir(Path(cfg.out or "runs") / f"{task.id}-{time.strftime('%Y%m%d-%H%M%S')}")
    results = []
    for i in range(1, cfg.trials + 1):
        results.append(run_trial(cfg, task, i, root / f"trial-{i}"))
    return results


def summary_table(results: list[TrialResult]) -> str:
    head = f"{'trial':>5}  {'status':<13}{'score':>7}  {'success':<8}{'sim s':>7}{'actions':>8}  bundle"
    lines = [head, "-" * len(head)]
    for r in results:
        s = r.score
        sc = f"{s.score:.3f}" if s is not None and s.status == "scored" else "—"
        ok = str(s.success) if s is not None and s.status == "scored" else "unscored"
        lines.append(f"{r.trial:>5}  {r.status:<13}{sc:>7}  {ok:<8}{r.sim_s:>7.1f}{r.n_actions:>8}  {r.path}")
    return "\n".join(lines)
