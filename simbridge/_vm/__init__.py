"""The VM sandbox: a Debian guest image built from Debian packages, booted per episode on
QEMU/KVM from a fresh overlay, controlled through a virtio-serial supervisor."""

from simbridge._vm._image import GUEST_PACKAGES, GUEST_UIDS, build_image
from simbridge._vm._provider import VmProvider, default_image_dir
from simbridge._vm._qemu import VmInstance

__all__ = ["GUEST_PACKAGES", "GUEST_UIDS", "VmInstance", "VmProvider", "build_image", "default_image_dir"]
