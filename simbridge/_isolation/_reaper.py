"""Removes an episode's namespace when its runner dies, also after `kill -9`.

Started detached (own session) by the netns sandbox; waits on the owner's pidfd and then
destroys the namespace. A normal teardown kills the reaper first.

    python -m simbridge._isolation._reaper OWNER_PID NETNS_NAME HOST_IF
"""

from __future__ import annotations

import os
import select
import sys
import time


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
    from simbridge._isolation._netns import destroy_by_name

    destroy_by_name(name, host_if=host_if)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
