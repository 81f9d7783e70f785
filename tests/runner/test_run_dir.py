"""Runs started in the same second into one output folder each get a bundle directory of their own
(a benchmark's or a suite's parallel workers start their first episodes together)."""

from __future__ import annotations

import threading
from pathlib import Path

from simbridge._runner import claim_run_dir


def test_runs_claiming_one_name_at_once_each_get_their_own_directory(tmp_path: Path):
    base = tmp_path / "out" / "P08-20261204-201159"
    n = 16
    start = threading.Barrier(n)
    got: list[Path] = []

    def claim() -> None:
        start.wait()
        got.append(claim_run_dir(base))

    threads = [threading.Thread(target=claim) for _ in range(n)]
    for th in threads:
        th.start()
    for th in threads:
        th.join(10)
    assert len(got) == n and len(set(got)) == n, sorted(got)
    assert sorted(p.name for p in got) == sorted([base.name] + [f"{base.name}~{i}" for i in range(2, n + 1)])
    assert all(p.is_dir() and not any(p.iterdir()) for p in got)


def test_a_name_taken_by_an_earlier_run_is_left_alone(tmp_path: Path):
    base = tmp_path / "T09-20261204-120000"
    (base / "trial-1").mkdir(parents=True)
    (base / "trial-1" / "episode.json").write_text("{}")
    assert claim_run_dir(base) == base.with_name(base.name + "~2")
    assert (base / "trial-1" / "episode.json").read_text() == "{}"
