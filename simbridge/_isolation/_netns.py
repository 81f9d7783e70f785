"""A Linux network namespace per episode, joined to the host by a veth pair.

The sandbox side has only a /30 link to the host side and no default route, so it can reach
nothing but the host's veth address; the firewall (`_firewall.py`) narrows that further. The
namespace's owner pid is recorded under /run/simbridge/netns so a crashed runner's namespace
is found and removed (`simbridge cleanup`, and the reaper the provider starts).
"""

from __future__ import annotations

import ipaddress
import json
import os
import pwd
import random
import subprocess
from dataclasses import asdict, dataclass
from pathlib import Path

from simbridge._errors import HarnessError
from simbridge._isolation._display import pid_alive

STATE_DIR = Path(os.environ.get("SIMBRIDGE_RUN_DIR", "/run/simbridge")) / "netns"
PREFIX = "sb-"
#: link-local block the per-episode /30 links are carved from (8192 links)
LINK_BLOCK = ipaddress.ip_network("169.254.128.0/17")

AGENT_USER = "simbridge-agent"
SIM_USER = "simbridge-sim"


def _run(argv: list[str], *, check: bool = True) -> subprocess.CompletedProcess[str]:
    p = subprocess.run(argv, capture_output=True, text=True)
    if check and p.returncode != 0:
        raise HarnessError(f"{' '.join(argv)}: {p.stderr.strip() or p.stdout.strip() or f'exit {p.returncode}'}")
    return p


