"""Progress on stderr for long jobs: a count and a rate, redrawn in place on a terminal.

Not on a terminal (CI logs, pipes) it prints a line every few seconds instead,
so logs stay readable. Messages written through :meth:`Progress.write` go to
stdout without tearing the progress line.
"""

from __future__ import annotations

import sys
import time


class Progress:
    def __init__(self, what: str, total: int, *, enabled: bool = True, stream=None) -> None:
        self.what = what
        self.total = total
        self.done = 0
        self.stream = stream or sys.stderr
        self.enabled = enabled and total > 0
        self.tty = self.enabled and hasattr(self.stream, "isatty") and self.stream.isatty()
        self.started = time.monotonic()
        self._last = 0.0
        self._drawn = False

    def _line(self) -> str:
        elapsed = max(time.monotonic() - self.started, 1e-9)
        rate = self.done / elapsed
        return f"{self.what}: {self.done}/{self.total} classes, {rate:.0f}/s"

    def advance(self, n: int = 1) -> None:
        self.done += n
        if not self.enabled:
            return
        now = time.monotonic()
        if self.tty and now - self._last > 0.1:
            self.stream.write("\r" + self._line() + "\x1b[K")
            self.stream.flush()
            self._drawn = True
            self._last = now
        elif not self.tty and now - self.started > 2.0 and now - self._last > 5.0:
            self.stream.write(self._line() + "\n")
            self._last = now

    def write(self, message: str) -> None:
        if self._drawn:
            self.stream.write("\r\x1b[K")
            self._drawn = False
        print(message, flush=True)

    def close(self) -> None:
        if self._drawn:
            self.stream.write("\r\x1b[K")
            self.stream.flush()
