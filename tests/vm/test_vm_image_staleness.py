"""A stale guest image is caught before it runs: `run --provider vm` refuses an image made from
other source (or, for an installed simbridge, by another version) in one line, and `vm build`
makes simbridge's wheel from a copy of the source, never writing into it (a read-only install)."""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from simbridge._errors import HarnessError, SimbridgeError
from simbridge._version import installed_version
from simbridge._vm._image import build_wheel, image_staleness, package_hash
from simbridge._vm._provider import VmProvider

REPO = Path(__file__).resolve().parents[2]


def _tree(root: Path) -> Path:
    for top in ("simbridge", "adapters", "verifiers", "tasks"):
        (root / top).mkdir(parents=True)
    (root / "simbridge/__init__.py").write_text("x = 1\n")
    (root / "adapters/jsbsim.py").write_text("cockpit = 1\n")
    (root / "pyproject.toml").write_text("[project]\nname = 'simbridge'\n")
    return root


def _image(out: Path, **info) -> Path:
    out.mkdir(parents=True, exist_ok=True)
    for name in ("base.qcow2", "vmlinuz", "initrd.img"):
        (out / name).write_bytes(b"")
    (out / "image.json").write_text(json.dumps(info))
    return out


def test_staleness_from_a_source_tree_follows_the_package_hash(tmp_path):
    src = _tree(tmp_path / "src")
    out = _image(tmp_path / "img", package_sha256=package_hash(src), source={"commit": "a" * 40, "dirty": True})
    assert image_staleness(out, src) is None
    (src / "adapters/jsbsim.py").write_text("cockpit = 2\n")  # guest-side code changed
    why = image_staleness(out, src)
    assert why == f"it was built from other source (commit aaaaaaaaaa with uncommitted changes) than {src}"
    (out / "image.json").unlink()
    assert "image.json is missing or unreadable" in (image_staleness(out, src) or "")


def test_staleness_of_an_installed_simbridge_follows_the_version(tmp_path):
    installed = tmp_path / "site-packages"  # no pyproject.toml, no top-level adapters/: not a source tree
    (installed / "simbridge").mkdir(parents=True)
    out = _image(tmp_path / "img", package_sha256="x", simbridge_version=installed_version())
    assert image_staleness(out, installed) is None
    _image(out, package_sha256="x", simbridge_version="0.0.1")
    assert image_staleness(out, installed) == f"it carries simbridge 0.0.1, this is simbridge {installed_version()}"
    _image(out, package_sha256="x")
    assert "it carries simbridge (not recorded)" in (image_staleness(out, installed) or "")


@pytest.mark.skipif(shutil.which("qemu-system-x86_64") is None, reason="the provider's preflight looks for QEMU")
def test_run_refuses_a_stale_image_in_one_line(tmp_path, monkeypatch):
    out = _image(tmp_path / "img", package_sha256="not this source", source={"commit": "b" * 40, "dirty": False})
    with pytest.raises(SimbridgeError) as raised:
        VmProvider(image_dir=out).preflight()
    line = str(raised.value)
    assert (
        "\n" not in line
        and f"the guest image at {out} is stale: it was built from other source (commit bbbbbbbbbb)" in line
    )
    assert "simbridge vm build" in line
    monkeypatch.setenv("SIMBRIDGE_VM_ALLOW_STALE", "1")
    VmProvider(image_dir=out).preflight()  # the operator's choice: runs
    monkeypatch.delenv("SIMBRIDGE_VM_ALLOW_STALE")
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "simbridge._cli",
            "run",
            "T09",
            "--sim",
            "jsbsim",
            "--provider",
            "vm",
            "--agent",
            "noop",
        ],
        capture_output=True,
        text=True,
        env={**os.environ, "SIMBRIDGE_VM_IMAGE": str(out)},
        cwd=tmp_path,
    )
    assert r.returncode == 2 and "is stale: it was built from other source" in r.stderr, (r.returncode, r.stderr)
    assert len(r.stderr.strip().splitlines()) == 1


def _listing(root: Path) -> dict[str, float]:
    return {str(p.relative_to(root)): p.lstat().st_mtime for p in root.rglob("*")}


@pytest.mark.slow
def test_the_wheel_is_built_from_a_copy_and_the_source_stays_untouched(tmp_path):
    src = tmp_path / "ro-src"  # the repository's package, as a read-only install would hold it
    for name in ("pyproject.toml", "setup.py", "README.md", "LICENSE"):
        shutil.copy2(REPO / name, src / name) if src.exists() else (src.mkdir(), shutil.copy2(REPO / name, src / name))
    for top in ("simbridge", "adapters", "verifiers", "tasks"):
        shutil.copytree(REPO / top, src / top, symlinks=True, ignore=shutil.ignore_patterns("__pycache__"))
    before = _listing(src)
    for p in [src, *src.rglob("*")]:
        if not p.is_symlink():
            p.chmod(p.stat().st_mode & ~(stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH))
    try:
        wheel = build_wheel(src, tmp_path / "house")
        assert wheel.name.startswith("simbridge-") and wheel.suffix == ".whl" and wheel.stat().st_size > 100_000
        assert _listing(src) == before  # no build/, no *.egg-info, nothing changed
    finally:
        for p in [src, *src.rglob("*")]:
            if not p.is_symlink():
                p.chmod(p.stat().st_mode | stat.S_IWUSR)
    with pytest.raises(HarnessError, match="is not simbridge's source"):
        build_wheel(tmp_path / "house", tmp_path / "other")


def test_vm_check_reports_a_stale_image(tmp_path, monkeypatch):
    """`vm check` boots and audits as before (a stand-in provider here: no guest boots on this
    machine's test run) and adds the image's staleness to its report: not ok, one problem."""
    import simbridge._vm as vm_pkg
    from simbridge._cli.vm import check_vm

    out = _image(tmp_path / "img", package_sha256="not this source", source={"commit": "c" * 40, "dirty": False})

    class Booted:
        display = ":0"
        info = {"boot_s": 1.0}

    class StandIn(VmProvider):
        def start(self, workdir):  # type: ignore[override]
            return Booted()

        def audit(self, ports):  # type: ignore[override]
            return {"ok": True, "problems": []}

        def stop(self) -> None:
            pass

    monkeypatch.setattr(vm_pkg, "VmProvider", StandIn)
    report = check_vm(out)
    assert report["ok"] is False and report["image"]["current"] is False
    assert report["problems"] == [
        "guest image is stale: it was built from other source (commit cccccccccc) than "
        f"{REPO} (rebuild: simbridge vm build)"
    ]
    (out / "image.json").write_text(json.dumps({"package_sha256": package_hash(REPO)}))
    report = check_vm(out)
    assert report["ok"] is True and report["image"] == {"dir": str(out), "current": True, "detail": "current"}
