"""`simbridge record` input handling (the happy path is in test_session_e2e)."""

from simbridge._cli import main
from simbridge._cmd_record import RECORDERS


def test_recorders_are_pluggable_by_sim_name():
    assert "xplane" in RECORDERS


def test_unknown_sim_is_one_line_exit_2(tmp_path, capsys):
    rc = main(["record", "--sim", "nosuchsim", "--host", "127.0.0.1", "--seconds", "1", "--out", str(tmp_path / "b")])
    err = capsys.readouterr().err
    assert rc == 2 and "no recorder for simulator 'nosuchsim'" in err and len(err.strip().splitlines()) == 1


def test_no_simulator_answering_is_one_line_harness_fault_exit_5(tmp_path, capsys, monkeypatch):
    from simbridge.adapters.xplane import XPlaneRecorder

    monkeypatch.setitem(RECORDERS, "xplane", lambda host, port: XPlaneRecorder(host, port, ready_timeout_s=0.3))
    rc = main(["record", "--sim", "xplane", "--host", "127.0.0.1", "--port", "9", "--seconds", "1", "--out", str(tmp_path / "b")])
    err = capsys.readouterr().err
    assert rc == 5 and "sent no RREF data" in err and len(err.strip().splitlines()) == 1  # HarnessError
    assert not (tmp_path / "b" / "manifest.json").exists()


def test_bad_seconds(tmp_path, capsys):
    assert main(["record", "--sim", "xplane", "--host", "h", "--seconds", "0", "--out", str(tmp_path)]) == 2
