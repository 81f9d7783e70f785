"""`simbridge run T03 --sim msfs` against the SimConnect double (not MSFS) as a remote MSFS:
the registry line, the environment options, the .FLT setup and the per-frame recording."""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from doubles.simconnect_double import SimConnectDouble

from simbridge._bundle import read_bundle
from simbridge._cli import main
from simbridge.adapters.msfs import _flt

TESTS = Path(__file__).resolve().parents[2]


def test_run_without_a_simconnect_address_is_one_line_exit_2(tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("SIMBRIDGE_MSFS_HOST", raising=False)
    rc = main(["run", "T03", "--sim", "msfs", "--agent", "noop", "--out", str(tmp_path)])
    err = capsys.readouterr().err
    assert rc == 2 and "SIMBRIDGE_MSFS_HOST" in err and len(err.strip().splitlines()) == 1


@pytest.mark.slow
@pytest.mark.display
@pytest.mark.skipif(shutil.which("Xvfb") is None, reason="Xvfb not installed (the local provider needs it)")
def test_run_t03_on_the_double_records_every_sim_frame(tmp_path):
    d = SimConnectDouble(hz=60.0).start()
    env = dict(
        os.environ,
        PYTHONPATH=os.pathsep.join([str(TESTS), os.environ.get("PYTHONPATH", "")]),
        SIMBRIDGE_MSFS_HOST="127.0.0.1",
        SIMBRIDGE_MSFS_PORT=str(d.port),
        SIMBRIDGE_MSFS_FLIGHTS_DIR=str(_flt.FLIGHTS_DIR),
    )
    try:
        r = subprocess.run(
            [
                sys.executable,
                "-m",
                "simbridge._cli",
                "run",
                "T03",
                "--sim",
                "msfs",
                "--agent",
                "noop",
                "--time-limit",
                "6",
                "--frame-hz",
                "0",
                "--out",
                str(tmp_path),
                "--json",
                "--no-report",
            ],
            env=env,
            capture_output=True,
            text=True,
            timeout=180,
        )
    finally:
        d.stop()
    line = json.loads(r.stdout.strip().splitlines()[-1])
    assert line["score"]["status"] == "scored", r.stderr[-2000:]  # the agent did not land: scored, not a fault
    b = read_bundle(Path(line["bundle"]))
    assert d.loaded == [str(_flt.FLIGHTS_DIR / "T03.FLT")]
    assert len(b.signals.t) >= 6 * 50  # ≥ 50 Hz: one sample per 60 Hz sim frame
    assert not b.signals.missing(["lat_deg", "bank_deg", "xpdr_code", "com1_stby_mhz"])
    assert b.snapshot("start", "assists")["auto_rudder"]["state"] == "off"
