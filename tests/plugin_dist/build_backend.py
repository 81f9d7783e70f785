"""A PEP 517 build backend of a few lines, in the tree (pyproject.toml: `backend-path`), so that
`pip install tests/plugin_dist` builds this example offline and in a second: no setuptools or
wheel to download. It packs the package named like the project (`simbridge_example_plugin/`)
with the metadata and entry points of pyproject.toml into a pure-Python wheel. A real plug-in
names setuptools, hatchling or flit_core instead (docs/plugins.md); what pip installs is the same.
"""

from __future__ import annotations

import base64
import hashlib
import io
import sys
import tarfile
import zipfile
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # pyproject.toml asks for tomli on Python 3.10
    import tomli as tomllib  # type: ignore[import-not-found]

ROOT = Path(__file__).resolve().parent


def _project() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]


def _dist(p: dict) -> str:
    return f"{p['name'].replace('-', '_')}-{p['version']}"


def _metadata(p: dict) -> str:
    lines = ["Metadata-Version: 2.1", f"Name: {p['name']}", f"Version: {p['version']}"]
    lines += [f"Summary: {p['description']}", f"Requires-Python: {p['requires-python']}"]
    lines += [f"Requires-Dist: {d}" for d in p.get("dependencies", [])]
    return "\n".join(lines) + "\n"


def _entry_points(p: dict) -> str:
    out = []
    for group, points in p.get("entry-points", {}).items():
        out.append(f"[{group}]")
        out += [f"{name} = {target}" for name, target in points.items()]
    return "\n".join(out) + "\n"


def _files() -> list[Path]:
    """The package's files: the folder named like the project (dashes as underscores)."""
    pkg = ROOT / _project()["name"].replace("-", "_")
    return sorted(f for f in pkg.rglob("*") if f.is_file() and "__pycache__" not in f.parts)


def get_requires_for_build_wheel(config_settings: dict | None = None) -> list[str]:
    return []


def get_requires_for_build_sdist(config_settings: dict | None = None) -> list[str]:
    return []


def build_wheel(
    wheel_directory: str, config_settings: dict | None = None, metadata_directory: str | None = None
) -> str:
    p = _project()
    dist = _dist(p)
    name = f"{dist}-py3-none-any.whl"
    info = f"{dist}.dist-info"
    entries: list[tuple[str, bytes]] = [(f.relative_to(ROOT).as_posix(), f.read_bytes()) for f in _files()]
    entries += [
        (f"{info}/METADATA", _metadata(p).encode()),
        (f"{info}/WHEEL", b"Wheel-Version: 1.0\nGenerator: build_backend\nRoot-Is-Purelib: true\nTag: py3-none-any\n"),
        (f"{info}/entry_points.txt", _entry_points(p).encode()),
    ]
    record = io.StringIO()
    with zipfile.ZipFile(Path(wheel_directory) / name, "w", zipfile.ZIP_DEFLATED) as zf:
        for arc, data in entries:
            zf.writestr(arc, data)
            digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
            record.write(f"{arc},sha256={digest},{len(data)}\n")
        record.write(f"{info}/RECORD,,\n")
        zf.writestr(f"{info}/RECORD", record.getvalue())
    return name


def build_sdist(sdist_directory: str, config_settings: dict | None = None) -> str:
    dist = _dist(_project())
    with tarfile.open(Path(sdist_directory) / f"{dist}.tar.gz", "w:gz") as tf:
        for f in [ROOT / "pyproject.toml", Path(__file__), *_files()]:
            tf.add(f, arcname=f"{dist}/{f.relative_to(ROOT).as_posix()}")
    return f"{dist}.tar.gz"
