"""The SimConnect double satisfies node-simconnect (npm, an independent implementation of the
protocol) as it satisfies the harness' client, and both read the same values.

node-simconnect is installed once from npm (pinned by package-lock.json) into
~/.cache/simbridge/msfs-node/<lock hash>/ and reused; the test needs Debian's nodejs and npm
(scripts/setup.sh installs them)."""

import hashlib
import json
import math
import shutil
import subprocess
import threading
from pathlib import Path

import pytest
from doubles.simconnect_double import SimConnectDouble, convert

from simbridge.adapters.msfs import DataType, Datum, Period, SimConnectClient, TcpTransport
from simbridge.adapters.msfs._wire import Protocol

NODE_DIR = Path(__file__).parent / "node"
DEF = [
    ("SIMULATION TIME", "number", DataType.FLOAT64),
    ("PLANE LATITUDE", "degrees", DataType.FLOAT64),
    ("PLANE BANK DEGREES", "radians", DataType.FLOAT64),
    ("PLANE ALTITUDE", "feet", DataType.FLOAT64),
    ("COM ACTIVE FREQUENCY:1", "MHz", DataType.FLOAT64),
    ("TRANSPONDER CODE:1", "BCO16", DataType.INT32),
    ("ATC ID", None, DataType.STRING32),
]


def node_install() -> Path:
    if shutil.which("node") is None or shutil.which("npm") is None:
        pytest.skip("nodejs/npm not installed (scripts/setup.sh installs them)")
    lock = (NODE_DIR / "package-lock.json").read_bytes()
    home = Path.home() / ".cache" / "simbridge"
    target = home / "msfs-node" / hashlib.sha256(lock).hexdigest()[:16]
    if not (target / "node_modules" / "node-simconnect" / "package.json").exists():
        target.mkdir(parents=True, exist_ok=True)
        for f in ("package.json", "package-lock.json"):
            shutil.copy(NODE_DIR / f, target / f)
        r = subprocess.run(
            [
                "npm",
                "ci",
                "--ignore-scripts",
                "--no-audit",
                "--no-fund",
                "--prefer-offline",
                "--cache",
                str(home / "npm"),
            ],
            cwd=target,
            capture_output=True,
            text=True,
            timeout=240,
        )
        assert r.returncode == 0, f"npm ci failed: {r.stderr[-1500:]}"
    shutil.copy(NODE_DIR / "fidelity.js", target / "fidelity.js")
    return target


def expected(d, t, i):
    name, units, _ = DEF[i]
    return convert(name, units or "", d.script.values(t))


@pytest.mark.parametrize("year,protocol", [("2020", Protocol.KITTYHAWK), ("2024", Protocol.SUNRISE)])
def test_node_simconnect_and_the_python_client_read_the_same_values(year, protocol):
    target = node_install()
    d = SimConnectDouble(hz=60.0).start()
    py_frames: list[list] = []
    try:
        c = SimConnectClient(lambda: TcpTransport("127.0.0.1", d.port, protocol=protocol))
        c.open(5)
        c.define(1, [Datum(n, u, dt) for n, u, dt in DEF])
        c.request(1, 1, Period.SIM_FRAME)
        stop = threading.Event()

        def collect():
            while not stop.wait(0.02):
                py_frames.extend(f.values for f in c.frames(1))

        th = threading.Thread(target=collect, daemon=True)
        th.start()
        r = subprocess.run(
            ["node", "fidelity.js", str(d.port), year, "30"], cwd=target, capture_output=True, text=True, timeout=60
        )
        stop.set()
        th.join()
        c.close()
    finally:
        d.stop()
    log = d.packet_log
    lines = [json.loads(x) for x in r.stdout.splitlines() if x.strip()]
    assert r.returncode == 0, (r.stdout[-2000:], r.stderr[-2000:])
    by = {k: v for line in lines for k, v in line.items()}
    assert by["open"]["name"] == ("KittyHawk" if year == "2020" else "SunRise")
    assert by["exception"]["code"] == 7 and by["exception"]["sendId"] == by["exception"]["expectedSendId"]
    events = [x["event"] for x in lines if "event" in x]
    assert [e["data"] for e in events if e["id"] == 1] == [1, 0]  # PAUSE_TOGGLE twice -> Pause 1, Pause 0
    node_frames = by["frames"]
    assert len(node_frames) >= 30
    for f in node_frames:  # node-simconnect decodes what the scripted flight says
        for i, v in enumerate(f):
            want = expected(d, f[0], i)
            assert v == (pytest.approx(want) if isinstance(want, float) else want), (DEF[i][0], v, want)
    py_by_t = {f[0]: f for f in py_frames}
    common = [f for f in node_frames if f[0] in py_by_t]
    assert len(common) >= 10  # both clients saw the same sim frames
    for f in common:
        assert f == py_by_t[f[0]]
    first_tagged = by["tagged"][0]
    assert sorted(map(int, first_tagged)) == list(range(len(DEF)))  # CHANGED|TAGGED: everything first...
    assert all(set(map(int, t)) <= {0, 1, 2, 3} for t in by["tagged"][1:])  # ...then only what moved
    assert not math.isnan(node_frames[-1][2])
    # the packets both clients built for the same calls are byte-identical
    conns = list(dict.fromkeys(cid for cid, _, _ in log))
    assert len(conns) == 2
    per = {cid: [(fn, body) for c2, fn, body in log if c2 == cid] for cid in conns}
    py, node = (
        (per[conns[0]], per[conns[1]])
        if per[conns[0]][0][1].startswith(b"simbridge")
        else (per[conns[1]], per[conns[0]])
    )
    assert py[0][1][256:] == node[0][1][256:]  # Open: all but the application name
    py_defs = [b for fn, b in py if fn == 0x0C]
    node_defs = [b for fn, b in node if fn == 0x0C and b[:4] == b"\x01\0\0\0"]
    assert py_defs == node_defs and len(py_defs) == len(DEF)
    assert [b for fn, b in py if fn == 0x0E][0] == [b for fn, b in node if fn == 0x0E][0]
