"""The guest-service wire protocol: one TCP connection, opened by the host, carrying frames.

A frame is a 4-byte big-endian length N, then N bytes of UTF-8 JSON (one object). A JSON object
with `"bin": M` is followed by M raw bytes (a screen grab), outside the JSON. Requests carry
`op`; every request gets exactly one reply, `{"ok": true, ...}` or `{"ok": false, "error": ...}`.

Authentication, per connection (each episode opens its own with its own token):

1. guest -> host  `{"service": "simbridge-guest", "version": 1, "nonce": G}`
2. host -> guest  `{"op": "auth", "mac": HMAC(token, "host:" + G), "nonce": H}`
3. guest -> host  `{"ok": true, "mac": HMAC(token, "guest:" + H), "screen": [w, h], "platform": ...}`
   or `{"ok": false, "error": "authentication failed"}` and the connection is closed.

HMAC is HMAC-SHA256 over the nonce's ASCII hex, keyed with the token's UTF-8 bytes; both sides
prove they hold the token, neither sends it. Only the standard library is used here.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import re
import secrets
import socket
import struct
import time
from array import array
from itertools import accumulate
from typing import Any

SERVICE = "simbridge-guest"
VERSION = 1
#: largest JSON header accepted by default (a type or key text is far smaller); a larger length is a broken peer
MAX_HEADER = 1 << 20
#: largest binary payload accepted (an 8K BGRA frame, uncompressed, is 133 MB)
MAX_BINARY = 256 << 20
#: deepest JSON nesting accepted (requests and replies are flat objects); checked before parsing,
#: so a frame of nested brackets is refused instead of exhausting the parser's recursion
MAX_DEPTH = 16


class ProtocolError(Exception):
    """The peer sent something that is not a frame of this protocol (or closed mid-frame).

    `in_sync` is True when the whole frame was read (its JSON was bad, too deep, not an object):
    the connection may go on; False when the stream can no longer be followed. `closed` is True
    when the peer closed the connection cleanly, before a frame began."""

    def __init__(self, message: str, *, in_sync: bool = False, closed: bool = False, unread: int = 0) -> None:
        super().__init__(message)
        self.in_sync, self.closed = in_sync, closed
        #: a header refused unread: its length (the bytes that follow belong to it)
        self.unread = unread


def mac(token: str, role: str, nonce: str) -> str:
    return hmac.new(token.encode(), f"{role}:{nonce}".encode(), hashlib.sha256).hexdigest()


def check_mac(token: str, role: str, nonce: str, given: Any) -> bool:
    """Whether `given` is the MAC of `nonce` under `token` (anything else, non-ASCII text included, is not)."""
    return isinstance(given, str) and given.isascii() and hmac.compare_digest(mac(token, role, nonce), given)


def new_nonce() -> str:
    return secrets.token_hex(16)


def _recv_exact(sock: socket.socket, n: int, deadline: float | None = None, *, at_start: bool = False) -> bytes:
    """n bytes; with `deadline` (time.monotonic()), all of them by then, however they trickle in."""
    buf = bytearray()
    while len(buf) < n:
        if deadline is not None:
            left = deadline - time.monotonic()
            if left <= 0:
                raise ProtocolError("timed out: the frame did not arrive in time" + (" (mid-frame)" if buf else ""))
            sock.settimeout(left)
        try:
            chunk = sock.recv(min(n - len(buf), 1 << 20))
        except socket.timeout:
            raise ProtocolError("timed out: the frame did not arrive in time" + (" (mid-frame)" if buf else ""))
        if not chunk:
            raise ProtocolError("connection closed" + (" mid-frame" if buf else ""), closed=not buf and at_start)
        buf += chunk
    return bytes(buf)


def discard(sock: socket.socket, n: int, deadline: float) -> None:
    """Read and drop n bytes (a refused frame's body) by `deadline`, in a constant buffer."""
    buf = bytearray(1 << 16)
    view = memoryview(buf)
    while n > 0:
        left = deadline - time.monotonic()
        if left <= 0:
            raise ProtocolError("timed out: the frame did not arrive in time (mid-frame)")
        sock.settimeout(left)
        try:
            got = sock.recv_into(view, min(n, len(buf)))
        except socket.timeout:
            raise ProtocolError("timed out: the frame did not arrive in time (mid-frame)") from None
        if not got:
            raise ProtocolError("connection closed mid-frame")
        n -= got


#: a JSON text as tokens: a whole string, a run of other characters, a run of brackets, or a lone
#: quote (a string that never ends, where the scan stops); each pattern is unambiguous, so the
#: text is scanned left to right in linear time
_TOKENS = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"|[^"\[\]{}]+|[\[\]{}]+|"', re.S)
#: each bracket as a signed step: [ and { +1, ] and } -1 (0xFF as a signed byte)
_STEP = bytes.maketrans(b"[{]}", b"\x01\x01\xff\xff")


