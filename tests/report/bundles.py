"""Episode bundles for the report tests, built from the repository's synthetic traces (a module of
its own: `from conftest import …` resolves to whichever conftest was imported last)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/ helpers (synth)

from simbridge._bundle import write_manifest  # noqa: E402
from simbridge._verify import verify_path  # noqa: E402
from synth import make_bundle, steep_turn, with_gap  # noqa: E402


def write_frames(frames_dir: Path, times_s: list[float], size: str = "320x180") -> None:
    """JPEG frames named by sim time like the runner's, from ffmpeg's test pattern (the
    ffmpeg that imageio-ffmpeg ships)."""
    import imageio_ffmpeg

    frames_dir.mkdir(parents=True, exist_ok=True)
    subprocess.run(
        [
            imageio_ffmpeg.get_ffmpeg_exe(),
            "-loglevel",
            "error",
            "-f",
            "lavfi",
            "-i",
            f"testsrc2=size={size}:rate=1",
            "-frames:v",
            str(len(times_s)),
            "-q:v",
            "6",
            str(frames_dir / "raw_%05d.jpg"),
        ],
        check=True,
        timeout=60,
    )
    for i, t in enumerate(times_s, start=1):
        (frames_dir / f"raw_{i:05d}.jpg").rename(frames_dir / f"{t:010.3f}.jpg")


def build_t09(path: Path, *, frames: bool = True, gap: tuple[float, float] | None = None, hz: float = 20.0) -> Path:
    """A synthetic T09 steep turn (tests/synth.py) with altitude, airspeed and bank wobble,
    optionally a telemetry gap, two events, 1 Hz frames and a score.json written as `verify --write` would."""
    cols = steep_turn(hz, alt_wobble_ft=60.0, ias_wobble_kt=4.0, bank_wobble_deg=3.0)
    if gap is not None:
        cols = with_gap(cols, *gap)
    t_end = float(cols["t"][-1])
    events = [{"t": 2.0, "kind": "episode_ready"}, {"t": round(t_end - 3.0, 2), "kind": "agent_done"}]
    make_bundle(
        path,
        "T09",
        cols,
        events=events,
        sim="jsbsim",
        sim_version="1.2.1",
        agent="scripted-steep-turn",
        provider="netns",
        isolation={"provider": "netns", "isolated": True, "audit": {"ok": True, "problems": []}},
        agent_brief={"instruction": "JSBSim cockpit: a 360° steep turn to the left at 45° bank (test brief)."},
        fmt="parquet",
    )
    # the agent's log as the agent port writes it: a roll-in, a failed key, the roll-out, done
    actions = [
        {"t": 10.0, "kind": "key", "args": {"key": "Left", "hold_s": 1.0}, "dur_s": 0.01},
        {"t": 20.0, "kind": "key", "args": {"key": "F13"}, "dur_s": 0.0, "error": "unknown key 'F13'"},
        {"t": 44.0, "kind": "key", "args": {"key": "Right", "hold_s": 1.0}, "dur_s": 0.01},
        {"t": round(t_end - 3.0, 2), "kind": "done", "args": {}, "dur_s": 0.0},
    ]
    (path / "actions.jsonl").write_text("".join(json.dumps(a) + "\n" for a in actions))
    if frames:
        write_frames(path / "frames", [float(t) for t in np.arange(0.0, t_end, 1.0)])
    write_manifest(path)  # actions and frames are part of the finished bundle, as the runner writes them
    score = verify_path(path)
    (path / "score.json").write_text(score.model_dump_json(indent=2))
    return path


def build_t02(path: Path) -> Path:
    """A synthetic T02 takeoff and 30 s hold (tests/synth_flight_a.py) with 1 Hz frames and a
    score.json: a page with bands on heading/altitude/airspeed and a track over runway 34R."""
    from synth_flight_a import takeoff_hold

    cols = takeoff_hold(hold_s=30, after_s=10)
    make_bundle(path, "T02", cols, sim="jsbsim", agent="scripted-takeoff", fmt="parquet")
    write_frames(path / "frames", [float(t) for t in np.arange(0.0, float(cols["t"][-1]), 1.0)])
    write_manifest(path)
    (path / "score.json").write_text(verify_path(path).model_dump_json(indent=2))
    return path


def build_suite(root: Path) -> Path:
    """A small `simbridge eval`-shaped output (ROOT/<task>/<sim>/<agent>/trial-k/): agent 'good'
    flies T09 three times at 45° (success), agent 'shaky' once at 45° and twice at 30° (no
    success), once more crashed (sim_crashed, no score: unscored); T02 once each. Scores are
    written by the verifier, as `simbridge run` writes them."""
    from synth_flight_a import takeoff_hold

    def one(task: str, agent: str, k: int, cols: dict, **ep: object) -> Path:
        d = root / task / "jsbsim" / agent / f"trial-{k}"
        d.parent.mkdir(parents=True, exist_ok=True)
        make_bundle(d, task, cols, sim="jsbsim", agent=agent, trial=k, fmt="parquet", **ep)
        write_manifest(d)
        if ep.get("status", "completed") == "completed":
            (d / "score.json").write_text(verify_path(d).model_dump_json(indent=2))
        return d

    for k in (1, 2, 3):
        one("T09", "good", k, steep_turn(10.0, alt_wobble_ft=20.0 * k))
    one("T09", "shaky", 1, steep_turn(10.0))
    one("T09", "shaky", 2, steep_turn(10.0, bank_deg=30.0))
    one("T09", "shaky", 3, steep_turn(10.0, bank_deg=30.0))
    one("T09", "shaky", 4, steep_turn(10.0), status="sim_crashed", status_detail="fdm died")
    one("T02", "good", 1, takeoff_hold(hold_s=30))
    one("T02", "shaky", 1, takeoff_hold(hold_ias=97))
    (root / "plan.json").write_text(json.dumps({"tasks": ["T02", "T09"], "agents": ["good", "shaky"]}))
    return root
