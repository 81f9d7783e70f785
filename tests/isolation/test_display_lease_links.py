"""A display lease file is opened without following links (issue 43's lock-file rule): a symlink,
hard link or FIFO planted as `<n>.lock` is stepped around, never truncated or written through,
and the lease goes to the next number (no root or X server needed)."""

from __future__ import annotations

import os
import threading

from simbridge._isolation import _display
from simbridge._isolation._display import DISPLAY_BASE, lease_display


def test_planted_links_are_never_written_through(tmp_path, monkeypatch):
    monkeypatch.setenv("SIMBRIDGE_RUN_DIR", str(tmp_path / "run"))
    monkeypatch.setattr(_display, "x_in_use", lambda n: False)  # no X server of anyone's is touched
    monkeypatch.setattr(_display, "_remove_x_files", lambda n: None)
    d = tmp_path / "run" / "display"
    d.mkdir(parents=True)
    victim = tmp_path / "victim"
    victim.write_text("precious\n")
    dangling = tmp_path / "not-there"
    (d / f"{DISPLAY_BASE}.lock").symlink_to(victim)
    (d / f"{DISPLAY_BASE + 1}.lock").symlink_to(dangling)
    os.link(victim, d / f"{DISPLAY_BASE + 2}.lock")
    os.mkfifo(d / f"{DISPLAY_BASE + 3}.lock")
    box: list = []
    t = threading.Thread(target=lambda: box.append(lease_display()), daemon=True)
    t.start()
    t.join(20)
    assert not t.is_alive(), "a FIFO lease file blocked"
    lease = box[0]
    try:
        assert lease.n == DISPLAY_BASE + 4
        assert victim.read_text() == "precious\n" and not dangling.exists()
        assert (d / f"{DISPLAY_BASE + 4}.lock").read_text().strip() == str(os.getpid())
    finally:
        lease.release()
