"""`simbridge eval`: plan the suite, run its episodes on an executor, retry harness faults,
write results.parquet as results arrive and end with the metrics table.

Retries: an attempt that ends in a harness fault (status sim_crashed or harness_error, or no
bundle at all because its process or node died) is run again, up to the suite's `retries`
times in one invocation, if it was lost with its process or node or ended before the agent
sent any input. An agent's own outcome (completed, timeout, agent_quit, agent_disconnected) is
final, scored or not; so is a harness fault that followed an input of the agent (episode.json
`last_agent_action`, else actions.jsonl): the input may be what froze or crashed the
simulator, and a retry would let an agent trade a bad episode for a fresh one. That attempt
stays the episode's result, unscored, counted in the exit code and in results.parquet with the
input (`last_agent_action`), and --resume keeps it. --resume keeps every episode that already
has a complete bundle with an agent outcome whose episode.json names the planned task and trial
(a bundle relabelled to another task and resealed is not kept) and reruns the rest (attempt numbers continue; an
interrupted attempt's partial bundle stays where it is).
"""

from __future__ import annotations

import json
import os
import time
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from simbridge._eval._executors import Job, LocalExecutor, RayExecutor
from simbridge._eval._plan import (
    PLAN_FILE,
    EpisodeSpec,
    attempt_dirs,
    bundle_status,
    expand,
    is_complete,
    read_plan,
    write_json_atomic,
    write_plan,
)
from simbridge._eval._progress import Progress
from simbridge._eval._suite import SuiteError, load_suite
from simbridge._exit import Exit
from simbridge._status import AGENT_OUTCOMES  # the agent's own outcomes: never retried

RESULTS_FILE = "results.parquet"

#: results.parquet columns, in order, with their Arrow types
COLUMNS: list[tuple[str, str]] = [
    ("episode_id", "string"),
    ("task_id", "string"),
    ("sim", "string"),
    ("agent", "string"),
    ("agent_slug", "string"),
    # the assists the episode asked for, comma-separated ("" for none): group by it, never pool
    ("assists", "string"),
    ("trial", "int64"),
    ("state", "string"),
    ("attempt", "int64"),
    ("attempts", "int64"),
    ("status", "string"),
    ("detail", "string"),
    ("score_status", "string"),
    ("score", "float64"),
    ("raw_score", "float64"),
    ("success", "bool_"),
    ("safe", "bool_"),
    ("components", "string"),
    ("wall_s", "float64"),
    ("sim_s", "float64"),
    ("host", "string"),
    ("node_id", "string"),
    ("executor", "string"),
    ("bundle", "string"),
    ("submit_wall", "float64"),
    ("end_wall", "float64"),
    ("driver_wall_s", "float64"),
    ("last_agent_action", "string"),
]


