"""`simbridge eval --metrics-port`: the eval's progress and results as Prometheus text metrics,
scraped over HTTP from the driver while (and after) it drives episodes (an executor double that
closes real bundles), in the exposition format a Prometheus server parses."""

from __future__ import annotations

import io
import re
import socket
import urllib.error
import urllib.request

import pytest

from simbridge._errors import SimbridgeError
from simbridge._eval._driver import _drive
from simbridge._eval._exporter import CONTENT_TYPE, MetricsExporter
from simbridge._version import installed_version
from test_eval_port_fault import PORT, Executor, _spec

SAMPLE = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{([a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\]|\\.)*",?)*\})? (-?[0-9.e+-]+)$')


def _scrape(port: int, path: str = "/metrics") -> tuple[str, str]:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=10) as r:
        return r.headers["Content-Type"], r.read().decode()


def _samples(text: str) -> dict[str, float]:
    out = {}
    for line in text.splitlines():
        if line.startswith("#") or not line:
            continue
        m = SAMPLE.match(line)
        assert m, f"not a sample line: {line!r}"
        out[line.rsplit(" ", 1)[0]] = float(line.rsplit(" ", 1)[1])
    return out


def test_progress_and_results_are_scraped_as_prometheus_metrics(tmp_path):
    plan = {
        ("ep1", 1): ("harness_error", PORT),  # retried
        ("ep1", 2): ("completed", "agent done at t=30.0 s"),
        ("ep2", 1): ("harness_error", "simulator frozen"),  # final, unscored
    }
    out = tmp_path / "out"
    out.mkdir()
    with MetricsExporter(0) as ex:
        kind, before = _scrape(ex.port)
        assert kind == CONTENT_TYPE and f'simbridge_build_info{{version="{installed_version()}"}} 1' in before
        _drive(out, 2, [_spec(1), _spec(2)], Executor(plan), io.StringIO(), False, False, None)
        _, text = _scrape(ex.port)
        with pytest.raises(urllib.error.HTTPError):
            _scrape(ex.port, "/other")
    s = _samples(text)
    assert s["simbridge_eval_episodes"] == 2 and s["simbridge_eval_episodes_done"] == 2
    assert s["simbridge_eval_episodes_running"] == 0 and s["simbridge_eval_retries_total"] == 1
    assert s["simbridge_eval_episodes_unscored"] == 2  # the double's bundles carry no score
    assert "simbridge_eval_attempt_wall_seconds_count" in s and "simbridge_eval_attempt_wall_seconds_sum" in s
    cell = '{task="T09",sim="jsbsim",agent="noop"}'
    assert s[f"simbridge_eval_cell_episodes{cell}"] == 2 and s[f"simbridge_eval_cell_done{cell}"] == 2
    assert s[f"simbridge_eval_cell_unscored{cell}"] == 2 and s[f"simbridge_eval_cell_scored{cell}"] == 0
    for name in ("simbridge_eval_episodes", "simbridge_eval_retries_total", "simbridge_eval_attempt_wall_seconds"):
        assert f"# TYPE {name} " in text and f"# HELP {name} " in text


def test_a_port_in_use_is_one_line():
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        with pytest.raises(SimbridgeError, match=rf"--metrics-port {port}: cannot listen on 127.0.0.1:{port}"):
            MetricsExporter(port)
