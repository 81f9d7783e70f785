"""`--hz 50` from the SimConnect double (not MSFS) at 60 and 100 sim frames per second records
50 ± 1 samples per simulator second (issue 32: it used to record 30 Hz from 60 Hz frames)."""

import numpy as np
import pytest
from doubles.simconnect_double import SimConnectDouble

from simbridge._bundle import read_bundle
from simbridge.adapters.msfs import MsfsRecorder


@pytest.mark.parametrize("src_hz", [60.0, 100.0])
def test_fifty_hz_recording_from_a_faster_simulator(tmp_path, src_hz):
    d = SimConnectDouble(hz=src_hz).start()
    try:
        path = MsfsRecorder("127.0.0.1", d.port).record(tmp_path / "b", seconds=3.0, hz=50)
    finally:
        d.stop()
    b = read_bundle(path)
    t = np.asarray(b.signals.t)
    assert b.episode.status == "completed" and b.episode.sample_rate_hz == 50
    rate = (len(t) - 1) / (t[-1] - t[0])  # samples per simulator second
    assert rate == pytest.approx(50.0, abs=1.0), f"{len(t)} samples over {t[-1] - t[0]:.3f} s"
    assert np.all(np.diff(t) > 0)
    assert np.diff(t).max() <= 0.02 + 1.5 / src_hz  # no interval wider than one source frame late
