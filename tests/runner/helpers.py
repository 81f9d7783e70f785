"""Helpers for the runner tests: run `simbridge run` with the toy double as a subprocess, read
bundles, check processes."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parents[1]
TOY = "doubles.toy_sim:ToySimSession"

needs_xvfb = pytest.mark.skipif(shutil.which("Xvfb") is None, reason="Xvfb not installed")


def runner_env(time_scale: float = 4.0) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(TESTS), env.get("PYTHONPATH", "")])
    env["TOY_TIME_SCALE"] = str(time_scale)
    return env


def simbridge_cmd(*args: str) -> list[str]:
    return [sys.executable, "-m", "simbridge._cli", *args]


def run_simbridge(*args: str, time_scale: float = 4.0, timeout: float = 240) -> subprocess.CompletedProcess:
    return subprocess.run(
        simbridge_cmd(*args), env=runner_env(time_scale), capture_output=True, text=True, timeout=timeout
    )


def trial_dirs(out: Path) -> list[Path]:
    return sorted(out.glob("*/trial-*"))


def episode(bundle: Path) -> dict:
    return json.loads((bundle / "episode.json").read_text())


def pid_alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as fh:
            state = fh.read().rsplit(")", 1)[1].split()[0]
        return state != "Z"
    except FileNotFoundError:
        return False


def write_script(path: Path, text: str) -> Path:
    path.write_text(text)
    return path
