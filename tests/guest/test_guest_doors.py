"""The guest service's door, as a server exposed on a lab network (issue 43): the real service loop
(`serve`, in this process, on loopback) over a recording desktop (no display needed), reached by
raw sockets and by the host's own client (`GuestClient`).

Nothing an unauthenticated peer sends ends the service or holds it: deep nesting, oversize or
payload-carrying frames, a byte-a-second handshake (one deadline for the whole of it), fifty silent
connections. After authentication, a malformed or out-of-bounds request is the sender's mistake
(`SimbridgeError` on the host, never the `fault` that voids an episode) and touches nothing; a long
action is cut short when the host goes; an emptied token file refuses one connection."""

from __future__ import annotations

import json
import secrets
import socket
import struct
import threading
import time
from dataclasses import dataclass, field
from typing import Any

import pytest

from doubles.guest_desktop import RecordingDesktop
from simbridge._agent_port._transport import GuestClient
from simbridge._errors import HarnessError, SimbridgeError
from simbridge.guest import _protocol as proto
from simbridge.guest import _service as service


@dataclass
class Svc:
    addr: str
    host: str
    port: int
    desk: RecordingDesktop
    thread: threading.Thread
    stop: threading.Event
    token_box: list[Any] = field(default_factory=list)

    @property
    def token(self) -> str:
        return str(self.token_box[0])

    def client(self) -> GuestClient:
        return GuestClient(self.addr, self.token, timeout_s=5)

    def alive_and_serving(self) -> None:
        assert self.thread.is_alive(), "the service ended"
        c = self.client()
        try:
            assert c.call("ping")[0]["ok"]
            reply, payload = c.call("grab", zlib=0)
            assert (reply["w"], reply["h"]) == (64, 48) and payload is not None and len(payload) == 64 * 48 * 4
        finally:
            c.close()


@pytest.fixture
def svc() -> Any:
    desk = RecordingDesktop()
    stop = threading.Event()
    box: list[Any] = [secrets.token_hex(32)]
    got: list[tuple[str, int]] = []
    ready = threading.Event()

    def token() -> str:
        v = box[0]
        if isinstance(v, BaseException):
            raise v
        return str(v)

    def on_ready(h: str, p: int) -> None:
        got.append((h, p))
        ready.set()

    t = threading.Thread(
        target=service.serve,
        args=("127.0.0.1", 0, token),
        kwargs={"ready": on_ready, "stop": stop, "desktop": desk},
        daemon=True,
    )
    t.start()
    assert ready.wait(10)
    host, port = got[0]
    yield Svc(f"{host}:{port}", host, port, desk, t, stop, box)
    stop.set()
    t.join(10)
    assert not t.is_alive(), "the service did not stop"


def _raw(svc: Svc) -> socket.socket:
    s = socket.create_connection((svc.host, svc.port), timeout=10)
    return s


def _frame(body: bytes, n: int | None = None) -> bytes:
    return struct.pack(">I", len(body) if n is None else n) + body


def _hello(s: socket.socket) -> dict[str, Any]:
    hello, _ = proto.recv(s)
    assert hello["service"] == proto.SERVICE
    return hello


def _closed_by_service(s: socket.socket, within_s: float = 10.0) -> bool:
    """Whether the service closes `s` (reading whatever it says first)."""
    s.settimeout(within_s)
    try:
        while s.recv(65536):
            pass
        return True
    except ConnectionResetError:
        return True
    except socket.timeout:
        return False


def _authed(svc: Svc) -> socket.socket:
    """A raw socket past the handshake, for sending frames the host's client never would."""
    s = _raw(svc)
    hello = _hello(s)
    proto.send(s, {"op": "auth", "mac": proto.mac(svc.token, "host", hello["nonce"]), "nonce": "ab" * 16})
    reply, _ = proto.recv(s)
    assert reply["ok"], reply
    return s


