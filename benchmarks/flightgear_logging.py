"""Benchmark: FlightGear state logging — generic UDP stream vs telnet polling, same run.

Launches FlightGear (c172p, PHJR ramp, the adapter's software-rendering options and lockdown)
on its own Xvfb, then for `--seconds` wall seconds receives the generic-protocol UDP stream
(one packet per rendered frame) while a second thread polls the same properties over telnet
(one pipelined `get` batch per sample). Prints one JSON object:

    launch_to_ready_s, warm_fg_home, udp_samples_per_s, telnet_samples_per_s, frame_rate_hz
    (frames counted by /sim/rendering/sim-frame-count), real_time_factor (sim s / wall s),
    n_signals

Usage: python benchmarks/flightgear_logging.py [--seconds 30] [--out result.json]
Needs /usr/games/fgfs and Xvfb; takes ~1.5 cores while it runs.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from simbridge.adapters.fgproto import CLOCK_NODE, GenericProtocol, TelnetProps
from simbridge.adapters.flightgear import RAW_CHUNKS, FlightGearProcess, LaunchSpec


def _free_display() -> int:
    for n in range(90, 400):
        if not Path(f"/tmp/.X11-unix/X{n}").exists() and not Path(f"/tmp/.X{n}-lock").exists():
            return n
    raise RuntimeError("no free X display number")


def run(seconds: float, airport: str, parking: str) -> dict[str, object]:
    n = _free_display()
    xvfb = subprocess.Popen(
        ["Xvfb", f":{n}", "-screen", "0", "1280x800x24", "-nolisten", "tcp"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    work = Path(tempfile.mkdtemp(prefix="fg-bench-"))
    fg = None
    try:
        time.sleep(1.0)
        fg = FlightGearProcess(
            LaunchSpec(airport=airport, parking=parking), GenericProtocol(RAW_CHUNKS), workdir=work, display=f":{n}"
        )
        fg.start()
        nodes = [CLOCK_NODE, *(c.node for c in RAW_CHUNKS)]
        poller = TelnetProps("127.0.0.1", fg.telnet_port)
        stop = threading.Event()
        telnet_n = [0]

        def poll() -> None:
            while not stop.is_set():
                poller.get_many(nodes)
                telnet_n[0] += 1

        frames0 = fg.telnet.get_float("/sim/rendering/sim-frame-count")
        sim0 = fg.telnet.get_float(CLOCK_NODE)
        fg.udp.drain()
        w0 = time.monotonic()
        th = threading.Thread(target=poll, daemon=True)
        th.start()
        time.sleep(seconds)
        stop.set()
        th.join(timeout=10)
        wall = time.monotonic() - w0
        udp = fg.udp.drain()
        frames1 = fg.telnet.get_float("/sim/rendering/sim-frame-count")
        sim1 = fg.telnet.get_float(CLOCK_NODE)
        poller.close()
        return {
            "seconds": round(wall, 2),
            "launch_to_ready_s": round(fg.launch_to_ready_s or 0.0, 1),
            "warm_fg_home": fg.warm_home,
            "n_signals": len(RAW_CHUNKS),
            "udp_samples_per_s": round(len(udp) / wall, 2),
            "udp_bad_packets": fg.udp.n_bad,
            "telnet_samples_per_s": round(telnet_n[0] / wall, 2),
            "frame_rate_hz": round((frames1 - frames0) / wall, 2),
            "real_time_factor": round((sim1 - sim0) / wall, 3),
        }
    finally:
        if fg is not None:
            fg.stop()
        xvfb.terminate()
        xvfb.wait(timeout=10)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=30.0)
    ap.add_argument("--airport", default="PHJR")
    ap.add_argument("--parking", default="Ramp_Central")
    ap.add_argument("--out", type=Path)
    args = ap.parse_args(argv)
    result = run(args.seconds, args.airport, args.parking)
    text = json.dumps(result, indent=2)
    print(text)
    if args.out:
        args.out.write_text(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
