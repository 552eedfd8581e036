"""Bounded capture of a stream: memory stays flat however much the child writes."""

from __future__ import annotations


class BoundedCapture:
    """Keeps the first three quarters and the last quarter of `cap` bytes.

    The head shows how a run started, the tail keeps the traceback or the final
    answer; everything in between is counted and discarded as it arrives.
    """

    def __init__(self, cap: int) -> None:
        self.cap = cap
        self.tail_cap = cap // 4
        self.head_cap = cap - self.tail_cap
        self.head = bytearray()
        self.tail = bytearray()
        self.total = 0

    def feed(self, data: bytes) -> None:
        """Account for one chunk read from the stream."""
        self.total += len(data)
        room = self.head_cap - len(self.head)
        if room > 0:
            self.head += data[:room]
            data = data[room:]
        if data:
            self.tail += data
            if len(self.tail) > 2 * self.tail_cap:
                del self.tail[: len(self.tail) - self.tail_cap]

    @property
    def truncated(self) -> bool:
        """True when bytes were discarded."""
        return self.total > self.cap

    def text(self) -> str:
        """The kept bytes as text, with a marker where bytes were left out."""
        if not self.truncated:
            return (self.head + self.tail).decode("utf-8", errors="replace")
        tail = self.tail[len(self.tail) - self.tail_cap :] if self.tail_cap else b""
        omitted = self.total - len(self.head) - len(tail)
        unit = "byte" if omitted == 1 else "bytes"
        marker = f"\n[... sandbox: {omitted} {unit} of output left out; cap {self.cap} bytes ...]\n"
        return (
            self.head.decode("utf-8", errors="replace")
            + marker
            + bytes(tail).decode("utf-8", errors="replace")
        )
