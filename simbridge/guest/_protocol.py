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
import secrets
import socket
import struct
from typing import Any

SERVICE = "simbridge-guest"
VERSION = 1
#: largest JSON header accepted (a type or key text is far smaller); a larger length is a broken peer
MAX_HEADER = 1 << 20
#: largest binary payload accepted (an 8K BGRA frame, uncompressed, is 133 MB)
MAX_BINARY = 256 << 20


class ProtocolError(Exception):
    """The peer sent something that is not a frame of this protocol (or closed mid-frame)."""


def mac(token: str, role: str, nonce: str) -> str:
    return hmac.new(token.encode(), f"{role}:{nonce}".encode(), hashlib.sha256).hexdigest()


def check_mac(token: str, role: str, nonce: str, given: Any) -> bool:
    return isinstance(given, str) and hmac.compare_digest(mac(token, role, nonce), given)


def new_nonce() -> str:
    return secrets.token_hex(16)


def _recv_exact(sock: socket.socket, n: int) -> bytes:
    buf = bytearray()
    while len(buf) < n:
        chunk = sock.recv(min(n - len(buf), 1 << 20))
        if not chunk:
            raise ProtocolError("connection closed" + (" mid-frame" if buf else ""))
        buf += chunk
    return bytes(buf)


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


def recv(sock: socket.socket) -> tuple[dict[str, Any], bytes | None]:
    """Receive one frame: (its JSON object, its binary payload or None)."""
    (n,) = struct.unpack(">I", _recv_exact(sock, 4))
    if n > MAX_HEADER:
        raise ProtocolError(f"frame header of {n} bytes (more than {MAX_HEADER}): not a simbridge-guest peer")
    try:
        obj = json.loads(_recv_exact(sock, n))
    except ValueError as exc:
        raise ProtocolError(f"frame is not JSON: {exc}") from None
    if not isinstance(obj, dict):
        raise ProtocolError("frame is not a JSON object")
    size = obj.get("bin")
    if size is None:
        return obj, None
    if not isinstance(size, int) or not 0 <= size <= MAX_BINARY:
        raise ProtocolError(f"bad binary size {size!r}")
    return obj, _recv_exact(sock, size)
