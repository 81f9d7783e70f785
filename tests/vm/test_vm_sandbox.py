"""The VM sandbox on real QEMU: build the guest image, boot an overlay, audit inside, tear down.

Slow (the image build runs debootstrap and fetches wheels: several minutes, once per machine;
the boot takes 1-3 minutes under software emulation), so it runs only where the image already
exists or SIMBRIDGE_VM_TESTS=1 asks for the build. CI sets it.
"""

import os
import shutil
from pathlib import Path

import pytest

pytestmark = [pytest.mark.vm, pytest.mark.slow, pytest.mark.root]

if os.geteuid() != 0:
    pytest.skip("building and booting the guest needs root", allow_module_level=True)
if not shutil.which("qemu-system-x86_64") or not shutil.which("debootstrap"):
    pytest.skip("needs qemu-system-x86 and debootstrap (scripts/setup.sh installs them with SIMBRIDGE_VM_TESTS=1)",
                allow_module_level=True)

from simbridge._isolation import USUAL_PORTS  # noqa: E402
from simbridge._vm import VmProvider, build_image, default_image_dir  # noqa: E402

IMAGE = default_image_dir()


@pytest.fixture(scope="module")
def image():
    if not (IMAGE / "base.qcow2").exists():
        if os.environ.get("SIMBRIDGE_VM_TESTS") != "1":
            pytest.skip(f"no guest image in {IMAGE}; set SIMBRIDGE_VM_TESTS=1 to build it (several minutes)")
        build_image(IMAGE, log=lambda s: None)
    return IMAGE


def test_guest_boots_isolated_and_audited(image, tmp_path):
    prov = VmProvider(image_dir=image, state_tcp=[5401])
    try:
        sb = prov.start(tmp_path)
        assert sb.isolated and sb.harness_addr is None          # nothing in the guest reaches the host
        # the host reaches the guest's display through a forwarded loopback port
        from Xlib import display

        d = display.Display(sb.display)
        assert (d.screen().width_in_pixels, d.screen().height_in_pixels) == (1280, 800)
        d.close()
        report = prov.audit([(p, proto, svc) for p, proto, svc in USUAL_PORTS] + [(5401, "tcp", "jsbsim telnet")])
        assert report["ok"], report["problems"]
        assert report["user"] == "simbridge-agent"
        targets = {p["addr"] for p in report["probes"]}
        assert {"127.0.0.1", "10.0.2.2", "10.0.2.15"} <= targets   # loopback, the host (gateway), itself
        assert all(p["result"] == "blocked" for p in report["probes"])
        # the supervisor runs processes as the sandbox users, not root
        out = prov.vm.request("run", argv=["id", "-un"], user="sim")
        assert out["stdout"].strip() == "simbridge-sim"
        overlay = Path(tmp_path) / "vm" / "overlay.qcow2"
        assert overlay.exists()
    finally:
        prov.stop()
    assert not overlay.exists()                                  # reset = a new overlay next time
