"""Removes an episode's namespace when its runner dies, also after `kill -9`.

Started detached (own session) by the netns sandbox; waits on the owner's pidfd and then
destroys the namespace, the display leftovers of dead owners (its Xvfb's lock and socket) and
the sandbox's cgroup. A
normal teardown kills the reaper first.

    python -m simbridge._isolation._reaper OWNER_PID NETNS_NAME HOST_IF
"""

from __future__ import annotations

import os
import select
import sys
import time

from simbridge._isolation._display import pid_alive


def wait_for_exit(pid: int) -> None:
    try:
        fd = os.pidfd_open(pid)
    except (ProcessLookupError, AttributeError, OSError):
        while True:  # no pidfd: poll
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                return
            time.sleep(0.5)
    try:
        select.select([fd], [], [])
    finally:
        os.close(fd)


def main(argv: list[str]) -> int:
    owner, name, host_if = int(argv[0]), argv[1], argv[2]
    wait_for_exit(owner)
    from simbridge._isolation._netns import _run, destroy_by_name

    inside = [int(p) for p in _run(["ip", "netns", "pids", name], check=False).stdout.split() if p.isdigit()]
    destroy_by_name(name, host_if=host_if)
    deadline = time.monotonic() + 10  # killed: their X files are leftovers once they are gone
    while any(pid_alive(p) for p in inside) and time.monotonic() < deadline:
        time.sleep(0.05)
    from simbridge._isolation._display import remove_stale

    remove_stale()  # only leftovers of dead owners, on displays no live sandbox leases
    from simbridge._isolation._cgroup import remove_named

    remove_named(name)  # the sandbox's cgroup, named after its namespace
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
