"""Guest service latency beside the X11 path, in one run, on one display.

    python benchmarks/guest_latency.py [--sim jsbsim|toy] [-n N]

Starts a private Xvfb (1280×800×24) with the simulator on it (the JSBSim cockpit, or the toy
double), then opens the agent port's two transports to the same display: `x11` (mss + XTEST in
the host process) and `guest` (`simbridge guest` started as a separate process on the display,
reached over its authenticated loopback TCP connection: mss + pyautogui there). For each it
measures, p50/p95 in ms:

* screenshot: the agent port's `screenshot` action (PNG), grab + transfer + encode;
* grab only: the raw frame reaching the host (`screen.grab_bgr()`);
* grab, zlib (network): the guest's frame as a remote guest sends it (zlib level 1; loopback
  sends it raw), the X11 path's plain grab beside it;
* key→visible: press a key through the transport's input, grab through the same transport until
  the affected screen region changes (jsbsim: `B`, the parking brake's panel button; toy: `x`).

It prints both and their ratio (guest / x11). Over a network to a real VM the transfer of the
frame (zlib-compressed BGRA) adds what the link costs; loopback is measured here.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from agent_loop import pct, start_session  # noqa: E402

from simbridge._agent_port import AgentPort  # noqa: E402
from simbridge._agent_port._transport import Transport, spawn_local_guest, x11  # noqa: E402
from simbridge._providers import LocalProvider  # noqa: E402


def timed(fn, n: int) -> tuple[float, float]:
    ts = []
    for _ in range(n):
        t0 = time.perf_counter()
        fn()
        ts.append((time.perf_counter() - t0) * 1e3)
    return pct(ts, 50), pct(ts, 95)


def key_visible(t: Transport, sim: str, n: int) -> tuple[float, float, int]:
    t.input.mouse_move(900, 100)  # keyboard focus follows the pointer on a bare X server
    key = "x" if sim == "toy" else "B"
    region = (slice(60, 140), slice(60, 140)) if sim == "toy" else (slice(700, 745), slice(1055, 1115))
    lat, misses = [], 0
    for _ in range(n):
        before = t.screen.grab_bgr()
        time.sleep(0.15)
        t0 = time.perf_counter()
        t.input.key_down(key)
        seen = None
        while time.perf_counter() - t0 < 1.0:
            now = t.screen.grab_bgr()
            diff = np.abs(now[region].astype(np.int16) - before[region].astype(np.int16)).max(axis=2)
            if np.count_nonzero(diff > 40) > 20:
                seen = time.perf_counter()
                break
        t.input.key_up(key)
        if seen is None:
            misses += 1
        else:
            lat.append((seen - t0) * 1e3)
        time.sleep(0.2)
    nan = float("nan")
    return (pct(lat, 50) if lat else nan, pct(lat, 95) if lat else nan, misses)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sim", default="jsbsim", choices=["jsbsim", "toy"])
    ap.add_argument("-n", type=int, default=30, help="repetitions per measurement (default 30)")
    args = ap.parse_args()
    provider = LocalProvider()
    with tempfile.TemporaryDirectory(prefix="simbridge-guest-bench-") as tmp:
        sb, session = start_session(args.sim, provider, Path(tmp))
        rows: dict[str, dict[str, tuple[float, ...]]] = {}
        try:
            time.sleep(2.0)  # the cockpit's first frames
            for name, make in (("x11", lambda: x11(sb.display)), ("guest", lambda: spawn_local_guest(sb.display))):
                t0 = time.perf_counter()
                t = make()
                opened = (time.perf_counter() - t0) * 1e3
                port = AgentPort(sb.display, transport=t)
                try:
                    rows[name] = {
                        "open transport": (opened, opened),
                        "screenshot (png)": timed(lambda: port.execute("screenshot", {"format": "png"}), args.n),
                        "grab only": timed(t.screen.grab_bgr, args.n),
                        "key→visible": key_visible(t, args.sim, max(5, args.n // 2)),
                    }
                    if t.client is not None:  # the frame as a remote guest sends it: zlib level 1
                        t.client.zlib_level = 1
                        rows[name]["grab, zlib (network)"] = timed(t.screen.grab_bgr, args.n)
                    else:
                        rows[name]["grab, zlib (network)"] = rows[name]["grab only"]
                finally:
                    port.close()
        finally:
            session.stop()
            provider.stop()
    print(f"guest service vs X11 on {args.sim}, 1280×800, n={args.n} (ms, p50 / p95)")
    print(f"{'measure':<20} {'x11':>17} {'guest':>17} {'ratio p50':>10}")
    for m in rows["x11"]:
        a, b = rows["x11"][m], rows["guest"][m]
        extra = f"  (misses {int(a[2])}/{int(b[2])})" if len(a) > 2 else ""
        ratio = b[0] / a[0] if a[0] > 0 else float("nan")
        print(f"{m:<20} {a[0]:7.1f} / {a[1]:7.1f} {b[0]:7.1f} / {b[1]:7.1f} {ratio:9.2f}×{extra}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
