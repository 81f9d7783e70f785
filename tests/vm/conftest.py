"""What every VM test needs: root, QEMU, and a guest image (built only when
SIMBRIDGE_VM_TESTS=1 asks for it: debootstrap and wheels take several minutes, once per machine).

The guest runs simbridge from a wheel built into the image: after changing guest-side code (the
supervisor, the audit, the embedded simulator's cockpit) rebuild with `simbridge vm build`."""

from __future__ import annotations

import os
import shutil

import pytest


@pytest.fixture(scope="session")
def image():
    if os.geteuid() != 0:
        pytest.skip("building and booting the guest needs root")
    if not shutil.which("qemu-system-x86_64") or not shutil.which("debootstrap"):
        pytest.skip("needs qemu-system-x86 and debootstrap (scripts/setup.sh installs them with SIMBRIDGE_VM_TESTS=1)")
    from simbridge._vm import build_image, default_image_dir

    path = default_image_dir()
    if not (path / "base.qcow2").exists():
        if os.environ.get("SIMBRIDGE_VM_TESTS") != "1":
            pytest.skip(f"no guest image in {path}; set SIMBRIDGE_VM_TESTS=1 to build it (several minutes)")
        build_image(path, log=lambda s: None)
    return path
