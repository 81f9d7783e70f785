"""The isolation audit, run inside the sandbox as the agent-side user before a scored episode.

It tries what a misbehaving agent with a terminal would try: TCP connections and UDP datagrams
to every locked-down port and the usual simulator ports, on the sandbox's loopback, its own
address, the host-side addresses and the gateway; and it lists the X clients on the display
(only the simulator and the harness's own may exist). The result is stored in episode.json.

A probe is `blocked` when the sandbox itself refuses it (EPERM from the firewall, no route,
or silence), `closed` when it crossed the network but found no listener, `open` when it
connected or the datagram left. Only `blocked` passes: a closed port is an open path.

Run as a module (`python -m simbridge._isolation._audit --json SPEC`) so the provider can start
it inside the namespace under the agent uid.
"""

from __future__ import annotations

import argparse
import errno
import json
import os
import socket
import sys
from collections.abc import Set as AbstractSet
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from typing import Any

#: ports a simulator API may listen on, probed in every audit on top of the task's own list
USUAL_PORTS: list[tuple[int, str, str]] = [
    (49000, "udp", "X-Plane native UDP"),
    (49009, "udp", "XPlaneConnect"),
    (8086, "tcp", "X-Plane Web API"),
    (5401, "tcp", "FlightGear telnet"),
    (5480, "tcp", "FlightGear httpd"),
    (8080, "tcp", "FlightGear httpd default"),
    (500, "tcp", "SimConnect"),
    (2048, "tcp", "SimConnect fallback"),
    (2000, "tcp", "CARLA RPC"),
    (2001, "tcp", "CARLA streaming"),
    (2002, "tcp", "CARLA secondary"),
    (10111, "udp", "Bridge Command NMEA input"),
    (50000, "tcp", "kRPC"),
]


@dataclass
class Probe:
    addr: str
    port: int
    proto: str
    service: str
    result: str  # blocked | closed | open
    detail: str = ""


@dataclass
class XClient:
    pid: int | None
    command: str
    allowed: bool


@dataclass
class AuditReport:
    ok: bool
    user: str
    uid: int
    probes: list[Probe] = field(default_factory=list)
    x_clients: list[XClient] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def _errname(exc: OSError) -> str:
    """The errno's name (ECONNREFUSED), or the error's text when it has none."""
    return errno.errorcode.get(exc.errno or 0, str(exc))


def probe_tcp(addr: str, port: int, timeout_s: float) -> tuple[str, str]:
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.settimeout(timeout_s)
    try:
        s.connect((addr, port))
        # the two ends, so a report shows what answered (a path no rule should leave open)
        try:
            local, peer = s.getsockname(), s.getpeername()
        except OSError as exc:
            return "open", f"connected, then {_errname(exc)}"
        return "open", f"connected {local[0]}:{local[1]} -> {peer[0]}:{peer[1]}"
    except socket.timeout:
        return "blocked", "timeout"
    except OSError as exc:
        if exc.errno == errno.ECONNREFUSED:
            return "closed", "ECONNREFUSED"
        # EPERM/EACCES from the firewall's output hook, EHOSTUNREACH from its reject, or any
        # other error: no path
        return "blocked", _errname(exc)
    finally:
        s.close()


def probe_udp(addr: str, port: int, timeout_s: float) -> tuple[str, str]:
    """A datagram that leaves the sandbox is a path to the port. The firewall drops it at the
    output hook, which makes send() fail with EPERM; ICMP port-unreachable means `closed`."""
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.settimeout(timeout_s)
    try:
        s.connect((addr, port))
        s.send(b"simbridge-audit")
        try:
            s.recv(64)
            return "open", "answered"
        except socket.timeout:
            return "open", "sent"
        except ConnectionRefusedError:
            return "closed", "ICMP port unreachable"
    except OSError as exc:
        # EPERM/EACCES from the firewall's output hook, EHOSTUNREACH from its reject, or any
        # other error: no path
        return "blocked", _errname(exc)
    finally:
        s.close()


def _cmdline(pid: int) -> str:
    try:
        raw = open(f"/proc/{pid}/cmdline", "rb").read()
    except OSError:
        return "?"
    return raw.replace(b"\0", b" ").decode(errors="replace").strip() or "?"