# ---------------------------------------------------------------- before authentication
def test_nested_json_before_auth_is_refused_and_the_service_serves_on(svc: Svc) -> None:
    for body in (b"[" * 10_000, b"[" * 1000 + b"]" * 1000, b'{"a":' * 900 + b"1" + b"}" * 900):
        s = _raw(svc)
        _hello(s)
        s.sendall(_frame(body[: service.MAX_AUTH_FRAME]))
        assert _closed_by_service(s)
        s.close()
    # a frame longer than the pre-auth limit is refused unread, whatever its length says
    for n in (service.MAX_AUTH_FRAME + 1, 600 << 20, 0xFFFFFFFF):
        s = _raw(svc)
        _hello(s)
        s.sendall(struct.pack(">I", n) + b"[" * 4096)
        assert _closed_by_service(s)
        s.close()
    # a frame announcing a binary payload is refused before the payload is read (no 600 MiB buffer)
    s = _raw(svc)
    _hello(s)
    s.sendall(_frame(json.dumps({"op": "auth", "bin": 600 << 20}).encode()))
    assert _closed_by_service(s)
    s.close()
    svc.alive_and_serving()


def test_the_handshake_has_one_deadline_however_slowly_bytes_come(svc: Svc, monkeypatch) -> None:
    monkeypatch.setattr(service, "HANDSHAKE_TIMEOUT_S", 1.5)
    s = _raw(svc)
    _hello(s)
    t0 = time.monotonic()
    frame = _frame(b'{"op":"auth","mac":"' + b"0" * 64 + b'","nonce":"' + b"1" * 32 + b'"}')
    closed_at = None
    for b in frame:  # a byte every 0.2 s: each read is quick, the whole is not
        try:
            s.sendall(bytes([b]))
        except OSError:
            closed_at = time.monotonic()
            break
        time.sleep(0.2)
        s.setblocking(False)
        try:
            if s.recv(1, socket.MSG_PEEK) == b"":
                closed_at = time.monotonic()
                break
        except BlockingIOError:
            pass
        except OSError:
            closed_at = time.monotonic()
            break
        finally:
            s.setblocking(True)
    s.close()
    assert closed_at is not None, "a trickling peer kept the handshake open past its deadline"
    # dropped at the whole handshake's deadline (1.5 s), not after the ~30 s the frame would take
    assert closed_at - t0 < 1.5 + 3.0
    svc.alive_and_serving()


def test_fifty_silent_connections_do_not_keep_the_host_out(svc: Svc, monkeypatch) -> None:
    monkeypatch.setattr(service, "HANDSHAKE_TIMEOUT_S", 60.0)  # none of them times out during the test
    silent = [_raw(svc) for _ in range(50)]
    try:
        t0 = time.monotonic()
        svc.alive_and_serving()  # served at once, beside them, not after their deadlines
        assert time.monotonic() - t0 < 30.0
        # at most MAX_PENDING of them are still waiting: the oldest were dropped for newcomers
        open_ = 0
        for s in silent:
            if not _closed_by_service(s, within_s=0.2):
                open_ += 1
        assert open_ <= service.MAX_PENDING
    finally:
        for s in silent:
            s.close()
    svc.alive_and_serving()


def test_authenticated_connections_past_the_cap_are_refused_at_once(svc: Svc) -> None:
    held = [svc.client() for _ in range(service.MAX_SESSIONS)]
    try:
        t0 = time.monotonic()
        with pytest.raises(HarnessError, match="busy"):
            svc.client()
        assert time.monotonic() - t0 < 10.0
    finally:
        for c in held:
            c.close()
    # their slots free as they close
    deadline = time.monotonic() + 10
    while True:
        try:
            svc.alive_and_serving()
            break
        except HarnessError:
            assert time.monotonic() < deadline
            time.sleep(0.1)


def test_an_emptied_or_unreadable_token_refuses_that_connection_only(svc: Svc) -> None:
    good = svc.token
    for bad in ("", SimbridgeError("--token-file /x: empty"), OSError(5, "Input/output error"), MemoryError()):
        svc.token_box[0] = bad
        with pytest.raises(HarnessError, match="no usable token"):
            GuestClient(svc.addr, good, timeout_s=5)
        assert svc.thread.is_alive()
    svc.token_box[0] = good
    svc.alive_and_serving()


