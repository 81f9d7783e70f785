"""`simbridge guest`: the guest service (screen and input for the host's agent port), run inside
the sandbox or guest OS. See docs/guest-service.md."""

from __future__ import annotations

import argparse
import logging
import os
import sys
from pathlib import Path

from simbridge._errors import SimbridgeError
from simbridge._exit import Exit

TOKEN_ENV = "SIMBRIDGE_GUEST_TOKEN"


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("guest", help="serve this machine's screen and input to the host's agent port (guest service)")
    p.add_argument("--listen", default="127.0.0.1:7010", metavar="HOST:PORT", help="address to listen on (port 0: any)")
    g = p.add_mutually_exclusive_group()
    g.add_argument("--token-file", type=Path, metavar="F", help="per-episode token file, re-read for every connection")
    g.add_argument("--token-stdin", action="store_true", help="read the token from the first line of stdin")
    p.add_argument("--once", action="store_true", help="exit after one authenticated connection has closed")
    p.set_defaults(func=_guest)


def _listen(spec: str) -> tuple[str, int]:
    host, sep, port = spec.rpartition(":")
    if not sep or not (port.isascii() and port.isdigit()) or int(port) > 65535:
        raise SimbridgeError(f"--listen {spec!r}: not HOST:PORT (e.g. 127.0.0.1:7010)")
    return host.strip("[]") or "127.0.0.1", int(port)


def _file_token(path: Path) -> str:
    from simbridge._inputs import read_input_text

    try:
        token = read_input_text(path, "a token file", limit=64 << 10).strip()
    except SimbridgeError as exc:
        raise SimbridgeError(f"--token-file {exc}") from None
    if not token:
        raise SimbridgeError(f"--token-file {path}: empty (write the episode's token into it)")
    return token


def _guest(args: argparse.Namespace) -> int:
    host, port = _listen(args.listen)
    if args.token_file is not None:
        _file_token(args.token_file)  # fail now, not at the first connection
        token = lambda: _file_token(args.token_file)  # noqa: E731
    else:
        fixed = sys.stdin.readline().strip() if args.token_stdin else os.environ.get(TOKEN_ENV, "").strip()
        if not fixed:
            where = "stdin" if args.token_stdin else f"${TOKEN_ENV}"
            raise SimbridgeError(f"no token: {where} is empty (give --token-file F, --token-stdin or ${TOKEN_ENV})")
        token = lambda: fixed  # noqa: E731
    logging.basicConfig(level=logging.INFO, format="simbridge guest: %(message)s", stream=sys.stderr)
    try:
        from simbridge.guest._service import serve
    except ImportError as exc:
        raise SimbridgeError(
            f"the guest service needs the guest extra (pip install 'simbridge[guest]'): {exc}"
        ) from None

    def ready(h: str, p: int) -> None:
        print(f"simbridge guest: listening on {h}:{p}", flush=True)

    try:
        serve(host, port, token, ready=ready, once=args.once)
    except OSError as exc:
        raise SimbridgeError(f"--listen {args.listen}: {exc.strerror or exc}") from None
    return Exit.OK
