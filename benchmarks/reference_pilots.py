"""Which task × simulator pairs a reference pilot solves through the GUI, on every seed tried.

Each registered reference pilot (simbridge.registry kind `pilot`) flies its pair with
`--agent reference`, one seeded trial per seed, exactly as `simbridge run TASK --sim SIM --agent
reference --seed S --lockstep` does, and the do-nothing agent flies the same seeds. A pair is
*solved* when every seed scored at least 0.9 with success and the do-nothing agent scored 0 on
each (simbridge._verified). Pairs run in parallel (`--jobs`, processes; one simulator each).

    python benchmarks/reference_pilots.py                       # every pair on jsbsim and drive, seeds 1-5
    python benchmarks/reference_pilots.py --pairs T09/jsbsim P01/jsbsim --seeds 11 12 13
    python benchmarks/reference_pilots.py --sim flightgear --seeds 1 2 3 --real-time   # FlightGear pairs
    python benchmarks/reference_pilots.py --record             # also write tasks/verified.json

It prints per trial the score, success, status, simulator and wall seconds, per pair the verdict,
and a summary with the wall time of the whole run against the sum of its trials' wall times (the
parallel speed-up, measured in the same run). `--record` merges the pairs' results into the
`verified.json` of each task's folder, which `simbridge tasks list` shows.

Exit status 0 when every pair run was solved, 1 otherwise.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import fcntl
import sys
import tempfile
import time
from collections import defaultdict
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass, replace
from pathlib import Path

from simbridge.episode import RunConfig, run
from simbridge._status import HARNESS_FAULTS
from simbridge._task import load_all_tasks
from simbridge._verified import MIN_SCORE, PairRecord, pilot_for, read_records, write_records

#: simulators that run on this machine by default (FlightGear needs --sim flightgear: a 1.8 GB install)
DEFAULT_SIMS = ("jsbsim", "drive")


@dataclass(frozen=True)
class Trial:
    pair: str
    agent: str
    seed: int
    score: float | None
    success: bool
    status: str
    sim_s: float
    wall_s: float
    detail: str


def all_pairs(sims: tuple[str, ...]) -> list[str]:
    """`TASK/SIM` for every task that runs on one of `sims` and has a reference pilot there."""
    out = []
    for t in sorted(load_all_tasks().values(), key=lambda t: t.id):
        for sim in [t.simulator.name, *t.simulator.alternatives]:
            if sim in sims and pilot_for(t.id, sim):
                out.append(f"{t.id}/{sim}")
    return out


#: attempts after the first for an episode that ends in a harness fault (as `eval`'s `retries`)
HARNESS_RETRIES = 1


def fly(
    pair: str, agent: str, seed: int, out: Path, lockstep: bool, time_limit_s: float | None, lock: Path | None = None
) -> Trial:
    task, sim = pair.split("/")
    with contextlib.ExitStack() as stack:
        if lock is not None:  # take turns with other runs that hold the same lock (one FlightGear at a time)
            fh = stack.enter_context(open(lock, "a"))
            fcntl.flock(fh, fcntl.LOCK_EX)
        trial = _fly(pair, task, sim, agent, seed, out, lockstep, time_limit_s)
        for _ in range(HARNESS_RETRIES):
            if trial.status not in HARNESS_FAULTS:
                break
            # a harness fault says nothing of the pilot (unscored, as eval retries it): fly again
            first = trial.detail
            trial = _fly(pair, task, sim, agent, seed, out, lockstep, time_limit_s)
            trial = replace(trial, detail=f"{trial.detail} [retried after a harness fault: {first[:160]}]")
        return trial


def _fly(
    pair: str, task: str, sim: str, agent: str, seed: int, out: Path, lockstep: bool, time_limit_s: float | None
) -> Trial:
    w0 = time.monotonic()
    [r] = run(
        RunConfig(
            task=task,
            sim=sim,
            agent=agent,
            trials=1,
            seed=seed,
            out=out / pair.replace("/", "-") / agent,
            lockstep=lockstep,
            frame_hz=0.0,
            time_limit_s=time_limit_s,
            say=lambda s: None,
        )
    )
    s = r.score
    sc = s.score if s is not None and s.status == "scored" else None
    return Trial(pair, agent, seed, sc, bool(s and s.success), r.status, r.sim_s, time.monotonic() - w0, r.detail)


def record_of(tasks: dict, pair: str) -> PairRecord | None:
    """The pair's record in its task folder's verified.json, if any."""
    folder = tasks[pair.split("/")[0]].folder
    return read_records(folder).get(pair) if folder is not None else None


def kept_baseline(tasks: dict, pair: str, seeds: tuple[int, ...]) -> float | None:
    """The do-nothing best of the pair's record when it was flown on these seeds: it depends on
    the task, its verifier and the simulator, not on the reference pilot, so a reference flown
    again with --no-baseline keeps it; None otherwise."""
    old = record_of(tasks, pair)
    return old.baseline_max if old is not None and old.seeds == seeds else None


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pairs", nargs="+", default=None, help="TASK/SIM pairs (default: every pair on --sim)")
    ap.add_argument("--sim", nargs="+", default=list(DEFAULT_SIMS), help="simulators whose pairs to run")
    ap.add_argument("--seeds", nargs="+", type=int, default=[1, 2, 3, 4, 5], help="one trial per seed")
    ap.add_argument("--jobs", type=int, default=2, help="episodes at once (processes)")
    ap.add_argument("--real-time", action="store_true", help="real time instead of exact lockstep")
    ap.add_argument(
        "--no-baseline",
        action="store_true",
        help="skip the do-nothing agent's trials; --record keeps the record's do-nothing best when the seeds are the record's",
    )
    ap.add_argument(
        "--baseline-only",
        action="store_true",
        help="fly only the do-nothing agent, on the seeds of each pair's record; --record then adds its best "
        "score to that record (a simulator that runs in real time spends a whole time limit on each)",
    )
    ap.add_argument("--time-limit", type=float, default=None, help="cut each episode at this simulator time (s)")
    ap.add_argument("--record", action="store_true", help="merge the results into each task folder's verified.json")
    ap.add_argument("--out", type=Path, default=None, help="keep the bundles here (default: a temporary directory)")
    ap.add_argument(
        "--lock",
        type=Path,
        default=None,
        help="hold an exclusive lock on this file around each episode, so that runs of a simulator that "
        "must run alone (FlightGear in real time) take turns",
    )
    args = ap.parse_args(argv)
    pairs = args.pairs or all_pairs(tuple(args.sim))
    tasks = load_all_tasks()
    for pair in pairs:
        task, _, sim = pair.partition("/")
        if task not in tasks or not sim:
            ap.error(f"{pair}: not TASK/SIM of a known task")
        if not pilot_for(task, sim):
            ap.error(f"{pair}: no reference pilot registered for it")
    if not pairs:
        ap.error(f"no pair with a reference pilot on {', '.join(args.sim)}")
    if args.baseline_only and args.no_baseline:
        ap.error("--baseline-only and --no-baseline exclude each other")
    kept: dict[str, PairRecord] = {}  # --baseline-only: the records the do-nothing scores join
    if args.baseline_only:
        for pair in pairs:
            rec = record_of(tasks, pair)
            if rec is None:
                ap.error(f"{pair}: --baseline-only needs the pair's record (fly its reference with --record first)")
            if tuple(args.seeds) != rec.seeds:
                ap.error(f"{pair}: --seeds {args.seeds} are not the record's {list(rec.seeds)}")
            kept[pair] = rec
    out = args.out or Path(tempfile.mkdtemp(prefix="reference-pilots-"))
    agents = ["noop"] if args.baseline_only else ["reference"] + ([] if args.no_baseline else ["noop"])
    jobs = [(p, a, s) for p in pairs for a in agents for s in args.seeds]
    print(f"{len(pairs)} pair(s) × {len(args.seeds)} seed(s) × {agents}: {len(jobs)} episodes, {args.jobs} at once")
    w0 = time.monotonic()
    trials: dict[str, list[Trial]] = defaultdict(list)
    with ProcessPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        futs = [pool.submit(fly, p, a, s, out, not args.real_time, args.time_limit, args.lock) for p, a, s in jobs]
        for f in as_completed(futs):
            t = f.result()
            trials[t.pair].append(t)
            sc = "—" if t.score is None else f"{t.score:.3f}"
            print(
                f"  {t.pair:<16} {t.agent:<9} seed {t.seed:<4} score {sc:<6} success {str(t.success):<5} "
                f"{t.status:<11} sim {t.sim_s:6.1f} s  wall {t.wall_s:5.1f} s  {t.detail}",
                flush=True,
            )
    wall = time.monotonic() - w0
    today = dt.datetime.now(dt.timezone.utc).date().isoformat()
    records: dict[Path, dict[str, PairRecord]] = defaultdict(dict)
    solved_all = True
    print()
    for pair in pairs:
        ref = sorted((t for t in trials[pair] if t.agent == "reference"), key=lambda t: t.seed)
        base = [t for t in trials[pair] if t.agent == "noop"]
        scores = [t.score for t in ref]
        ok = [t for t in ref if t.score is not None and t.score >= MIN_SCORE - 1e-9 and t.success]
        rec = PairRecord(
            pair=pair,
            trials=len(ref),
            successes=len(ok),
            min_score=None if any(s is None for s in scores) or not scores else min(s for s in scores if s is not None),
            seeds=tuple(t.seed for t in ref),
            lockstep=not args.real_time,
            recorded=today,
            baseline_max=max((t.score or 0.0 for t in base), default=None) if base else None,
        )
        if pair in kept:  # the reference's record, with the do-nothing agent's best on its seeds
            rec = replace(kept[pair], baseline_max=rec.baseline_max)
        elif args.no_baseline:
            rec = replace(rec, baseline_max=kept_baseline(tasks, pair, rec.seeds))
        solved_all &= rec.solved
        folder = tasks[pair.split("/")[0]].folder
        if folder is not None:
            records[folder][pair] = rec
        bl = "" if rec.baseline_max is None else f", do-nothing best {rec.baseline_max:.3f}"
        print(f"{pair:<16} {rec.short():<16} min score {rec.min_score}{bl}")
    serial = sum(t.wall_s for ts in trials.values() for t in ts)
    print(
        f"\nwall {wall:.0f} s for {serial:.0f} s of trials: {serial / wall if wall else 0:.2f}× from {args.jobs} job(s)"
    )
    if args.record:
        for folder, recs in records.items():
            print(f"recorded: {write_records(folder, recs)}")
    print(f"bundles: {out}")
    return 0 if solved_all else 1


if __name__ == "__main__":
    sys.exit(main())
