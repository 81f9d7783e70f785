"""A buffered telemetry drain: what a reader thread produces, handed to the harness in batches.

Adapters read their simulator on a thread of their own (a UDP socket, a tick loop, a sensor
callback) while the runner's recorder asks `SimSession.poll()` / `events()` every few
milliseconds. `Drain` is the one thread-safe buffer between them: the reader `put`s items, the
session returns `drain()` (everything since the last call, oldest first). It is bounded, so a
recorder that stalls cannot exhaust memory (the oldest items go first and are counted), and it
knows when the last item arrived, which is how a session notices a stalled stream.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Iterable
from typing import Generic, TypeVar

T = TypeVar("T")

#: default bound: minutes of 50-100 Hz telemetry
MAX_ITEMS = 100_000


class Drain(Generic[T]):
    """Items from a producer thread, drained in arrival order by the consumer."""

    def __init__(self, max_items: int = MAX_ITEMS) -> None:
        self._items: deque[T] = deque(maxlen=max_items)
        self._lock = threading.Lock()
        self.n_put = 0
        #: items pushed out unread because the buffer was full
        self.n_overflow = 0
        #: time.monotonic() of the last put; None before the first
        self.last_put_mono: float | None = None

    def put(self, item: T) -> None:
        """Queue one item (any thread)."""
        with self._lock:
            if len(self._items) == self._items.maxlen:
                self.n_overflow += 1
            self._items.append(item)
            self.n_put += 1
            self.last_put_mono = time.monotonic()

    def extend(self, items: Iterable[T]) -> None:
        """Queue several items at once (any thread)."""
        for item in items:
            self.put(item)

    def drain(self) -> list[T]:
        """Everything queued since the last call, oldest first (empty when nothing came)."""
        with self._lock:
            out = list(self._items)
            self._items.clear()
        return out

    def __len__(self) -> int:
        with self._lock:
            return len(self._items)

    def age_s(self) -> float:
        """Seconds since the last item arrived (infinity before the first): a stalled stream."""
        last = self.last_put_mono
        return time.monotonic() - last if last is not None else float("inf")


__all__ = ["Drain", "MAX_ITEMS"]
