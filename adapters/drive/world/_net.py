"""The SUMO road network of a CARLA town, made from the town's OpenDRIVE file by `netconvert`.

Converted once per (xodr sha256, SUMO version) into `$XDG_CACHE_HOME/simbridge/drive/` (or
`$SIMBRIDGE_DRIVE_CACHE`; a temporary directory of the user's own when that is not
writable, as for a netns sandbox's user), with `--output.original-names`, so every SUMO lane keeps its
OpenDRIVE origin (`origId` "road_lane"). Town03 is the exception: its shipped OpenDRIVE file
(2019) has no traffic-light signals, so the shipped `Town03.net.xml` (a newer Town03 converted
by netconvert 1.20, 11 traffic-light programs) is used as it is.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

from simbridge import HarnessError
from simbridge.adapters.kit import user_cache_dir

MAPS_DIR = Path(__file__).parent.parent / "maps"  # adapters/drive/maps: the towns, read by both sides
TOWNS = ("Town01", "Town03", "Town04")
#: towns whose SUMO network is shipped instead of converted (and why, for the record)
SHIPPED_NETS = {"Town03": "Town03.xodr (2019) has no traffic-light signals; Town03.net.xml is a newer Town03"}
NETCONVERT_ARGS = ("--output.original-names", "true", "--no-warnings", "true")


def xodr_path(town: str) -> Path:
    """The town's OpenDRIVE file (lane ids and offsets are computed on it)."""
    if town not in TOWNS:
        raise HarnessError(f"drive: unknown town {town!r} (known: {', '.join(TOWNS)})")
    return MAPS_DIR / f"{town}.xodr"


def cache_dir() -> Path:
    base = os.environ.get("SIMBRIDGE_DRIVE_CACHE")
    if base:
        return Path(base)
    return user_cache_dir("drive")


def sumo_version() -> str:
    """The installed SUMO's version (part of the cache key: another netconvert, another net)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("eclipse-sumo")
    except PackageNotFoundError:
        return "unknown"


def netconvert_binary() -> str:
    try:
        import sumo

        exe = Path(sumo.SUMO_HOME) / "bin" / "netconvert"
        if exe.exists():
            return str(exe)
    except (ImportError, AttributeError):
        pass
    found = shutil.which("netconvert")
    if found is None:
        raise HarnessError("drive: netconvert not found (pip install 'simbridge[drive]' installs eclipse-sumo)")
    return found


def net_path(town: str) -> Path:
    """The town's SUMO network, converting (once, cached) when it is not shipped."""
    if town in SHIPPED_NETS:
        return MAPS_DIR / f"{town}.net.xml"
    xodr = xodr_path(town)
    digest = hashlib.sha256(xodr.read_bytes()).hexdigest()[:16]
    name = f"{town}-{digest}-sumo{sumo_version()}.net.xml"
    out = cache_dir() / name
    if out.exists():
        return out
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        if not os.access(out.parent, os.W_OK):
            raise PermissionError(f"{out.parent} is not writable")
    except OSError:
        # a sandbox user whose home is not its own (netns): a private temporary cache
        out = Path(tempfile.gettempdir()) / f"simbridge-drive-{os.getuid()}" / name
        if out.exists():
            return out
        out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_suffix(f".tmp{os.getpid()}.xml")
    argv = [netconvert_binary(), "--opendrive", str(xodr), "-o", str(tmp), *NETCONVERT_ARGS]
    try:
        proc = subprocess.run(argv, capture_output=True, text=True, timeout=120)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise HarnessError(f"drive: netconvert failed on {xodr.name}: {exc}") from None
    if proc.returncode != 0 or not tmp.exists():
        tail = (proc.stderr or proc.stdout).strip().splitlines()[-1:] or ["no output"]
        raise HarnessError(f"drive: netconvert failed on {xodr.name} (exit {proc.returncode}): {tail[0]}")
    tmp.replace(out)  # atomic: a concurrent converter never sees half a file
    return out


def net_offset(net: Path) -> tuple[float, float]:
    """The `<location netOffset="x,y">` of a SUMO net: SUMO = OpenDRIVE + offset."""
    with open(net, encoding="utf-8") as f:
        head = f.read(8192)
    m = re.search(r'netOffset="([-0-9.eE+]+),([-0-9.eE+]+)"', head)
    if m is None:
        raise HarnessError(f"drive: {net}: no <location netOffset> in the network's header")
    return float(m.group(1)), float(m.group(2))
