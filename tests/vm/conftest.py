"""What every VM test needs: root, QEMU, and a guest image (built only when
SIMBRIDGE_VM_TESTS=1 asks for it: debootstrap and wheels take several minutes, once per machine).

The guest runs simbridge from a wheel built into the image, so an image made from other source
than this checkout's is rebuilt first (only simbridge is reinstalled when the dependencies are
unchanged): the VM tests test this code in the guest, not an older copy."""

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

    from simbridge._vm._image import image_is_current

    path = default_image_dir()
    if not image_is_current(path):
        if os.environ.get("SIMBRIDGE_VM_TESTS") != "1":
            pytest.skip(
                f"the guest image in {path} is missing or made from other source; "
                "set SIMBRIDGE_VM_TESTS=1 to (re)build it (minutes)"
            )
        build_image(path, log=lambda s: None)
        assert image_is_current(path), f"{path}: rebuilt, yet its image.json does not match this source"
    return path
