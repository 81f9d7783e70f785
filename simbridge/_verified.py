"""Which task × simulator pairs a reference has solved through the GUI, and how often.

A task is only worth its proof that the score can be earned: a reference pilot (pixels in, keys
and clicks out, like any agent) flew it to success. `benchmarks/reference_pilots.py --record`
writes what it measured to `verified.json` in the folder the task's YAML lives in (simbridge's
own `tasks/`, or a plug-in's task folder), and `simbridge tasks list` shows it beside each task.
A pair with a registered pilot but no record is "unmeasured"; a pair without a pilot is not
verified. The record is data the benchmark measured, never edited by hand.
"""

from __future__ import annotations

import fcntl
import json
import os
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from simbridge.registry import registry

#: the file beside a folder's task YAMLs
RECORD_FILE = "verified.json"
#: a reference "solves" a pair when every seed tried scored at least this, with success
MIN_SCORE = 0.9


@dataclass(frozen=True)
class PairRecord:
    """The last benchmark run of one pair's reference."""

    pair: str  # TASK/SIM
    trials: int
    successes: int
    min_score: float | None
    seeds: tuple[int, ...]
    lockstep: bool
    recorded: str  # the day it was measured (UTC)
    baseline_max: float | None = None  # the do-nothing agent's best score on the same seeds

    @property
    def solved(self) -> bool:
        """Success on every seed tried, each at least MIN_SCORE (and the do-nothing agent at 0)."""
        return (
            self.trials > 0
            and self.successes == self.trials
            and self.min_score is not None
            and self.min_score >= MIN_SCORE - 1e-9
            and (self.baseline_max is None or self.baseline_max == 0.0)
        )

    def short(self) -> str:
        mark = "solved" if self.solved else "NOT solved"
        return f"{mark} {self.successes}/{self.trials}"

    def as_json(self) -> dict[str, Any]:
        return {
            "trials": self.trials,
            "successes": self.successes,
            "min_score": self.min_score,
            "seeds": list(self.seeds),
            "lockstep": self.lockstep,
            "recorded": self.recorded,
            "baseline_max": self.baseline_max,
        }


def read_records(folder: Path) -> dict[str, PairRecord]:
    """The records in `folder/verified.json` ({} when there is none); a malformed file is an
    error naming it, never silently "not verified"."""
    path = folder / RECORD_FILE
    if not path.is_file():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        pairs = data["pairs"]
        out = {}
        for pair, r in pairs.items():
            ms = r.get("min_score")
            bm = r.get("baseline_max")
            out[pair] = PairRecord(
                pair=pair,
                trials=int(r["trials"]),
                successes=int(r["successes"]),
                min_score=None if ms is None else float(ms),
                seeds=tuple(int(s) for s in r.get("seeds", ())),
                lockstep=bool(r.get("lockstep", False)),
                recorded=str(r.get("recorded", "")),
                baseline_max=None if bm is None else float(bm),
            )
            if out[pair].min_score is not None and not math.isfinite(out[pair].min_score or 0.0):
                raise ValueError(f"{pair}: min_score is not a number")
        return out
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
        raise ValueError(f"{path}: not a verified-pairs record ({exc})") from None


def write_records(folder: Path, records: dict[str, PairRecord]) -> Path:
    """Merge `records` into `folder/verified.json` (pairs not run this time are kept as they were).
    Benchmark runs over different pairs may finish at once: the merge holds a lock and the file
    is replaced whole, so no run's pairs are lost and no reader sees half a file."""
    path = folder / RECORD_FILE
    with open(folder / f".{RECORD_FILE}.lock", "a+") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        merged = {**read_records(folder), **records}
        doc = {
            "about": "written by benchmarks/reference_pilots.py --record: each pair's reference pilot over "
            "the seeds tried, in lockstep; solved = success with score >= 0.9 on every seed and the "
            "do-nothing agent 0 on the same seeds",
            "pairs": {k: merged[k].as_json() for k in sorted(merged)},
        }
        tmp = path.with_name(f".{RECORD_FILE}.{os.getpid()}.tmp")
        tmp.write_text(json.dumps(doc, indent=1) + "\n", encoding="utf-8")
        os.replace(tmp, path)
    return path


def pilot_for(task_id: str, sim: str) -> str | None:
    """The registered reference pilot's name for the pair (`TASK/SIM`, else `TASK/*`), or None."""
    base = task_id.split("@")[0]
    reg = registry()
    for name in (f"{base}/{sim}", f"{base}/*"):
        if reg.find("pilot", name) is not None:
            return name
    return None


def pair_status(task_id: str, sim: str, records: dict[str, PairRecord]) -> str:
    """`solved 5/5`, `NOT solved 3/5`, `unmeasured` (a pilot, no record) or `—` (no pilot)."""
    rec = records.get(f"{task_id}/{sim}")
    if rec is not None:
        return rec.short()
    return "unmeasured" if pilot_for(task_id, sim) else "—"
