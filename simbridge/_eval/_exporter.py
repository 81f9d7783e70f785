"""`simbridge eval --metrics-port PORT`: the eval's progress and results as Prometheus text
metrics (exposition format 0.0.4) at http://HOST:PORT/metrics while it runs.

No dependency: the format is a few lines of text. What is exported is what the progress
display counts (`Progress`): episodes planned, done, running, unscored and retried; per
cell (task, simulator, agent) the episodes done, succeeded and unscored and the sum of scores
(mean = sum / scored); the attempts' wall time; the seconds since the eval started; and
`simbridge_build_info{version}`. The server binds 127.0.0.1 unless told otherwise.
"""

from __future__ import annotations

import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from simbridge._errors import SimbridgeError

CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"
#: the exporter serving now, which every Progress reports to (None: no --metrics-port)
ACTIVE: "MetricsExporter | None" = None


def _label(value: Any) -> str:
    return str(value).replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


def _labels(**kv: Any) -> str:
    return "{" + ",".join(f'{k}="{_label(v)}"' for k, v in kv.items()) + "}"


def render(progress: Any | None, version: str) -> str:
    """The metrics text for one eval's Progress (None: not started yet)."""
    lines: list[str] = []

    def metric(name: str, kind: str, help_: str, samples: list[tuple[str, float]]) -> None:
        lines.append(f"# HELP {name} {help_}")
        lines.append(f"# TYPE {name} {kind}")
        lines.extend(f"{name}{labels} {value:g}" for labels, value in samples)

    metric("simbridge_build_info", "gauge", "the simbridge version running the eval", [(_labels(version=version), 1)])
    if progress is None:
        return "\n".join(lines) + "\n"
    p = progress
    metric("simbridge_eval_episodes", "gauge", "episodes the suite plans", [("", p.total)])
    metric("simbridge_eval_episodes_done", "gauge", "episodes finished (scored or not)", [("", p.done)])
    metric("simbridge_eval_episodes_running", "gauge", "attempts running now", [("", max(p.running, 0))])
    metric("simbridge_eval_episodes_unscored", "gauge", "finished episodes without a score", [("", p.failed)])
    metric("simbridge_eval_retries_total", "counter", "attempts retried after a harness fault", [("", p.retried)])
    metric("simbridge_eval_elapsed_seconds", "gauge", "seconds since the eval started", [("", time.monotonic() - p.t0)])
    walls = list(p.walls)
    metric(
        "simbridge_eval_attempt_wall_seconds",
        "summary",
        "wall time of the finished attempts",
        [("_sum", sum(walls)), ("_count", len(walls))],  # suffixes: name_sum, name_count
    )
    cells = sorted(p.cells.items())

    def per_cell(name: str, kind: str, help_: str, value: Any) -> None:
        metric(
            name,
            kind,
            help_,
            [(_labels(task=t, sim=s, agent=a), float(value(c))) for (t, s, a), c in cells],
        )

    per_cell("simbridge_eval_cell_episodes", "gauge", "episodes planned per cell", lambda c: c["n"])
    per_cell("simbridge_eval_cell_done", "gauge", "episodes finished per cell", lambda c: c["done"])
    per_cell("simbridge_eval_cell_success", "gauge", "successful episodes per cell", lambda c: c["success"])
    per_cell("simbridge_eval_cell_unscored", "gauge", "unscored episodes per cell", lambda c: c["unscored"])
    per_cell("simbridge_eval_cell_scored", "gauge", "scored episodes per cell", lambda c: len(c["scores"]))
    per_cell("simbridge_eval_cell_score_sum", "gauge", "sum of the scores per cell", lambda c: sum(c["scores"]))
    return "\n".join(lines) + "\n"


class MetricsExporter:
    """An HTTP server on (host, port) answering GET /metrics from a thread of its own."""

    def __init__(self, port: int, host: str = "127.0.0.1") -> None:
        from simbridge._version import installed_version

        self.version = installed_version()
        self.progress: Any = None
        exporter = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 - http.server's name
                if self.path.split("?", 1)[0] != "/metrics":
                    self.send_error(404, "only /metrics here")
                    return
                body = render(exporter.progress, exporter.version).encode()
                self.send_response(200)
                self.send_header("Content-Type", CONTENT_TYPE)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: Any) -> None:  # scrapes are not eval's output
                pass

        if not 0 <= port < 65536:  # 0: any free port (tests)
            raise SimbridgeError(f"--metrics-port {port}: outside 1..65535")
        try:
            self.server = ThreadingHTTPServer((host, port), Handler)
        except OSError as exc:
            raise SimbridgeError(
                f"--metrics-port {port}: cannot listen on {host}:{port}: {exc.strerror or exc}"
            ) from None
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, name="simbridge-metrics", daemon=True)

    def __enter__(self) -> "MetricsExporter":
        global ACTIVE
        ACTIVE = self
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        global ACTIVE
        ACTIVE = None
        self.server.shutdown()
        self.server.server_close()


def attach(progress: Any) -> None:
    """Called by every Progress as it starts: the active exporter (if any) reports it."""
    if ACTIVE is not None:
        ACTIVE.progress = progress
