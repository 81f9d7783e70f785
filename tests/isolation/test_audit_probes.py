"""The audit's probes on the host's own loopback (no sandbox): what each result means, and that an
open path names both of its ends."""

from __future__ import annotations

import socket

from simbridge._isolation._audit import probe_tcp, run_audit


def test_a_listener_is_open_and_the_report_names_both_ends():
    with socket.create_server(("127.0.0.1", 0)) as srv:
        port = srv.getsockname()[1]
        result, detail = probe_tcp("127.0.0.1", port, 2.0)
    assert result == "open"
    assert detail.startswith("connected 127.0.0.1:") and detail.endswith(f" -> 127.0.0.1:{port}"), detail


def test_a_port_without_a_listener_is_closed_which_fails_the_audit():
    with socket.create_server(("127.0.0.1", 0)) as srv:
        port = srv.getsockname()[1]
    # the listener is gone: the port refuses, and a refusal is a path that crossed, not a block
    assert probe_tcp("127.0.0.1", port, 2.0) == ("closed", "ECONNREFUSED")
    report = run_audit({"targets": ["127.0.0.1"], "ports": [[port, "tcp", "test"]], "usual_ports": False})
    assert not report.ok and report.problems == [
        f"tcp/{port} (test) on 127.0.0.1 is closed from the sandbox (ECONNREFUSED)"
    ]
