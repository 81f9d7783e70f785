"""`simbridge record` input handling (the happy path is in test_session_e2e)."""

from simbridge._cli import main
from simbridge._cli.record import recorders


def test_recorders_are_pluggable_by_sim_name():
    assert "xplane" in recorders()


def test_unknown_sim_is_one_line_exit_2(tmp_path, capsys):
    rc = main(["record", "--sim", "nosuchsim", "--host", "127.0.0.1", "--seconds", "1", "--out", str(tmp_path / "b")])
    err = capsys.readouterr().err
    assert rc == 2 and "no recorder for simulator 'nosuchsim'" in err and len(err.strip().splitlines()) == 1


def test_no_simulator_answering_is_one_line_harness_fault_exit_5(tmp_path, capsys, monkeypatch):
    from simbridge.adapters.xplane import XPlaneRecorder

    monkeypatch.setattr(
        "simbridge._cli.record.recorders",
        lambda: {"xplane": lambda host, port: XPlaneRecorder(host, port, ready_timeout_s=0.3)},
    )
    rc = main(
        [
            "record",
            "--sim",
            "xplane",
            "--host",
            "127.0.0.1",
            "--port",
            "9",
            "--seconds",
            "1",
            "--out",
            str(tmp_path / "b"),
        ]
    )
    err = capsys.readouterr().err
    assert rc == 5 and "sent no RREF data" in err and len(err.strip().splitlines()) == 1  # HarnessError
    assert not (tmp_path / "b" / "manifest.json").exists()


def test_bad_seconds(tmp_path, capsys):
    assert main(["record", "--sim", "xplane", "--host", "h", "--seconds", "0", "--out", str(tmp_path)]) == 2


def test_a_stalled_rref_stream_ends_the_recording_harness_error_exit_5(tmp_path, capsys, monkeypatch):
    """Record-only has no agent: a stream that stops is the harness's fault, never a scored timeout."""
    import threading
    import time

    from simbridge._bundle import read_bundle
    from simbridge.adapters.xplane import XPlaneRecorder

    from doubles.xplane_double import XPlaneDouble

    with XPlaneDouble() as d:

        def pause_once_streaming() -> None:
            end = time.monotonic() + 30
            while d.rref_sent < 20 and time.monotonic() < end:
                time.sleep(0.02)
            d.set("sim/time/paused", 1.0)  # X-Plane paused: no RREF datagrams at all

        threading.Thread(target=pause_once_streaming, daemon=True).start()
        monkeypatch.setattr(
            "simbridge._cli.record.recorders",
            lambda: {"xplane": lambda host, port: XPlaneRecorder(host, port, stale_after_s=0.5)},
        )
        rc = main(
            [
                "record",
                "--sim",
                "xplane",
                "--host",
                "127.0.0.1",
                "--port",
                str(d.udp_port),
                "--seconds",
                "600",
                "--out",
                str(tmp_path / "b"),
            ]
        )
    err = capsys.readouterr().err
    assert rc == 5 and "no data from the RREF stream" in err and len(err.strip().splitlines()) == 1
    ep = read_bundle(tmp_path / "b").episode
    assert ep.status == "harness_error" and "stalled" in ep.status_detail and "record_only" in ep.flags
    # X-Plane's own counters are in the per-simulator mapping, not in the core record
    assert ep.sim_info is not None and ep.sim_info["rref_packets"] >= 20 and ep.sim_info["dropped_late"] >= 0