def write_results(out: Path, rows: list[dict[str, Any]]) -> None:
    """results.parquet, atomically (a reader never sees half a file)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    schema = pa.schema([(n, getattr(pa, t)()) for n, t in COLUMNS])
    table = pa.Table.from_pylist([{n: r.get(n) for n, _ in COLUMNS} for r in rows], schema=schema)
    tmp = out / (RESULTS_FILE + ".tmp")
    pq.write_table(table, tmp)
    os.replace(tmp, out / RESULTS_FILE)


#: results.parquet columns a --resume takes from the earlier row (the driver's own records,
#: not in the bundle); every other column is rebuilt from the verified bundle
_BOOKKEEPING = ("wall_s", "host", "node_id", "submit_wall", "end_wall", "driver_wall_s")


def _score_of(bundle: Path, outcome: dict[str, Any] | None) -> Any:
    """The score `simbridge metrics` gives the bundle: re-derived from it under the one
    integrity rule when it has score.json (`_metrics.load_trials`), else None (no bundle, or
    one the runner did not score)."""
    from simbridge._errors import SimbridgeError
    from simbridge._metrics import load_trials

    if not (bundle / "episode.json").is_file():
        return None
    try:
        [trial] = load_trials([("-", bundle)]).trials
    except (SimbridgeError, ValueError):
        return None
    return trial.score


def _row(
    out: Path,
    spec: EpisodeSpec,
    attempt: int,
    n_attempts: int,
    outcome: dict[str, Any] | None,
    executor: str,
    state: str,
) -> dict[str, Any]:
    bundle = out / spec.episode_id / f"attempt-{attempt}"
    row: dict[str, Any] = {
        "episode_id": spec.episode_id,
        "task_id": spec.task_id,
        "sim": spec.sim,
        "agent": spec.agent,
        "agent_slug": spec.agent_slug,
        "assists": ",".join(spec.assists),
        "trial": spec.trial,
        "state": state,
        "attempt": attempt or None,
        "attempts": n_attempts,
        "executor": executor,
    }
    if attempt == 0:
        return row
    ep = episode_dict(bundle)
    o = outcome or {}
    score = _score_of(bundle, outcome)
    row.update(
        status=ep.get("status") or o.get("status"),
        detail=ep.get("status_detail") or o.get("detail"),
        sim_s=ep.get("sim_seconds", o.get("sim_s")),
        wall_s=o.get("wall_s"),
        host=o.get("host"),
        node_id=o.get("node_id"),
        bundle=str(bundle.relative_to(out)) if bundle.exists() else None,
        submit_wall=o.get("submit_wall"),
        end_wall=o.get("end_wall"),
        driver_wall_s=o.get("driver_wall_s"),
    )
    if o.get("fault"):
        row["detail"] = o["fault"]
    if row["status"] not in AGENT_OUTCOMES and (last := agent_input_before(bundle)) is not None:
        row["last_agent_action"] = json.dumps(last, separators=(",", ":"))
    if row["wall_s"] is None and ep.get("wall_end") and ep.get("wall_start"):
        row["wall_s"] = round(ep["wall_end"] - ep["wall_start"], 3)
    if score is not None:
        row.update(
            score_status=score.status,
            score=score.score if score.status == "scored" else None,
            raw_score=score.raw_score,
            success=score.success,
            safe=score.safe,
            components=json.dumps({c.name: c.earned for c in score.components}),
        )
    else:
        row["score_status"] = "unscored"
    return row


def episode_dict(bundle: Path) -> dict[str, Any]:
    """The attempt's episode.json as a dict, {} when it is missing, unreadable or not a regular
    file (a bounded read: a FIFO planted in an eval directory never blocks a --resume)."""
    from simbridge._bundle import read_json_file
    from simbridge._errors import SimbridgeError

    try:
        data = read_json_file(bundle / "episode.json", "episode.json")
    except SimbridgeError:
        return {}
    return data if isinstance(data, dict) else {}


def agent_input_before(bundle: Path) -> dict[str, Any] | None:
    """The agent's last input (not an observation, not a wait) in an attempt's bundle: episode.json
    `last_agent_action` (the runner's record), else the last such line of actions.jsonl (an
    attempt whose process died before it closed the bundle); None when the agent sent none."""
    import io

    from simbridge._agent_port._actions import is_agent_input
    from simbridge._bundle import MAX_STREAM_BYTES
    from simbridge._errors import SimbridgeError
    from simbridge._inputs import open_input

    ep = episode_dict(bundle)
    if isinstance(ep.get("last_agent_action"), dict):
        return dict(ep["last_agent_action"])
    last = None
    try:
        raw = open_input(bundle / "actions.jsonl", "actions.jsonl", limit=MAX_STREAM_BYTES)  # never a FIFO
    except SimbridgeError:
        return None
    try:
        with io.TextIOWrapper(raw, encoding="utf-8", errors="replace") as fh:
            for line in fh:
                try:
                    rec = json.loads(line)
                except ValueError:
                    continue  # a line cut by the process's death
                if isinstance(rec, dict) and is_agent_input(rec.get("kind")):
                    last = rec
    except OSError:
        return None
    return last


def _finished_attempt(out: Path, spec: EpisodeSpec) -> tuple[int, int]:
    """(the attempt that finished the episode or 0, attempts on disk). Only the last attempt
    can have finished it: an earlier one is superseded once a later folder exists, as
    `simbridge._counting` counts (eval never starts an attempt after a finished one)."""
    dirs = attempt_dirs(out, spec.episode_id)
    if not dirs:
        return 0, 0
    d = dirs[-1]
    if is_complete(d) and (bundle_status(d) in AGENT_OUTCOMES or agent_input_before(d) is not None):
        if planned_problem(d, spec) is not None:
            return 0, len(dirs)  # not this episode (relabelled, resealed): run it again
        return int(d.name[8:]), len(dirs)
    return 0, len(dirs)


def planned_problem(bundle: Path, spec: EpisodeSpec) -> str | None:
    """Why the bundle in an attempt directory is not the planned episode `spec` (its episode.json
    names another task or trial: `simbridge._counting.plan_mismatch`, the rule metrics count by),
    or None. An unreadable episode.json is a problem too."""
    from simbridge._counting import plan_mismatch
    from simbridge._errors import SimbridgeError
    from simbridge._metrics import _episode

    try:
        ep = _episode(bundle)
    except SimbridgeError as exc:
        return str(exc)
    return plan_mismatch(ep, spec.to_json())


@dataclass
class EvalResult:
    out: Path
    rows: list[dict[str, Any]]
    exit_code: int
    metrics_text: str
    notes: list[str] = field(default_factory=list)
    wall_s: float = 0.0


def make_executor(ray_address: str | None, max_parallel: int | None, **kw: Any) -> Any:
    if ray_address is None:
        return LocalExecutor(max_parallel, env=kw.get("env"))
    return RayExecutor(ray_address, max_parallel, runtime_env=kw.get("runtime_env"))


def run_eval(
    suite_path: Path,
    out: Path,
    *,
    ray_address: str | None = None,
    max_parallel: int | None = None,
    resume: bool = False,
    progress_stream: Any = None,
    live: bool | None = None,
    executor: Any = None,
    say: Any = print,
    **executor_kw: Any,
) -> EvalResult:
    """Run the suite into `out` (see the module docstring); returns the final rows and exit code."""
    t0 = time.monotonic()
    suite_path = Path(suite_path)
    suite = load_suite(suite_path)
    episodes, notes = expand(suite, suite_path)
    out = Path(out)
    lock = lock_eval_dir(out)
    try:
        return _run_locked(
            suite_path, suite, episodes, notes, out, ray_address, max_parallel, resume, progress_stream, live,
            executor, say, t0, executor_kw,
        )  # fmt: skip
    finally:
        lock.close()


#: the lock file in an eval directory: one `simbridge eval` writes to a directory at a time
LOCK_FILE = ".eval.lock"


def lock_eval_dir(out: Path) -> Any:
    """Create `out` if needed and take an exclusive, non-blocking flock on out/.eval.lock for
    the life of the returned file (released by close or by the process ending, even on
    SIGKILL). A second eval or --resume on the same directory: SuiteError naming the holder's
    pid. `out` naming a file, or a directory that cannot be written: SuiteError. The lock file
    is opened without following a link (O_NOFOLLOW, never blocking on a FIFO) and must be a
    regular file with one link: a symlink or hard link planted there is refused, never written
    through."""
    import errno
    import fcntl
    import stat

    if out.exists() and not out.is_dir():
        raise SuiteError(f"--out {out}: is a file, not a directory (an eval writes a directory of bundles)")
    path = out / LOCK_FILE
    flags = os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
    try:
        out.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, flags, 0o644)
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.EMLINK):
            raise SuiteError(f"--out {out}: {LOCK_FILE} is a symbolic link (not written through); remove it") from None
        raise SuiteError(f"--out {out}: cannot write there: {exc.strerror or exc}") from None
    st = os.fstat(fd)
    if not stat.S_ISREG(st.st_mode) or st.st_nlink != 1:
        os.close(fd)
        what = "not a regular file" if not stat.S_ISREG(st.st_mode) else f"a file with {st.st_nlink} hard links"
        raise SuiteError(f"--out {out}: {LOCK_FILE} is {what} (not written through); remove it")
    os.set_blocking(fd, True)
    fh = open(fd, "r+", encoding="utf-8")
    try:
        fcntl.flock(fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        fh.seek(0)
        holder = fh.read().strip() or "?"
        fh.close()
        raise SuiteError(
            f"--out {out}: another simbridge eval (pid {holder}) is writing to this directory; "
            "wait for it to end (a second writer would run trials twice)"
        ) from None
    fh.seek(0)
    fh.truncate()
    fh.write(f"{os.getpid()}\n")
    fh.flush()
    return fh


def _run_locked(
    suite_path: Path,
    suite: Any,
    episodes: list[EpisodeSpec],
    notes: list[str],
    out: Path,
    ray_address: str | None,
    max_parallel: int | None,
    resume: bool,
    progress_stream: Any,
    live: bool | None,
    executor: Any,
    say: Any,
    t0: float,
    executor_kw: dict[str, Any],
) -> EvalResult:
    if (out / PLAN_FILE).exists():
        if not resume:
            raise SuiteError(
                f"{out}: already holds an eval ({PLAN_FILE}); pass --resume to finish it or choose another --out"
            )
        old = {e.episode_id for e in read_plan(out)}
        new = {e.episode_id for e in episodes}
        if old != new:
            diff = sorted(old ^ new)
            raise SuiteError(
                f"{out}/{PLAN_FILE}: the suite changed since this eval was planned ({len(diff)} "
                f"episode(s) differ, e.g. {diff[0]}); use a new --out"
            )
    if ray_address is None and executor is None:
        _preflight(episodes)
    out.mkdir(parents=True, exist_ok=True)
    write_plan(out, suite, suite_path, episodes, notes)
    for n in notes:
        say(f"note: {n}")
    ex = executor or make_executor(ray_address, max_parallel, **executor_kw)
    try:
        if isinstance(ex, RayExecutor):
            ex.check(episodes)
        say(ex.describe(episodes))
        rows = _drive(out, suite.retries, episodes, ex, progress_stream, live, resume, max_parallel)
    finally:
        ex.stop()
    metrics_text = metrics_table(out, suite.name)
    expect = {e.episode_id: e.expect for e in episodes}
    return EvalResult(out, rows, _exit_code(rows, expect), metrics_text, notes, time.monotonic() - t0)


def _preflight(episodes: list[EpisodeSpec]) -> None:
    """`simbridge run`'s checks, once per task × sim × provider, before anything runs here."""
    from simbridge.episode import RunConfig, preflight
    from simbridge._task import load_task

    for key in sorted({(e.task_id, e.sim, e.provider) for e in episodes}):
        preflight(RunConfig(task=key[0], sim=key[1], agent="noop", provider=key[2]), load_task(key[0]))


