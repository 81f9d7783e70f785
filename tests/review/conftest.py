"""Small bundle directories (episode.json + score.json) for review tests."""

from __future__ import annotations

import json
from pathlib import Path

import pytest


def make_bundle(
    root: Path,
    name: str,
    task_id: str = "T09",
    agent: str = "mcp",
    trial: int = 0,
    score: float | None = 0.5,
    sim: str = "jsbsim",
) -> Path:
    d = root / name
    d.mkdir(parents=True)
    (d / "episode.json").write_text(json.dumps({"task_id": task_id, "sim": sim, "agent": agent, "trial": trial}))
    if score is not None:
        (d / "score.json").write_text(
            json.dumps(
                {"task_id": task_id, "verifier": "v", "status": "scored", "score": score, "success": score >= 0.5}
            )
        )
    return d


@pytest.fixture
def runs_dir(tmp_path: Path) -> Path:
    """Six T09 runs: four by an agent, two flown by a human."""
    root = tmp_path / "runs"
    for i in range(6):
        make_bundle(root, f"ep{i}", agent="human" if i >= 4 else "mcp", trial=i, score=i / 5)
    return root