def _descendants(roots: set[int]) -> set[int]:
    """pids of `roots` and all their descendants (from /proc)."""
    parent: dict[int, int] = {}
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                with open(f"/proc/{d}/stat") as fh:
                    parent[int(d)] = int(fh.read().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                pass
    out = set(roots)
    grew = True
    while grew:
        grew = False
        for pid, ppid in parent.items():
            if ppid in out and pid not in out:
                out.add(pid)
                grew = True
    return out


def x_clients(
    display: str, allowed_pids: set[int], allowed_remote: int = 0, exact_pids: AbstractSet[int] = frozenset()
) -> tuple[list[XClient], list[str]]:
    """Every client connected to the X server, by pid (X-Resource extension).

    `allowed_pids` and their descendants (the simulator's process tree) may be clients;
    `exact_pids` only themselves (the runner, whose other children are none of the display's
    business). `allowed_remote`: how many clients without a local pid (the host's agent port
    reaching a VM guest's display over a forwarded TCP port) are expected.
    """
    from Xlib import display as xdisplay
    from Xlib.ext import res

    problems = []
    d = xdisplay.Display(display)
    try:
        if not d.has_extension("X-Resource"):
            return [], ["X server lacks X-Resource: cannot list clients"]
        clients = d.res_query_clients().clients
        specs = [{"client": c.resource_base, "mask": res.LocalClientPIDMask} for c in clients]
        ids = d.res_query_client_ids(specs).ids
        own = os.getpid()
        allowed = _descendants(allowed_pids) | set(exact_pids) | {own}
        pid_by_base = {i.spec.client: (i.value[0] if i.value else None) for i in ids}
        out = []
        for c in clients:
            pid = pid_by_base.get(c.resource_base)
            if c.resource_base == 0:
                continue  # the server itself
            if pid is None and allowed_remote > 0:
                allowed_remote -= 1
                ok = True
            else:
                ok = pid is not None and pid in allowed
            out.append(XClient(pid, _cmdline(pid) if pid else "unknown (no pid)", ok))
            if not ok:
                problems.append(f"unexpected X client pid {pid}: {out[-1].command}")
        return out, problems
    finally:
        d.close()


def run_audit(spec: dict[str, Any]) -> AuditReport:
    """spec: {targets: [addr], ports: [[port, proto, service]], display, allowed_pids, timeout_s}."""
    import pwd

    timeout = float(spec.get("timeout_s", 0.5))
    targets: list[str] = list(dict.fromkeys(spec.get("targets", ["127.0.0.1"])))
    ports = [tuple(p) for p in spec.get("ports", [])] + [p for p in USUAL_PORTS if spec.get("usual_ports", True)]
    uid = os.getuid()
    report = AuditReport(ok=True, user=pwd.getpwuid(uid).pw_name if uid >= 0 else "?", uid=uid)
    jobs = list(dict.fromkeys((addr, int(port), proto, service) for addr in targets for port, proto, service in ports))
    # concurrently: a silent (dropped) path costs the whole timeout, and there are dozens
    with ThreadPoolExecutor(max_workers=32) as pool:
        results = list(pool.map(lambda j: (probe_tcp if j[2] == "tcp" else probe_udp)(j[0], j[1], timeout), jobs))
    for (addr, port, proto, service), (result, detail) in zip(jobs, results):
        report.probes.append(Probe(addr, port, proto, service, result, detail))
        if result != "blocked":
            report.problems.append(f"{proto}/{port} ({service}) on {addr} is {result} from the sandbox ({detail})")
    if spec.get("display"):
        try:
            clients, problems = x_clients(
                spec["display"],
                set(spec.get("allowed_pids", [])),
                int(spec.get("allowed_remote_clients", 0)),
                set(spec.get("exact_pids", [])),
            )
            report.x_clients = clients
            report.problems += problems
        except Exception as exc:  # the audit must report, not crash
            report.problems.append(f"cannot list X clients on {spec['display']}: {exc}")
    report.ok = not report.problems
    return report


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="isolation audit (runs inside the sandbox)")
    ap.add_argument("spec", help="JSON audit spec")
    args = ap.parse_args(argv)
    report = run_audit(json.loads(args.spec))
    json.dump(report.to_json(), sys.stdout)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
