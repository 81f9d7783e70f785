"""`simbridge vm build`: a Debian guest image for the VM sandbox, from Debian packages only.

debootstrap → users, networking, the guest supervisor as a systemd service, simbridge (the
embedded simulator, the agent port) in a venv → an ext4 filesystem made with `mke2fs -d`
(no loop mounts) → `base.qcow2` plus the kernel and initrd to boot it. Each episode boots a
fresh copy-on-write overlay of `base.qcow2`, so reset is a new overlay.

simbridge goes into the guest as a wheel built from a copy of the source folder at build time
(the source itself is never written to: it may be a read-only install): what runs
in the guest (the supervisor, the audit, the embedded simulator's cockpit) is that snapshot,
not the host's code, so a change to any of them needs a rebuild. `image.json` records the
source's git commit, whether its working tree had uncommitted changes, and a hash of what the
wheel carries and the simbridge version (`image_staleness` compares them with this simbridge:
`run --provider vm` refuses a stale image, `vm check` reports it); a rebuild whose
dependencies (pyproject.toml) are unchanged reinstalls only simbridge itself.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

from simbridge._errors import HarnessError

GUEST_PACKAGES = [
    "systemd-sysv",
    "udev",
    "linux-image-cloud-amd64",
    "python3",
    "python3-venv",
    "xvfb",
    "xauth",
    "x11-utils",
    "nftables",
    "iproute2",
    "procps",
    "ca-certificates",
    "libgl1-mesa-dri",
    "libsdl2-2.0-0",
    # the guest service's screen capture: mss loads these XCB libraries by name (ctypes)
    "libxcb1",
    "libxcb-randr0",
    "libxcb-render0",
    "libxcb-shm0",
    "libxcb-xfixes0",
]
#: the package extras the guest venv carries: the embedded simulator (`sim`) and the guest
#: service (`guest`: mss, pyautogui), which the runner starts there for SIMBRIDGE_AGENT_TRANSPORT=guest
GUEST_EXTRAS = "sim,guest"
#: fixed uids so the host can render the guest firewall
GUEST_UIDS = {"simbridge-agent": 990, "simbridge-sim": 991}
VENV = "/opt/simbridge/venv"

_UNIT = f"""[Unit]
Description=simbridge guest supervisor (host control channel)
After=systemd-udev-settle.service
[Service]
ExecStart={VENV}/bin/python -m simbridge._vm._guest
Restart=always
[Install]
WantedBy=multi-user.target
"""

_NETWORK = """[Match]
Name=en*
[Network]
DHCP=ipv4
"""


def _run(argv: list[str], **kw) -> None:
    p = subprocess.run(argv, capture_output=True, text=True, **kw)
    if p.returncode != 0:
        raise HarnessError(f"{' '.join(argv[:4])}…: {(p.stderr or p.stdout).strip()[-800:]}")


def _chroot(rootfs: Path, argv: list[str]) -> None:
    _run(
        ["chroot", str(rootfs), *argv],
        env={"PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "LANG": "C.UTF-8", "DEBIAN_FRONTEND": "noninteractive"},
    )


def source_stamp(src: Path) -> dict:
    """Which simbridge the image carries: the source folder and, for a git checkout, its commit
    and whether the working tree had uncommitted changes (they are in the image too)."""
    stamp: dict = {"path": str(src)}
    try:
        head = subprocess.run(["git", "-C", str(src), "rev-parse", "HEAD"], capture_output=True, text=True, timeout=10)
        if head.returncode == 0:
            dirty = subprocess.run(
                ["git", "-C", str(src), "status", "--porcelain", "--untracked-files=no"],
                capture_output=True,
                text=True,
                timeout=30,
            )
            stamp.update(commit=head.stdout.strip(), dirty=bool(dirty.stdout.strip()))
    except (OSError, subprocess.TimeoutExpired):
        pass
    return stamp


#: the source folders the wheel is made of (simbridge/adapters|verifiers|tasks may be links to them)
PACKAGE_DIRS = ("simbridge", "adapters", "verifiers", "tasks")


def _sha256_files(paths: list[Path], base: Path) -> str:
    h = hashlib.sha256()
    for path in paths:
        h.update(str(path.relative_to(base)).encode() + b"\0" + path.read_bytes() + b"\0")
    return h.hexdigest()


def package_hash(src: Path) -> str:
    """sha256 over the files the wheel is built from (not following links, so a linked folder
    counts once), the same for a clean clone and a working tree with the same content."""
    files: list[Path] = []
    for top in PACKAGE_DIRS:
        for root, dirs, names in os.walk(src / top):
            dirs[:] = sorted(d for d in dirs if d != "__pycache__" and not (Path(root) / d).is_symlink())
            files += [Path(root) / n for n in sorted(names) if not n.endswith(".pyc")]
    files = [f for f in files if f.is_file() and not f.is_symlink()]
    return _sha256_files(sorted(files), src)


def deps_hash(src: Path, extras: str) -> str:
    """sha256 of pyproject.toml and the extras installed: the guest's dependencies change only
    when they do."""
    return hashlib.sha256(_sha256_files([src / "pyproject.toml"], src).encode() + extras.encode()).hexdigest()


def image_is_current(out: Path, src: Path | None = None) -> bool:
    """Whether the image in `out` carries the simbridge of `src` (default: this one's source)."""
    src = src or Path(__file__).resolve().parents[2]
    try:
        info = json.loads((out / "image.json").read_text())
    except (OSError, ValueError):
        return False
    return (out / "base.qcow2").exists() and info.get("package_sha256") == package_hash(src)


def _is_source_tree(src: Path) -> bool:
    """A checkout (pyproject.toml beside the top-level folders the wheel maps), not an installed copy."""
    return (src / "pyproject.toml").is_file() and all((src / d).is_dir() for d in PACKAGE_DIRS)


def image_staleness(out: Path, src: Path | None = None) -> str | None:
    """Why the image in `out` does not carry this simbridge, in one line, or None when it does.

    From a source tree: the hash of the files the wheel is made of (`package_hash`), so any edit
    counts. From an installed simbridge: the version it records (`simbridge_version`)."""
    from simbridge._version import installed_version

    src = src or Path(__file__).resolve().parents[2]
    try:
        info = json.loads((out / "image.json").read_text())
    except (OSError, ValueError):
        return f"{out / 'image.json'} is missing or unreadable (an image built by hand or interrupted)"
    if not isinstance(info, dict):
        return f"{out / 'image.json'} is not a JSON object"
    source = info.get("source")
    built: dict = source if isinstance(source, dict) else {}
    made = f"commit {str(built.get('commit'))[:10]}{' with uncommitted changes' if built.get('dirty') else ''}"
    if _is_source_tree(src):
        if info.get("package_sha256") != package_hash(src):
            origin = made if built.get("commit") else built.get("path", "?")
            return f"it was built from other source ({origin}) than {src}"
        return None
    ours, theirs = installed_version(), info.get("simbridge_version")
    if theirs != ours:
        return f"it carries simbridge {theirs or '(not recorded)'}, this is simbridge {ours}"
    return None


def build_wheel(src: Path, dest: Path) -> Path:
    """simbridge's wheel, built from a copy of `src` in a scratch folder into `dest`: pip builds a
    local folder in place (build/, *.egg-info), which must not touch the source (it may be a
    read-only install, or another engineer's working tree)."""
    import tempfile

    if not _is_source_tree(src):
        raise HarnessError(
            f"vm build: {src} is not simbridge's source (pyproject.toml and {', '.join(PACKAGE_DIRS)}/); "
            "build the image from a checkout or an unpacked sdist"
        )
    dest.mkdir(parents=True, exist_ok=True)
    skip = shutil.ignore_patterns("__pycache__", "*.pyc", "build", "*.egg-info")
    with tempfile.TemporaryDirectory(prefix="simbridge-wheel-") as tmp:
        copy = Path(tmp) / "src"
        copy.mkdir()
        for name in ("pyproject.toml", "setup.py", "README.md", "LICENSE"):
            if (src / name).is_file():
                shutil.copy2(src / name, copy / name)
        for top in PACKAGE_DIRS:  # links (simbridge/adapters -> ../adapters) stay links, inside the copy
            shutil.copytree(src / top, copy / top, symlinks=True, ignore=skip)
        before = set(dest.glob("simbridge-*.whl"))
        _run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(dest), str(copy)])
    made = sorted(set(dest.glob("simbridge-*.whl")) - before) or sorted(dest.glob("simbridge-*.whl"))
    if not made:
        raise HarnessError(f"pip wheel left no simbridge wheel in {dest}")
    return made[-1]