def write_new_file(path: Path, text: str) -> None:
    """Write `text` to a file created new at `path` (O_EXCL, O_NOFOLLOW): whatever was left there,
    a symlink included, is removed first (the link itself, never its target), so nothing is
    written through a link planted at a predictable name."""
    path.unlink(missing_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        fh.write(text)


def require_root() -> None:
    if os.geteuid() != 0:
        raise HarnessError("the netns provider needs root (network namespaces, veth, nftables)")


def ensure_user(name: str) -> tuple[int, int]:
    """The (uid, gid) of a system user, created without a home or login shell if missing."""
    try:
        pw = pwd.getpwnam(name)
    except KeyError:
        made = _run(["useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin", name], check=False)
        try:
            pw = pwd.getpwnam(name)  # another runner may have created it at the same moment
        except KeyError:
            raise HarnessError(f"useradd {name}: {made.stderr.strip() or f'exit {made.returncode}'}") from None
    return pw.pw_uid, pw.pw_gid


@dataclass
class NetnsRecord:
    name: str
    owner_pid: int
    host_if: str
    sandbox_if: str
    host_addr: str
    sandbox_addr: str
    prefixlen: int = 30


def _existing() -> set[str]:
    out = _run(["ip", "netns", "list"], check=False).stdout
    return {line.split()[0] for line in out.splitlines() if line.strip()}


def _used_links() -> set[int]:
    used = set()
    out = _run(["ip", "-o", "-4", "addr", "show"], check=False).stdout
    for line in out.splitlines():
        for part in line.split():
            if "/" in part:
                try:
                    addr = ipaddress.ip_interface(part).ip
                except ValueError:
                    continue
                if addr in LINK_BLOCK:
                    used.add((int(addr) - int(LINK_BLOCK.network_address)) // 4)
    return used


class Netns:
    """One episode's namespace. `create()` then `destroy()` (idempotent)."""

    def __init__(self, record: NetnsRecord) -> None:
        self.record = record

    @property
    def name(self) -> str:
        return self.record.name

    @classmethod
    def create(cls, *, owner_pid: int | None = None) -> "Netns":
        require_root()
        existing, used = _existing(), _used_links()
        rng = random.Random()
        STATE_DIR.mkdir(parents=True, exist_ok=True)
        for _ in range(64):
            idx = rng.randrange(LINK_BLOCK.num_addresses // 4)
            tag = f"{idx:04x}"
            name = f"{PREFIX}{tag}"
            if idx in used or name in existing:
                continue
            base = int(LINK_BLOCK.network_address) + idx * 4
            rec = NetnsRecord(
                name=name,
                owner_pid=owner_pid or os.getpid(),
                host_if=f"sbh{tag}",
                sandbox_if=f"sbs{tag}",
                host_addr=str(ipaddress.ip_address(base + 1)),
                sandbox_addr=str(ipaddress.ip_address(base + 2)),
            )
            # the record, created exclusively, is the link's reservation: two runners on one
            # host (Ray workers) that drew the same link cannot both take it
            # (written whole, then linked into place: `cleanup` never reads half a record)
            tmp = STATE_DIR / f".{name}.{os.getpid()}.tmp"
            write_new_file(tmp, json.dumps(asdict(rec)))
            try:
                os.link(tmp, STATE_DIR / f"{name}.json")
            except FileExistsError:
                continue
            finally:
                tmp.unlink(missing_ok=True)
            if _run(["ip", "netns", "add", name], check=False).returncode != 0:
                # a namespace of that name without a record (a crashed runner's): not ours to remove
                (STATE_DIR / f"{name}.json").unlink(missing_ok=True)
                continue
            break
        else:
            raise HarnessError("no free sandbox link address (too many namespaces?)")
        ns = cls(rec)
        try:
            _run(["ip", "link", "add", rec.host_if, "type", "veth", "peer", "name", rec.sandbox_if])
            _run(["ip", "link", "set", rec.sandbox_if, "netns", name])
            _run(["ip", "addr", "add", f"{rec.host_addr}/30", "dev", rec.host_if])
            _run(["ip", "link", "set", rec.host_if, "up"])
            ns.exec_root(["ip", "link", "set", "lo", "up"])
            # simulators bind low ports (SimConnect 500) as an unprivileged user in here
            ns.exec_root(["sysctl", "-q", "-w", "net.ipv4.ip_unprivileged_port_start=0"])
            ns.exec_root(["ip", "addr", "add", f"{rec.sandbox_addr}/30", "dev", rec.sandbox_if])
            ns.exec_root(["ip", "link", "set", rec.sandbox_if, "up"])
        except BaseException:
            ns.destroy()
            raise
        return ns

    def argv(self, argv: list[str], *, user: str | None = None) -> list[str]:
        """The command line that runs `argv` inside the namespace, as `user` if given."""
        out = ["ip", "netns", "exec", self.name]
        if user:
            uid, gid = ensure_user(user)
            out += ["setpriv", f"--reuid={uid}", f"--regid={gid}", "--clear-groups"]
        return out + list(argv)

    def exec_root(
        self, argv: list[str], *, check: bool = True, input: str | None = None
    ) -> subprocess.CompletedProcess[str]:
        p = subprocess.run(self.argv(argv), capture_output=True, text=True, input=input)
        if check and p.returncode != 0:
            raise HarnessError(f"in {self.name}: {' '.join(argv)}: {p.stderr.strip() or f'exit {p.returncode}'}")
        return p

    def destroy(self) -> None:
        """Kill everything inside, delete the namespace (which removes the veth pair) and its record."""
        destroy_by_name(self.name, host_if=self.record.host_if)


def destroy_by_name(name: str, *, host_if: str | None = None) -> None:
    pids = _run(["ip", "netns", "pids", name], check=False).stdout.split()
    for pid in pids:
        try:
            os.kill(int(pid), 9)
        except (ProcessLookupError, ValueError):
            pass
    _run(["ip", "netns", "del", name], check=False)
    if host_if:
        _run(["ip", "link", "del", host_if], check=False)
    try:
        (STATE_DIR / f"{name}.json").unlink()
    except FileNotFoundError:
        pass


def cleanup_stale(*, all_: bool = False) -> list[str]:
    """Remove namespaces whose owner process is gone (or every simbridge namespace with all_).

    Namespaces named like ours but without a record are removed too: their owner crashed
    before the record was written, or the record was lost with /run on reboot.
    """
    removed = []
    records: dict[str, NetnsRecord] = {}
    if STATE_DIR.exists():
        for f in STATE_DIR.glob(f"{PREFIX}*.json"):
            try:
                records[f.stem] = NetnsRecord(**json.loads(f.read_text()))
            except (OSError, ValueError, TypeError):
                f.unlink(missing_ok=True)
    for name in sorted(_existing() | set(records)):
        if not name.startswith(PREFIX):
            continue
        rec = records.get(name)
        if all_ or rec is None or not pid_alive(rec.owner_pid):
            destroy_by_name(name, host_if=rec.host_if if rec else None)
            removed.append(name)
    return removed


def list_namespaces() -> list[str]:
    return sorted(n for n in _existing() if n.startswith(PREFIX))