def _drive(
    out: Path,
    retries: int,
    episodes: list[EpisodeSpec],
    ex: Any,
    stream: Any,
    live: bool | None,
    resume: bool,
    max_parallel: int | None,
) -> list[dict[str, Any]]:
    rows: dict[str, dict[str, Any]] = {}
    queue: deque[Job] = deque()
    hint = max_parallel or _parallel_hint(ex, episodes)
    progress = Progress(episodes, parallel_hint=int(hint), stream=stream, live=live)
    tries: dict[str, int] = {}
    before = _old_rows(out) if resume else {}
    try:
        for spec in episodes:
            done_at, n_on_disk = (
                _finished_attempt(out, spec) if resume else (0, len(attempt_dirs(out, spec.episode_id)))
            )
            if done_at:
                # Everything scored comes from the bundle, re-verified now; only the driver's
                # bookkeeping (host, wall times) is taken from the old row, and only when it
                # names the same attempt: an edited results.parquet changes no score.
                row = _row(out, spec, done_at, n_on_disk, None, ex.name, "finished")
                old = before.get(spec.episode_id)
                if old and old.get("attempt") == done_at and old.get("state") == "finished":
                    row.update({k: old.get(k) for k in _BOOKKEEPING if row.get(k) is None})
                rows[spec.episode_id] = row
                progress.skipped(spec, rows[spec.episode_id])
                continue
            rows[spec.episode_id] = _row(out, spec, 0, n_on_disk, None, ex.name, "pending")
            queue.append(Job(spec, n_on_disk + 1, out / spec.episode_id / f"attempt-{n_on_disk + 1}"))
        write_results(out, list(rows.values()))
        while queue or ex.running():
            while queue and ex.can_start(queue[0]):
                job = queue.popleft()
                ex.start(job)
                rows[job.spec.episode_id].update(state="running", attempt=job.attempt, attempts=job.attempt)
                progress.started(job.spec, job.attempt)
            finished = ex.wait(0.2)
            for job, outcome in finished:
                sid = job.spec.episode_id
                outcome.update(submit_wall=round(job.submit_wall, 3), end_wall=round(time.time(), 3))
                outcome["driver_wall_s"] = round(outcome["end_wall"] - job.submit_wall, 3)
                if outcome.get("fault"):
                    job.dest.mkdir(parents=True, exist_ok=True)
                    write_json_atomic(job.dest / "harness_fault.json", outcome)
                tries[sid] = tries.get(sid, 0) + 1
                fault = outcome.get("status") not in AGENT_OUTCOMES
                # an attempt lost with its process or node (outcome "fault") is ours whatever the
                # agent did: the agent port cannot end the episode's process
                after_input = agent_input_before(job.dest) if fault and not outcome.get("fault") else None
                if fault and after_input is None and tries[sid] <= retries:
                    progress.retrying(job.spec, job.attempt, str(outcome.get("detail")))
                    rows[sid] = _row(out, job.spec, job.attempt, job.attempt, outcome, ex.name, "retrying")
                    queue.appendleft(Job(job.spec, job.attempt + 1, job.dest.with_name(f"attempt-{job.attempt + 1}")))
                else:
                    rows[sid] = _row(
                        out,
                        job.spec,
                        job.attempt,
                        job.attempt,
                        outcome,
                        ex.name,
                        "harness_fault" if fault else "finished",
                    )
                    progress.finished(job.spec, rows[sid])
            if finished:
                write_results(out, list(rows.values()))
    finally:
        progress.close()
        write_results(out, list(rows.values()))
    return list(rows.values())