def build_image(
    out: Path,
    *,
    suite: str = "bookworm",
    mirror: str = "http://deb.debian.org/debian",
    size_gb: int = 4,
    extras: str = GUEST_EXTRAS,
    source: Path | None = None,
    log=print,
) -> Path:
    """Build (or rebuild the changed parts of) the guest image in `out`. Needs root."""
    from simbridge._version import installed_version

    if os.geteuid() != 0:
        raise HarnessError("vm build needs root (debootstrap, chroot)")
    for tool in ("debootstrap", "mke2fs", "qemu-img"):
        if shutil.which(tool) is None:
            raise HarnessError(f"vm build needs {tool} (apt-get install debootstrap e2fsprogs qemu-utils)")
    out.mkdir(parents=True, exist_ok=True)
    rootfs = out / "rootfs"
    t0 = time.monotonic()
    marker = rootfs / ".simbridge-debootstrap"
    wanted = "\n".join(GUEST_PACKAGES) + "\n"
    # a base system made with another package list is made again (its marker holds the list;
    # an empty marker is an older image's, which lacks the guest service's libraries)
    if not marker.exists() or marker.read_text() != wanted:
        if rootfs.exists():
            shutil.rmtree(rootfs)
        log(f"debootstrap {suite} ({len(GUEST_PACKAGES)} packages) …")
        _run(["debootstrap", "--variant=minbase", f"--include={','.join(GUEST_PACKAGES)}", suite, str(rootfs), mirror])
        marker.write_text(wanted)
    log(f"  base system ready ({time.monotonic() - t0:.0f} s)")

    (rootfs / "etc/hostname").write_text("simbridge-guest\n")
    (rootfs / "etc/fstab").write_text("/dev/vda / ext4 defaults 0 1\n")
    (rootfs / "etc/systemd/network").mkdir(parents=True, exist_ok=True)
    (rootfs / "etc/systemd/network/10-dhcp.network").write_text(_NETWORK)
    (rootfs / "etc/systemd/system/simbridge-guest.service").write_text(_UNIT)
    wants = rootfs / "etc/systemd/system/multi-user.target.wants"
    wants.mkdir(parents=True, exist_ok=True)
    for unit, target in (
        ("simbridge-guest.service", "/etc/systemd/system/simbridge-guest.service"),
        ("systemd-networkd.service", "/lib/systemd/system/systemd-networkd.service"),
    ):
        link = wants / unit
        if not link.is_symlink():
            link.symlink_to(target)
    # no login anywhere: the agent sees only the X display, the host only the supervisor
    for unit in ("serial-getty@ttyS0.service", "getty@tty1.service", "console-getty.service"):
        mask = rootfs / "etc/systemd/system" / unit
        if not mask.is_symlink():
            mask.symlink_to("/dev/null")
    passwd = (rootfs / "etc/passwd").read_text()
    for user, uid in GUEST_UIDS.items():
        if f"\n{user}:" not in "\n" + passwd:
            _chroot(
                rootfs,
                ["useradd", "--system", "--uid", str(uid), "--no-create-home", "--shell", "/usr/sbin/nologin", user],
            )

    log("installing simbridge into the guest venv …")
    src = source or Path(__file__).resolve().parents[2]
    # Wheels are fetched on the host (its package index and certificates apply) into a
    # wheelhouse inside the rootfs, then installed in the chroot with no network at all.
    house = rootfs / "tmp/wheelhouse"
    shutil.rmtree(house, ignore_errors=True)
    house.mkdir(parents=True)
    wheel = build_wheel(src, house)
    try:
        before = json.loads((out / "image.json").read_text())
    except (OSError, ValueError):
        before = {}
    venv_python = rootfs / VENV.lstrip("/") / "bin/python"
    # the dependencies are installed already and unchanged: only simbridge itself is replaced
    only_simbridge = venv_python.exists() and before.get("deps_sha256") == deps_hash(src, extras)
    extra_set = [e for e in extras.split(",") if e]
    binary_extras = ",".join(e for e in extra_set if e != "guest")
    if not only_simbridge:
        _run(
            [
                sys.executable,
                "-m",
                "pip",
                "download",
                "-q",
                "-d",
                str(house),
                "--only-binary=:all:",
                "--python-version",
                "3.11",
                "--platform",
                "manylinux2014_x86_64",
                "--platform",
                "manylinux_2_28_x86_64",
                "--platform",
                "manylinux_2_17_x86_64",
                "--platform",
                "manylinux_2_27_x86_64",
                "--platform",
                "linux_x86_64",
                f"{wheel}[{binary_extras}]" if binary_extras else str(wheel),
            ]
        )
        if "guest" in extra_set:
            # pyautogui and its small helpers are published as source only: built into wheels
            # here (pure Python; the host runs the guest's Python 3.11), the rest taken from above
            _run(
                [sys.executable, "-m", "pip", "wheel", "-q", "-w", str(house), "--find-links", str(house)]
                + [f"{wheel}[guest]"]
            )
    _run(["mount", "-t", "proc", "proc", str(rootfs / "proc")])
    try:
        if not (rootfs / VENV.lstrip("/") / "bin/python").exists():
            _chroot(rootfs, ["python3", "-m", "venv", VENV])
        _chroot(
            rootfs,
            [
                f"{VENV}/bin/pip",
                "install",
                "-q",
                "--no-index",
                "--find-links",
                "/tmp/wheelhouse",
                "--force-reinstall",
                *(["--no-deps", f"/tmp/wheelhouse/{wheel.name}"] if only_simbridge else []),
                *([] if only_simbridge else [f"/tmp/wheelhouse/{wheel.name}[{extras}]"]),
            ],
        )
        if not only_simbridge and "guest" in extra_set:
            # pyautogui pulls python3-xlib, an old fork installed over python-xlib's `Xlib`
            # package (the harness's XTEST and audit need python-xlib): put python-xlib back
            _chroot(rootfs, [f"{VENV}/bin/pip", "uninstall", "-q", "-y", "python3-xlib"])
            _chroot(
                rootfs,
                [f"{VENV}/bin/pip", "install", "-q", "--no-index", "--find-links", "/tmp/wheelhouse"]
                + ["--force-reinstall", "--no-deps", "python-xlib>=0.33"],
            )
    finally:
        _run(["umount", str(rootfs / "proc")])
    shutil.rmtree(house)
    log(f"  venv ready ({time.monotonic() - t0:.0f} s{', simbridge only' if only_simbridge else ''})")

    kernels = sorted((rootfs / "boot").glob("vmlinuz-*"))
    initrds = sorted((rootfs / "boot").glob("initrd.img-*"))
    if not kernels or not initrds:
        raise HarnessError(f"{rootfs}/boot: no kernel/initrd installed")
    shutil.copy(kernels[-1], out / "vmlinuz")
    shutil.copy(initrds[-1], out / "initrd.img")
    raw = out / "base.raw"
    raw.unlink(missing_ok=True)
    log("making the ext4 image …")
    _run(["mke2fs", "-q", "-t", "ext4", "-L", "simroot", "-d", str(rootfs), str(raw), f"{size_gb}G"])
    _run(["qemu-img", "convert", "-O", "qcow2", str(raw), str(out / "base.qcow2.tmp")])
    raw.unlink()
    os.replace(out / "base.qcow2.tmp", out / "base.qcow2")
    build_s = round(time.monotonic() - t0, 1)
    size_bytes = (out / "base.qcow2").stat().st_size
    info = {
        "suite": suite,
        "mirror": mirror,
        "built": time.time(),
        "kernel": kernels[-1].name,
        "uids": GUEST_UIDS,
        "venv": VENV,
        "source": source_stamp(src),
        "simbridge_version": installed_version(),
        "package_sha256": package_hash(src),
        "deps_sha256": deps_hash(src, extras),
        "build_s": build_s,
        "size_bytes": size_bytes,
    }
    (out / "image.json").write_text(json.dumps(info, indent=2))
    log(f"image ready: {out / 'base.qcow2'} ({size_bytes / 1e6:.0f} MB, {build_s:.0f} s)")
    return out / "base.qcow2"
