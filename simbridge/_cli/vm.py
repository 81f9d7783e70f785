"""`simbridge vm build|check`: build the guest image; boot it once and audit it."""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path
from simbridge._exit import Exit


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("vm", help="the VM sandbox: build the guest image, check it boots and is isolated")
    vsub = p.add_subparsers(dest="vm_command", metavar="ACTION")
    vsub.required = True
    b = vsub.add_parser("build", help="build the Debian guest image (needs root; several minutes)")
    b.add_argument("--out", type=Path, help="image folder (default: /var/cache/simbridge/vm or $SIMBRIDGE_VM_IMAGE)")
    b.add_argument("--suite", default="bookworm", help="Debian release of the guest (default bookworm)")
    b.add_argument("--mirror", default="http://deb.debian.org/debian", help="Debian mirror debootstrap fetches from")
    b.add_argument("--size-gb", type=int, default=4, help="size of the guest disk image in GB (default 4)")
    b.set_defaults(func=_build)
    c = vsub.add_parser("check", help="boot a fresh overlay, run the isolation audit inside, shut down")
    c.add_argument("--image", type=Path, help="image folder (default: /var/cache/simbridge/vm or $SIMBRIDGE_VM_IMAGE)")
    c.add_argument("--json", action="store_true", help="print the audit report as one JSON object")
    c.set_defaults(func=_check)


def _build(args: argparse.Namespace) -> int:
    from simbridge._vm import build_image, default_image_dir

    build_image(args.out or default_image_dir(), suite=args.suite, mirror=args.mirror, size_gb=args.size_gb)
    return Exit.OK


def check_vm(image: Path | None = None, ports: list[tuple[int, str, str]] | None = None) -> dict:
    """Boot a fresh overlay, audit inside (the usual simulator ports plus `ports`), shut down."""
    from simbridge._vm import VmProvider

    from simbridge._vm._image import image_staleness

    with tempfile.TemporaryDirectory(prefix="simbridge-vm-") as tmp:
        prov = VmProvider(image_dir=image, state_tcp=[p for p, proto, _ in ports or [] if proto == "tcp"])
        stale = image_staleness(prov.image_dir)
        t0 = time.monotonic()
        try:
            sb = prov.start(tmp)
            report = prov.audit(list(ports or []))
            report["boot_s"] = sb.info["boot_s"]
            report["display"] = sb.display
            report["start_s"] = round(time.monotonic() - t0, 1)
        finally:
            prov.stop()
    # the guest runs the image's simbridge: an image of another one is not what `run` would use
    report["image"] = {"dir": str(prov.image_dir), "current": stale is None, "detail": stale or "current"}
    if stale:
        report["ok"] = False
        report.setdefault("problems", []).append(f"guest image is stale: {stale} (rebuild: simbridge vm build)")
    return report


def _check(args: argparse.Namespace) -> int:
    from simbridge._isolation._print import print_report

    report = check_vm(args.image)
    if args.json:
        print(json.dumps(report))
    else:
        print_report(
            report,
            f"guest booted in {report['boot_s']} s (sandbox ready in {report['start_s']} s), "
            f"display {report['display']}",
        )
    return Exit.OK if report["ok"] else Exit.CHECK_FAILED
