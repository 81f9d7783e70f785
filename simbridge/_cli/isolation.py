"""`simbridge audit --provider netns --task T` and `simbridge cleanup`.

`audit` brings up the task's sandbox with stand-in listeners on the task's locked-down
ports (where the simulator will listen), proves the host side reaches them, runs the
isolation audit inside as the agent user, prints it, and exits 1 if it fails.
"""

from __future__ import annotations

import argparse
import json
import socket
import time

from simbridge._errors import SimbridgeError
from simbridge._isolation._print import print_report
from simbridge._providers import providers
from simbridge._task import load_task


def auditable() -> list[str]:
    """Providers with a sandbox to audit (`local` has none: it runs on the host, unisolated)."""
    return [p for p in providers() if p != "local"]


_LISTENER = """
import socket, sys, threading
def tcp(port):
    s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("0.0.0.0", port)); s.listen()
    while True:
        c, _ = s.accept(); c.close()
def udp(port):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.bind(("0.0.0.0", port))
    while True:
        s.recvfrom(2048)
for spec in sys.argv[1:]:
    proto, port = spec.split("/")
    threading.Thread(target=tcp if proto == "tcp" else udp, args=(int(port),), daemon=True).start()
threading.Event().wait()
"""


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "audit",
        help="bring up a task's sandbox and run the isolation audit alone",
        description="Bring up a task's sandbox with stand-in listeners on its locked-down ports, "
        "check the host side reaches them, run the isolation audit inside as the "
        "agent user and print it; exit 1 if the audit fails.",
    )
    p.add_argument(
        "--provider",
        choices=auditable(),
        default="netns",
        help="sandbox to audit: netns (network namespace, needs root) or vm (QEMU guest); default netns",
    )
    p.add_argument(
        "--task", required=True, help="task id whose lockdown (blocked ports, consoles) is audited, e.g. T09"
    )
    p.add_argument("--json", action="store_true", help="print the report as one JSON object instead of text")
    p.set_defaults(func=_audit)
    c = sub.add_parser(
        "cleanup",
        help="remove sandboxes (namespaces) and X display leftovers (/tmp/.X<n>-lock, "
        "/tmp/.X11-unix/X<n>) left by crashed runners; only those whose owner process is gone",
    )
    c.add_argument("--all", action="store_true", help="remove every simbridge namespace, also live ones")
    c.set_defaults(func=_cleanup)


def audit_task(task_id: str) -> dict:
    from simbridge._isolation import NetnsSandbox, host_addresses, sandbox_python

    task = load_task(task_id)
    tcp, udp = task.lockdown.ports("tcp"), task.lockdown.ports("udp")
    with NetnsSandbox(state_tcp=tcp, state_udp=udp) as sb:
        sb.spawn([sandbox_python(), "-c", _LISTENER, *[f"tcp/{p}" for p in tcp], *[f"udp/{p}" for p in udp]])
        host_side = {}
        for port in tcp:  # positive control: the host-side adapter's path must work
            ok = False
            for _ in range(50):
                try:
                    socket.create_connection((sb.sandbox_addr, port), timeout=1).close()
                    ok = True
                    break
                except OSError:
                    time.sleep(0.1)
            host_side[f"tcp/{port}"] = "reachable" if ok else "UNREACHABLE"
        report = sb.audit(task.lockdown.probes(), extra_targets=host_addresses())
        report["host_side"] = host_side
        report["provider"] = "netns"
        report["task_id"] = task.id
        # stand-in listeners, no simulator: the consoles are read from the simulator in each episode
        report["consoles"] = {
            c: {
                "state": "unchecked",
                "evidence": "no simulator in the stand-alone audit; "
                "every `simbridge run` episode reads it from the simulator",
            }
            for c in task.lockdown.disabled_consoles
        }
        if any(v != "reachable" for v in host_side.values()):
            report["ok"] = False
            report["problems"].append("host side cannot reach the simulator's state ports")
        return report


def _audit(args: argparse.Namespace) -> int:
    if args.provider == "vm":
        from simbridge._cli.vm import check_vm

        task = load_task(args.task)
        report = check_vm(ports=task.lockdown.probes())
        report["task_id"] = task.id
    elif args.provider == "netns":
        report = audit_task(args.task)
    else:  # a provider added to the registry without a stand-alone audit here
        raise SimbridgeError(f"audit: no stand-alone audit for provider {args.provider!r} (audited: netns, vm)")
    if args.json:
        print(json.dumps(report))
    else:
        print_report(report, f"isolation audit for {report['task_id']} (provider {args.provider})")
    return 0 if report["ok"] else 1


def _cleanup(args: argparse.Namespace) -> int:
    from simbridge._isolation import cleanup_stale
    from simbridge._isolation._display import remove_stale

    removed = cleanup_stale(all_=args.all)
    print(f"removed {len(removed)} namespace(s)" + (": " + ", ".join(removed) if removed else ""))
    files = remove_stale()  # after the namespaces: their Xvfbs are dead now
    print(f"removed {len(files)} display leftover(s)" + (": " + ", ".join(files) if files else ""))
    from simbridge._isolation import list_namespaces
    from simbridge._isolation._cgroup import remove_stale as remove_cgroups

    from simbridge._isolation._netns import PREFIX, STATE_DIR

    # a sandbox's record is written before its namespace and cgroup: a name with either is live
    records = {f.stem for f in STATE_DIR.glob(f"{PREFIX}*.json")} if STATE_DIR.is_dir() else set()
    groups = remove_cgroups(live=set(list_namespaces()) | records)
    print(f"removed {len(groups)} sandbox cgroup(s)" + (": " + ", ".join(groups) if groups else ""))
    return 0
