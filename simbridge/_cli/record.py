"""`simbridge record`: record a bundle from an already running simulator, no agent and no setup.

Sim-pluggable: `recorders()` maps a simulator name to a factory `(host, port) -> recorder`, where a
recorder has `record(out, *, seconds, hz, task_id) -> Path`. It is built from the `recorder` of
each registered simulator (simbridge.registry, kind `simulator`).

A recording whose stream stalls ends `harness_error` in every adapter (the kit's `StallGuard`):
the bundle is kept (it shows what came before the stall), its path printed, and the command
says why on one line and exits 5 (`Exit.HARNESS`), as for any harness fault.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

from simbridge._adapters_registry import adapters
from simbridge._exit import Exit
from simbridge.registry import load


class Recorder(Protocol):
    def record(self, out: str | Path, *, seconds: float, hz: int = 50, task_id: str | None = None) -> Path: ...


def _factory(sim: str, target: str) -> Callable[[str, int | None], Recorder]:
    """Resolves the recorder class only when called, so listing recorders imports no adapter."""

    def make(host: str, port: int | None) -> Recorder:
        return load(target, f"record: simulator {sim!r}")(host, port)

    return make


def recorders() -> dict[str, Callable[[str, int | None], Recorder]]:
    """Simulator name -> factory(host, port) returning a Recorder."""
    return {name: _factory(name, a.recorder) for name, a in adapters().items() if a.recorder}


def add_parser(sub: Any) -> None:
    p = sub.add_parser(
        "record",
        help="record a bundle from a running simulator (no agent, no setup)",
        description=__doc__.splitlines()[0],
    )
    p.add_argument("--sim", required=True, help=f"simulator ({', '.join(sorted(recorders()))})")
    p.add_argument("--host", required=True, help="address of the simulator's state API")
    p.add_argument("--port", type=int, default=None, help="state API port (default: the simulator's own)")
    p.add_argument("--seconds", type=float, required=True, help="simulator seconds to record")
    p.add_argument("--out", required=True, help="bundle directory to create")
    p.add_argument("--task", default=None, help="task id to stamp into episode.json (e.g. T02)")
    p.add_argument("--hz", type=int, default=50, help="sample rate (default 50)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from simbridge._errors import SimbridgeError

    if args.sim not in recorders():
        raise SimbridgeError(
            f"record: no recorder for simulator {args.sim!r} (known: {', '.join(sorted(recorders()))})"
        )
    if args.seconds <= 0:
        raise SimbridgeError("record: --seconds must be positive")
    if not 1 <= args.hz <= 1000:
        raise SimbridgeError("record: --hz must be within 1..1000")
    out = Path(args.out)
    if (out / "manifest.json").exists() or (out / "signals.csv").exists():
        raise SimbridgeError(f"record: {out} already holds a bundle")
    path = recorders()[args.sim](args.host, args.port).record(out, seconds=args.seconds, hz=args.hz, task_id=args.task)
    print(path)
    status, detail = _ending(Path(path))
    if status == "harness_error":
        print(f"simbridge record: {args.sim}: harness error (unscored): {detail}", file=sys.stderr)
        return Exit.HARNESS
    return Exit.OK


def _ending(bundle: Path) -> tuple[str, str]:
    """(status, detail) the recorder wrote into the bundle's episode.json."""
    from simbridge._bundle import read_bundle

    ep = read_bundle(bundle).episode
    return str(ep.status), ep.status_detail
