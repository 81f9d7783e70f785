"""The VM sandbox: a Debian guest image built from Debian packages, booted per episode on
QEMU/KVM from a fresh overlay, controlled through a virtio-serial supervisor.

The names load when first used: the guest's supervisor (`simbridge._vm._guest`, started at
every boot) imports this package and needs none of the host's side."""

from __future__ import annotations

from typing import TYPE_CHECKING

from simbridge._lazy import lazy_names

if TYPE_CHECKING:
    from simbridge._vm._image import GUEST_PACKAGES, GUEST_UIDS, build_image
    from simbridge._vm._provider import VmProvider, default_image_dir
    from simbridge._vm._qemu import VmInstance

_WHERE = {
    **dict.fromkeys(("GUEST_PACKAGES", "GUEST_UIDS", "build_image"), "simbridge._vm._image"),
    **dict.fromkeys(("VmProvider", "default_image_dir"), "simbridge._vm._provider"),
    "VmInstance": "simbridge._vm._qemu",
}


__getattr__, __dir__ = lazy_names(__name__, _WHERE)

__all__ = ["GUEST_PACKAGES", "GUEST_UIDS", "VmInstance", "VmProvider", "build_image", "default_image_dir"]
