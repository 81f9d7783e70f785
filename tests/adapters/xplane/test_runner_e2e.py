"""`simbridge run` + the X-Plane adapter + the protocol double (not X-Plane) -> scored T02 bundle.

The double's scripted pilot flies; the agent is `noop` (it only waits), so this proves the
harness path (runner, session, recorder, bundle, verifier), not an agent's flying.
"""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parents[2]


@pytest.mark.slow
@pytest.mark.display
@pytest.mark.skipif(shutil.which("Xvfb") is None, reason="Xvfb not installed (the local provider needs it)")
def test_runner_with_the_xplane_double_scores_t02(tmp_path):
    env = dict(
        os.environ,
        PYTHONPATH=os.pathsep.join([str(TESTS), os.environ.get("PYTHONPATH", "")]),
        XPLANE_DOUBLE_TIME_SCALE="10",
    )
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "simbridge._cli",
            "run",
            "T02",
            "--sim",
            "doubles.xplane_double:DoubleXPlaneSession",
            "--agent",
            "noop",
            "--time-limit",
            "300",
            "--frame-hz",
            "0",
            "--seed",
            "5",
            "--out",
            str(tmp_path),
            "--json",
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert r.returncode == 3, r.stderr[-2000:]  # scored; noop ends at the time limit (an agent failure)
    bundles = sorted(tmp_path.glob("*/trial-1"))
    assert len(bundles) == 1
    ep = json.loads((bundles[0] / "episode.json").read_text())
    assert ep["status"] == "timeout" and ep["sim"] == "xplane" and ep["adapter"].endswith("DoubleXPlaneSession")
    score = json.loads((bundles[0] / "score.json").read_text())
    assert score["status"] == "scored" and score["success"] is True, score
    snaps = json.loads((bundles[0] / "snapshots.json").read_text())
    assert snaps["start"]["radios"]["xpdr_code"] == 1200.0