# ---------------------------------------------------------------- after authentication
@pytest.mark.parametrize(
    "args, says",
    [
        ({"op": "key", "keys": "Left", "hold_s": 1e9}, "hold_s 1000000000.0 is outside 0..60"),
        ({"op": "key", "keys": "Left", "hold_s": -1}, "outside 0..60"),
        ({"op": "key", "keys": "Left", "hold_s": "long"}, "hold_s must be a number"),
        ({"op": "scroll", "dy": 10**7}, "dy 10000000 is outside -100..100"),
        ({"op": "scroll", "dx": 1.5}, "dx must be an integer"),
        ({"op": "scroll", "dx": True}, "dx must be an integer"),
        ({"op": "type", "text": "a" * 20_000}, "text of 20000 characters is longer than 10000"),
        ({"op": "type", "text": "ok", "interval_s": 5}, "interval_s 5 is outside 0..1"),
        ({"op": "type", "text": ["a"]}, "text must be text"),
        ({"op": "move", "x": "a", "y": 1}, "x must be an integer"),
        ({"op": "move", "x": 10**30, "y": 1}, "outside -32767..32767"),
        ({"op": "move", "x": 1}, "y must be an integer"),
        ({"op": "key", "keys": {"a": 1}}, "keys must be text"),
        ({"op": "key_down", "keys": "x" * 201}, "longer than 200"),
        ({"op": "key", "keys": ""}, "empty key name"),
        ({"op": "key", "keys": "ctrl+"}, "empty key name"),
        ({"op": "key", "keys": "a++b"}, "empty key name"),
        ({"op": "key", "keys": "NoSuchKey"}, "unknown key name"),
        ({"op": "button", "button": "left", "down": "yes"}, "down must be true or false"),
        ({"op": "button", "button": "back", "down": True}, "cannot be pressed"),
        ({"op": "grab", "zlib": 100}, "zlib 100 is outside 0..9"),
        ({"op": "explode"}, "unknown op 'explode'"),
        ({"op": 5}, "names its op as text"),
    ],
)
def test_a_malformed_request_is_the_senders_error_not_a_fault(svc: Svc, args: dict[str, Any], says: str) -> None:
    c = svc.client()
    try:
        before = len(svc.desk.calls)
        op = args.pop("op")
        t0 = time.monotonic()
        with pytest.raises(SimbridgeError) as err:
            c.call(op, **args) if isinstance(op, str) else _send_raw_op(c, op)
        assert not isinstance(err.value, HarnessError), err.value  # not a fault: the episode stands
        assert says in str(err.value) and "\n" not in str(err.value)
        assert time.monotonic() - t0 < 5.0  # refused, not carried out
        assert [n for n in svc.desk.names()[before:] if n != "position"] == []  # nothing pressed or moved
        assert c.call("ping")[0]["ok"]  # the connection goes on
    finally:
        c.close()


def _send_raw_op(c: GuestClient, op: Any) -> None:
    proto.send(c._sock, {"op": op})
    reply, _ = proto.recv(c._sock)
    assert "fault" not in reply
    raise SimbridgeError(f"guest service: {reply['error']}")


def test_bad_frames_after_auth_are_request_errors_and_the_connection_goes_on(svc: Svc) -> None:
    s = _authed(svc)
    try:
        for body in (
            b"[" * 50_000,
            b'{"op":"ping",' + b"[" * 20 + b"]" * 20 + b"}",
            b"not json",
            b"[1,2]",
            b'{"a":NaN}',
        ):
            s.sendall(_frame(body))
            reply, _ = proto.recv(s)
            assert reply["ok"] is False and "fault" not in reply and reply["error"].startswith("bad request"), reply
        proto.send(s, {"op": "ping"})
        assert proto.recv(s)[0]["ok"]
        # a payload or a frame over the limit cannot be followed: answered, then the connection closes
        s.sendall(_frame(b'{"op":"type","text":"a","bin":5}') + b"xxxxx")
        reply, _ = proto.recv(s)
        assert reply["ok"] is False and "fault" not in reply
        assert _closed_by_service(s)
    finally:
        s.close()
    s = _authed(svc)
    try:  # a request over the limit is read past (up to MAX_DISCARD) and refused; the connection goes on
        s.sendall(_frame(json.dumps({"op": "type", "text": "a" * (1 << 20)}).encode()))
        reply, _ = proto.recv(s)
        assert reply["ok"] is False and "more than" in reply["error"] and "fault" not in reply
        proto.send(s, {"op": "ping"})
        assert proto.recv(s)[0]["ok"]
        # past MAX_DISCARD the stream is not followed: answered, then closed
        s.sendall(struct.pack(">I", service.MAX_DISCARD + 1))
        reply, _ = proto.recv(s)
        assert reply["ok"] is False and "more than" in reply["error"] and "fault" not in reply
        assert _closed_by_service(s)
    finally:
        s.close()
    svc.alive_and_serving()