def _old_rows(out: Path) -> dict[str, dict[str, Any]]:
    """The rows of an earlier run's results.parquet (host, wall times of finished episodes)."""
    import pyarrow.parquet as pq

    import stat

    try:
        if not stat.S_ISREG(os.stat(out / RESULTS_FILE).st_mode):
            return {}  # a FIFO or a folder where results.parquet was: nothing to take
        return {r["episode_id"]: r for r in pq.read_table(out / RESULTS_FILE).to_pylist()}
    except (OSError, ValueError, KeyError):
        return {}


def _parallel_hint(ex: Any, episodes: list[EpisodeSpec]) -> int:
    """How many episodes may run at once (for the ETA): the local budget's capacity, or the plan's size."""
    from simbridge._eval._cost import cost_of

    budget = getattr(ex, "budget", None)
    if budget is None:
        return len(episodes)
    return budget.capacity(cost_of(episodes[0].sim))


def _exit_code(rows: list[dict[str, Any]], expect: dict[str, str] | None = None) -> Exit:
    """4 if an episode is unscored; 3 if an episode's outcome is not the one expected of it
    (`completed` unless the suite's `expect:` says otherwise, e.g. the baseline's `timeout`); 0."""
    if any(r.get("score_status") != "scored" for r in rows):
        return Exit.UNSCORED
    if any(r.get("status") not in (expect or {}).get(r["episode_id"], "completed").split("|") for r in rows):
        return Exit.AGENT_FAILED
    return Exit.OK


def metrics_table(out: Path, label: str, rows: Any = None, ks: tuple[int, ...] = (1, 3, 5)) -> str:
    """The table `simbridge metrics LABEL=OUT` prints, computed the same way (`load_trials`:
    every bundle re-verified, superseded harness-fault attempts left out), per agent, with
    per-task rows. `rows` is accepted for compatibility and not used: the table comes from the
    bundles, never from results.parquet."""
    from simbridge._errors import SimbridgeError
    from simbridge._metrics import compute_groups, load_trials

    try:
        loaded = load_trials([(label, out)])
    except SimbridgeError as exc:
        return f"no metrics: {exc}"
    if not loaded.trials:
        return "no metrics: no episode bundle in " + str(out)
    parts = []
    groups = compute_groups(loaded.trials, ks=ks)
    for (agent, lab), m in groups.items():
        parts.append(f"== agent {agent or '(not recorded)'}   run {lab}")
        parts.append(m.table())
        parts.append("")
    return "\n".join(parts).rstrip()
