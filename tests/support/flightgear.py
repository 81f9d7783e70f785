"""A bundle of a FlightGear session's samples, written as the runner would write it: the helper
of the FlightGear tests that score what the real simulator did (tests/adapters/flightgear)."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from simbridge._bundle import BundleWriter, EpisodeInfo


def flightgear_bundle(
    path: Path,
    session: Any,
    samples: Iterable[Any],
    task_id: str,
    snapshots: dict[str, Any],
    *,
    agent: str = "none",
    t0: float | None = None,
    actions: Iterable[dict[str, Any]] = (),
    events: Iterable[Any] = (),
    note: str = "harness-side check",
) -> Path:
    """The bundle at `path` of `samples` (each with `t_sim` and `values`, as SessionSampler keeps
    them) from a running FlightGearSession: its info and signals in episode.json, `actions` and
    `events` (each with `t_sim`, `kind`, `data`) as logged, ended `completed` with `note`. With
    `t0`, only the samples from `t0` on, their times counted from it."""
    info = session.info()
    ep = EpisodeInfo(
        task_id=task_id,
        sim="flightgear",
        sim_version=info["sim_version"],
        adapter="simbridge.adapters.flightgear.FlightGearSession",
        provider="local-test",
        agent=agent,
        unisolated=True,
        frame_rate_hz=info["frame_rate_hz"],
        real_time_factor=info["real_time_factor"],
        flags=info["flags"],
    )
    w = BundleWriter(path, ep, list(session.signals))
    for s in samples:
        if t0 is None:
            w.sample(s.t_sim, s.values)
        elif s.t_sim >= t0:
            w.sample(s.t_sim - t0, s.values)
    for a in actions:
        w.action(a)
    for e in events:
        w.event(e.t_sim, e.kind, e.data)
    w.snapshots(snapshots)
    return w.finish("completed", note)


def reference_episode(tmp_path: Path, task: str, **config: Any) -> tuple[Any, set[str]]:
    """One `simbridge run TASK --sim flightgear --agent reference` episode (frames at 0.2 Hz,
    quiet), checked to have completed: its result and the kinds of the actions the pilot took
    (what a GUI-only test compares with the port's screen and input actions)."""
    import json

    from simbridge.episode import RunConfig, run

    [result] = run(
        RunConfig(
            task=task,
            sim="flightgear",
            agent="reference",
            out=tmp_path / "runs",
            frame_hz=0.2,
            say=lambda s: None,
            **config,
        )
    )
    assert result.status == "completed", (result.status, result.detail)
    lines = (result.path / "actions.jsonl").read_text().splitlines()
    return result, {json.loads(line)["kind"] for line in lines if line.strip()}