def test_a_failing_display_is_a_fault_distinct_from_bad_input(svc: Svc) -> None:
    c = svc.client()
    try:
        svc.desk.fail = True
        with pytest.raises(HarnessError, match="guest fault"):
            c.call("grab", zlib=0)
        with pytest.raises(HarnessError, match="guest fault"):
            c.call("move", x=1, y=2)
        with pytest.raises(SimbridgeError) as err:  # bad input is still the sender's, display or not
            c.call("move", x="a", y=2)
        assert not isinstance(err.value, HarnessError)
        svc.desk.fail = False
        assert c.call("ping")[0]["ok"]
    finally:
        c.close()


def test_a_long_hold_is_cut_short_and_released_when_the_host_goes(svc: Svc) -> None:
    c = svc.client()
    worker = threading.Thread(target=lambda: _swallow(lambda: c.call("key", keys="Left", hold_s=60.0)), daemon=True)
    worker.start()
    assert svc.desk.wait_for("keyDown", "left") is not None
    t_close = time.monotonic()
    c._sock.shutdown(socket.SHUT_RDWR)  # the host goes mid-hold
    released = svc.desk.wait_for("keyUp", "left", timeout_s=10)
    assert released is not None and released - t_close < 5.0  # not the 60 s asked for
    c.close()
    worker.join(10)
    svc.alive_and_serving()


def test_typing_is_cut_short_when_the_host_goes(svc: Svc) -> None:
    c = svc.client()
    text = "abcdefghij" * 100  # 1,000 characters at 0.5 s each: ~8 minutes if not cut short
    worker = threading.Thread(target=lambda: _swallow(lambda: c.call("type", text=text, interval_s=0.5)), daemon=True)
    worker.start()
    assert svc.desk.wait_for("keyDown", "a") is not None
    c._sock.shutdown(socket.SHUT_RDWR)
    time.sleep(1.5)
    n = svc.desk.names().count("keyDown")
    time.sleep(1.5)
    assert svc.desk.names().count("keyDown") == n < 10  # stopped: no key pressed after the host went
    assert svc.desk.names().count("keyUp") == n  # and each pressed key released
    c.close()
    worker.join(10)


def test_stopping_the_service_interrupts_a_hold(svc: Svc) -> None:
    c = svc.client()
    box: list[BaseException] = []
    worker = threading.Thread(target=lambda: _swallow(lambda: c.call("key", keys="Up", hold_s=60.0), box), daemon=True)
    worker.start()
    assert svc.desk.wait_for("keyDown", "up") is not None
    svc.stop.set()
    assert svc.desk.wait_for("keyUp", "up", timeout_s=10) is not None
    worker.join(10)
    svc.thread.join(10)
    assert not svc.thread.is_alive()
    assert box and isinstance(box[0], HarnessError)  # the harness stopped it: a fault, not the agent's
    c.close()


def _swallow(fn: Any, box: list[BaseException] | None = None) -> None:
    try:
        fn()
    except BaseException as exc:  # noqa: BLE001 - the caller inspects it
        if box is not None:
            box.append(exc)


def test_well_formed_requests_reach_the_desktop(svc: Svc) -> None:
    c = svc.client()
    try:
        c.call("move", x=10, y=20)
        c.call("key", keys="ctrl+a", hold_s=0.0)
        c.call("type", text="a+\n", interval_s=0.0)
        c.call("scroll", dx=0, dy=2)
        c.call("button", button="left", down=True)
        c.call("button", button="left", down=False)
        assert c.call("position")[0]["position"] == [10, 20]
    finally:
        c.close()
    names = [(n, a) for _, n, a in svc.desk.calls if n != "position"]
    assert names == [
        ("moveTo", (10, 20)),
        ("keyDown", ("ctrlleft",)),
        ("keyDown", ("a",)),
        ("keyUp", ("a",)),
        ("keyUp", ("ctrlleft",)),
        ("keyDown", ("a",)),
        ("keyUp", ("a",)),
        ("keyDown", ("+",)),
        ("keyUp", ("+",)),
        ("keyDown", ("enter",)),
        ("keyUp", ("enter",)),
        ("scroll", (-1,)),
        ("scroll", (-1,)),
        ("mouseDown", ("left",)),
        ("mouseUp", ("left",)),
    ]
