"""Fixtures for the guest-service tests: a private Xvfb (the sandbox's display) and a guest
service started on it as a separate process, reading its token from a file."""

from __future__ import annotations

import os
import re
import secrets
import subprocess
import sys
from pathlib import Path

import pytest


class Service:
    def __init__(self, proc: subprocess.Popen, addr: str, token_file: Path, log: Path) -> None:
        self.proc, self.addr, self.token_file, self.log = proc, addr, token_file, log

    @property
    def token(self) -> str:
        return self.token_file.read_text().strip()

    def log_text(self) -> str:
        return self.log.read_text()


@pytest.fixture
def guest_service(sandbox, tmp_path):
    """`simbridge guest --listen 127.0.0.1:0 --token-file F` on the sandbox's display."""
    token_file = tmp_path / "token"
    token_file.write_text(secrets.token_hex(32) + "\n")
    log = tmp_path / "guest.log"
    env = {**os.environ, "DISPLAY": sandbox.display}
    with open(log, "w") as err:
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "simbridge._cli",
                "guest",
                "--listen",
                "127.0.0.1:0",
                "--token-file",
                str(token_file),
            ],
            stdout=subprocess.PIPE,
            stderr=err,
            text=True,
            env=env,
        )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        m = re.search(r"listening on (\S+:\d+)", line)
        assert m, f"guest service did not start: {line!r} {log.read_text()[-2000:]}"
        yield Service(proc, m.group(1), token_file, log)
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(5)
