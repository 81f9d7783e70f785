"""Per-step overhead of the framework integrations over a direct agent-port call, in one run.

    python benchmarks/integration_overhead.py [--n 300] [--json]

On a private Xvfb (1280×800×24, started and torn down here) with one `AgentPort` (real-time
pacer, so no lockstep slice hides the cost), p50/p95 wall time per call of:

* direct:            `DirectClient.mouse_move` (the reference: the port's own validation, XTEST, log)
* inspect:           the Inspect `computer` tool's coroutine (`action="mouse_move"`, no screenshot
                     back): computer-call translation, anyio worker thread, result
* direct+png:        `mouse_move` then `screenshot()` (what a model needs to see the result)
* inspect+png:       the same tool with a screenshot after the action (as Inspect's own computer
                     tool returns, and OpenAI's native path needs): adds the base64 data URI
* direct+grab:       `mouse_move` then the grabber's raw frame, resized to the observation
* gym step:          `SimbridgeEnv.step` (kind mouse_move) on the same port: action decoding, the
                     move, the raw frame, the resize, the task clock

The overhead of a call is its wall time minus the time spent inside the port's own work (the
action's `AgentPort.execute` and the raw screen grab), measured per call: on a shared, loaded
machine the difference of two p50s is noise (X server and encoder times swing by tens of ms),
the in-call split is not. The table also shows each path's raw p50/p95, round-robin. Target:
overhead p50 < 5 ms for the Inspect tool path and the Gymnasium step.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np


class _Inside:
    """Accumulates wall time spent inside wrapped callables (the port's shared work)."""

    def __init__(self) -> None:
        self.ms = 0.0
        self.depth = 0

    def wrap(self, fn: Any, skip: Any = lambda *a, **k: False) -> Any:
        def timed(*a: Any, **k: Any) -> Any:
            if self.depth or skip(*a, **k):  # counted once: a grab inside a screenshot action is inside it
                return fn(*a, **k)
            self.depth += 1
            t0 = time.perf_counter()
            try:
                return fn(*a, **k)
            finally:
                self.ms += (time.perf_counter() - t0) * 1000.0
                self.depth -= 1

        return timed


async def _interleaved(
    paths: dict[str, Any], n: int, inside: _Inside
) -> tuple[dict[str, list[float]], dict[str, list[float]]]:
    """Wall ms and overhead ms (wall minus inside) per call of each path, round-robin (one call of
    each per round), so a load change on the shared machine hits every path alike."""
    wall: dict[str, list[float]] = {k: [] for k in paths}
    over: dict[str, list[float]] = {k: [] for k in paths}
    for i in range(n):
        for name, fn in paths.items():
            inside.ms = 0.0
            t0 = time.perf_counter()
            r = fn(i)
            if asyncio.iscoroutine(r):
                await r
            w = (time.perf_counter() - t0) * 1000.0
            wall[name].append(w)
            over[name].append(w - inside.ms)
    return wall, over


class _StubEpisode:
    """What SimbridgeEnv.step reads of its episode (the port itself is real)."""

    over = False
    path = Path("benchmark")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=300, help="calls per path")
    ap.add_argument("--json", action="store_true", help="print the numbers as JSON")
    args = ap.parse_args(argv)

    from simbridge._agent_port import AgentPort, DirectClient
    from simbridge._providers import LocalProvider
    from simbridge.integrations.gymnasium._env import KINDS, SimbridgeEnv
    from simbridge.integrations.inspect_ai._task import _Turn, computer_tool

    provider = LocalProvider()
    with tempfile.TemporaryDirectory() as tmp:
        sb = provider.start(Path(tmp) / "sandbox")
        log: list[Any] = []
        port = AgentPort(sb.display, clock=lambda: 0.0, log=log.append)
        client = DirectClient(port)
        try:

            def xy(i: int) -> tuple[int, int]:
                return 100 + (i * 7) % 1000, 100 + (i * 3) % 600

            tool_plain = computer_tool(_Turn(client, screenshot_after=False))
            tool_png = computer_tool(_Turn(client, screenshot_after=True))
            env = SimbridgeEnv("T09", "jsbsim")
            env._ep, env._client = _StubEpisode(), client  # type: ignore[assignment]

            def gym_action(i: int) -> dict[str, Any]:
                x, y = xy(i)
                return {
                    "kind": KINDS.index("mouse_move"),
                    "key": 0,
                    "wheel": 0,
                    "point": np.array([x / 1279, y / 799], np.float32),
                }

            def direct_grab(i: int) -> None:
                import cv2

                client.mouse_move(*xy(i))
                cv2.resize(port.screen.grab_bgr(), (env.obs_w, env.obs_h), interpolation=cv2.INTER_AREA)

            # warm up every path (thread pools, mss handles, encoders)
            for i in range(10):
                client.mouse_move(*xy(i))
                client.screenshot()
            asyncio.run(tool_png(action="mouse_move", coordinate=list(xy(0))))
            env.step(gym_action(0))

            paths: dict[str, Any] = {
                "direct": lambda i: client.mouse_move(*xy(i)),
                "inspect": lambda i: tool_plain(action="mouse_move", coordinate=list(xy(i))),
                "direct+png": lambda i: (client.mouse_move(*xy(i)), client.screenshot().data),
                "inspect+png": lambda i: tool_png(action="mouse_move", coordinate=list(xy(i))),
                "direct+grab": direct_grab,
                "gym step": lambda i: env.step(gym_action(i)),
            }
            inside = _Inside()
            # the port's own work: every action except the gym's clock read, and the raw grab
            port.execute = inside.wrap(port.execute, skip=lambda kind, *a, **k: kind == "elapsed")  # type: ignore
            port.screen.grab_bgr = inside.wrap(port.screen.grab_bgr)  # type: ignore[method-assign]
            res, ovr = asyncio.run(_interleaved(paths, args.n, inside))
        finally:
            port.close()
            provider.stop()
    p50 = {k: statistics.median(v) for k, v in res.items()}
    p95 = {k: float(np.percentile(v, 95)) for k, v in res.items()}
    over = {k: statistics.median(v) for k, v in ovr.items()}
    over95 = {k: float(np.percentile(v, 95)) for k, v in ovr.items()}
    targets = ("inspect", "inspect+png", "gym step")
    ok = all(over[k] < 5.0 for k in targets)
    if args.json:
        print(
            json.dumps(
                {
                    "p50_ms": p50,
                    "p95_ms": p95,
                    "overhead_p50_ms": over,
                    "overhead_p95_ms": over95,
                    "n": args.n,
                    "target_met": ok,
                },
                indent=2,
            )
        )
    else:
        print(f"{'path':<14}{'p50 ms':>9}{'p95 ms':>9}{'overhead p50':>14}{'p95':>8}")
        for k in res:
            print(f"{k:<14}{p50[k]:>9.2f}{p95[k]:>9.2f}{over[k]:>14.2f}{over95[k]:>8.2f}")
        print(f"target overhead p50 < 5 ms (inspect, inspect+png, gym step): {'met' if ok else 'NOT met'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