def check_depth(data: bytes, limit: int = MAX_DEPTH) -> None:
    """Refuse JSON nested deeper than `limit` (brackets inside strings do not count), in one
    linear pass and without recursion, before the text reaches the parser."""
    depth = 0
    for m in _TOKENS.finditer(data):
        tok = m.group()
        if tok == b'"':
            raise ProtocolError("frame is not JSON: a string never ends", in_sync=True)
        if tok[0] in b"[]{}":  # a run of brackets: its running depth, summed in C
            steps = array("b", tok.translate(_STEP))
            if max(accumulate(steps, initial=depth)) > limit:
                raise ProtocolError(f"frame is nested more than {limit} deep", in_sync=True)
            depth += sum(steps)


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a number here")


def decode(data: bytes, max_depth: int = MAX_DEPTH) -> dict[str, Any]:
    """One frame's JSON object: depth checked first; NaN/Infinity, non-UTF-8 text and integers of
    more than 4,300 digits are refused (ProtocolError, in sync)."""
    check_depth(data, max_depth)
    try:
        obj = json.loads(data, parse_constant=_no_constant)
    except (ValueError, RecursionError) as exc:  # UnicodeDecodeError and JSONDecodeError are ValueErrors
        raise ProtocolError(f"frame is not JSON: {str(exc)[:200]}", in_sync=True) from None
    if not isinstance(obj, dict):
        raise ProtocolError("frame is not a JSON object", in_sync=True)
    return obj


def send(sock: socket.socket, obj: dict[str, Any], payload: bytes | None = None) -> None:
    """Send one frame (and its binary payload, if any)."""
    if payload is not None:
        obj = {**obj, "bin": len(payload)}
    head = json.dumps(obj, separators=(",", ":")).encode()
    parts = [struct.pack(">I", len(head)), head]
    if payload is not None:
        parts.append(payload)
    sock.sendall(b"".join(parts) if payload is None or len(payload) < (1 << 16) else parts[0] + parts[1])
    if payload is not None and len(payload) >= (1 << 16):
        sock.sendall(payload)


def recv(
    sock: socket.socket,
    *,
    max_header: int = MAX_HEADER,
    max_depth: int = MAX_DEPTH,
    binary: bool = True,
    deadline: float | None = None,
) -> tuple[dict[str, Any], bytes | None]:
    """Receive one frame: (its JSON object, its binary payload or None). A header longer than
    `max_header` is refused unread; `binary=False` refuses a frame announcing a payload (the
    service never takes one); `deadline` (time.monotonic()) bounds the whole frame."""
    (n,) = struct.unpack(">I", _recv_exact(sock, 4, deadline, at_start=True))
    if n > max_header:
        raise ProtocolError(f"frame header of {n} bytes (more than {max_header}): not a simbridge-guest peer", unread=n)
    obj = decode(_recv_exact(sock, n, deadline), max_depth)
    size = obj.get("bin")
    if size is None:
        return obj, None
    if not binary:
        raise ProtocolError("a binary payload is not accepted here")
    if not isinstance(size, int) or isinstance(size, bool) or not 0 <= size <= MAX_BINARY:
        raise ProtocolError(f"bad binary size {size!r:.40}")
    return obj, _recv_exact(sock, size, deadline)
