"""What `simbridge run` leaves beside each finished trial: screen.mp4 in the bundle and the
episode page next to it.

Neither is part of the score: a failure here is reported and the trial's score and exit code
stand (the recording and its verdict are already written and sealed).
"""

from __future__ import annotations

import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from simbridge._errors import SimbridgeError


@dataclass
class EpisodeOutputs:
    """What was written for one trial, and what could not be (one line each)."""

    screen_mp4: Path | None = None
    report: Path | None = None
    problems: list[str] = field(default_factory=list)


def run_report_path(bundle_dir: str | Path) -> Path:
    """RUN_DIR/reports/trial-k.html: in a run directory every trial-* entry is a bundle (tools
    and tests glob for them), so the pages live in a folder of their own."""
    bundle = Path(bundle_dir)
    return bundle.parent / "reports" / f"{bundle.name}.html"


def finish_episode_outputs(bundle_dir: str | Path, *, report: bool = True) -> EpisodeOutputs:
    """Encode frames/ into BUNDLE/screen.mp4 (manifest re-sealed) and, when `report`, write the
    episode page at `run_report_path` (beside the bundle, never inside it). Never raises for a
    bad bundle or a missing extra: the problem is returned for the caller to print."""
    bundle = Path(bundle_dir)
    out = EpisodeOutputs()
    try:
        from simbridge._report._html import write_episode_report
        from simbridge._report._video import encode_screen_video
    except ImportError as exc:
        out.problems.append(
            f"no screen.mp4 or report: needs the 'report' extra (pip install 'simbridge[report]'): {exc}"
        )
        return out
    try:
        out.screen_mp4 = encode_screen_video(bundle)
    except (SimbridgeError, OSError, subprocess.SubprocessError) as exc:
        out.problems.append(f"no screen.mp4: {exc}")
    if report:
        try:
            target = run_report_path(bundle)
            target.parent.mkdir(parents=True, exist_ok=True)
            out.report = write_episode_report(bundle, target)
        except (SimbridgeError, OSError, subprocess.SubprocessError) as exc:
            out.problems.append(f"no report: {exc}")
    return out
