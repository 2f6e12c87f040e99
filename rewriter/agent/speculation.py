"""Rewriting ahead on the second core: classes the program is likely to load next.

While the JVM waits for one class, the next ones it will ask for are usually among the classes
that one names (its superclass and interfaces at once, the rest as its code runs). A forked copy
of the worker rewrites those from the class path while the worker answers the JVM; when the JVM
then asks for a class with the same bytes, the answer is ready.

The copy shares the worker's state at the time of the fork (the class path, the plan) and never
talks to the JVM: a class whose rewriting would need a question to the agent (a class not on the
class path) is skipped, so a speculative answer is always the one the worker would give. Names
go to the copy over a pipe, newest first (``+name``; ``-name`` when the worker rewrote it itself);
results come back as frames (:mod:`.protocol` ``D`` frames, the name and the SHA-1 of the bytes
they were made from in front).

``JPREWRITE_AGENT_SPECULATE=0`` turns it off (one process, as before).
"""

from __future__ import annotations

import hashlib
import os
import select
import signal
import time
from collections.abc import Callable

from .protocol import Reader, Result, Writer

_RESULT = b"S"


class NeedsQuery(BaseException):
    """Raised in the copy instead of asking the agent: the class is left to the worker."""


def enabled() -> bool:
    return (
        os.environ.get("JPREWRITE_AGENT_SPECULATE", "1") != "0" and hasattr(os, "fork") and (os.cpu_count() or 1) >= 2
    )


def digest(data: bytes) -> bytes:
    return hashlib.sha1(data).digest()


class Speculator:
    """The worker's side: feeds names to the forked copy and collects what it rewrote."""

    def __init__(self, rewrite: Callable[[str, bytes], Result], read_bytes: Callable[[str], bytes | None]) -> None:
        to_child_r, self._to_child = os.pipe()
        self._from_child, from_child_w = os.pipe()
        pid = os.fork()
        if pid == 0:  # the copy
            os.close(self._to_child)
            os.close(self._from_child)
            code = 0
            try:
                _serve_copy(to_child_r, from_child_w, rewrite, read_bytes)
            except BaseException:  # noqa: BLE001 - the copy must never outlive an error
                code = 1
            os._exit(code)
        os.close(to_child_r)
        os.close(from_child_w)
        self.pid = pid
        os.set_blocking(self._to_child, False)
        self._buf = b""
        self.sent: set[str] = set()
        self.results: dict[str, tuple[bytes, Result]] = {}
        self.working_on: str | None = None
        self.alive = True
        self.hits = 0

    def suggest(self, names: list[str]) -> None:
        """Rewrite these ahead, the last one first."""
        lines = [n for n in names if n not in self.sent]
        if not lines or not self.alive:
            return
        self.sent.update(lines)
        self._send("".join(f"+{n}\n" for n in lines))

    def cancel(self, name: str) -> None:
        if name in self.sent and name not in self.results and self.alive:
            self._send(f"-{name}\n")

    def _send(self, text: str) -> None:
        try:
            os.write(self._to_child, text.encode("utf-8", "surrogatepass"))
        except BlockingIOError:
            pass  # the copy is far behind: these names are simply not rewritten ahead
        except OSError:
            self.alive = False

    def _drain(self, timeout: float) -> None:
        """Read what the copy has sent (waiting up to ``timeout`` for the first bytes)."""
        while self.alive:
            ready, _, _ = select.select([self._from_child], [], [], timeout)
            if not ready:
                return
            try:
                chunk = os.read(self._from_child, 1 << 16)
            except OSError:
                chunk = b""
            if not chunk:
                self.alive = False
                return
            self._buf += chunk
            self._parse()
            timeout = 0

    def _parse(self) -> None:
        buf = self._buf
        while len(buf) >= 4:
            length = int.from_bytes(buf[:4], "big")
            if len(buf) < 4 + length:
                break
            body, buf = buf[4 : 4 + length], buf[4 + length :]
            r = Reader(body[:1], body[1:])
            name = r.str_()
            if r.kind == _STARTED:
                self.working_on = name
                continue
            self.working_on = None
            if r.kind == _SKIPPED:
                continue
            sha, inner = r.bytes_(), r.bytes_()
            _, result = Result.read(Reader(inner[4:5], inner[5:]))
            self.results[name] = (sha, result)
        self._buf = buf

    def take(self, name: str, data: bytes, wait: float = 5.0) -> Result | None:
        """The copy's answer for ``name`` made from exactly ``data``, if it has one (or is making it)."""
        self._drain(0)
        if name not in self.results and self.working_on == name:
            deadline = time.monotonic() + wait
            while self.alive and name not in self.results and self.working_on == name:
                left = deadline - time.monotonic()
                if left <= 0:
                    break
                self._drain(left)
        found = self.results.pop(name, None)
        if found is None or found[0] != digest(data):
            self.cancel(name)
            return None
        self.hits += 1
        return found[1]

    def close(self) -> None:
        self.alive = False
        for fd in (self._to_child, self._from_child):
            try:
                os.close(fd)
            except OSError:
                pass
        try:
            os.kill(self.pid, signal.SIGTERM)
            os.waitpid(self.pid, 0)
        except (OSError, ChildProcessError):
            pass


_STARTED, _SKIPPED = b"s", b"k"


def _serve_copy(
    inp_fd: int, out_fd: int, rewrite: Callable[[str, bytes], Result], read_bytes: Callable[[str], bytes | None]
) -> None:
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    stack: list[str] = []
    cancelled: set[str] = set()
    done: set[str] = set()
    pending = b""
    eof = False

    def send(frame: bytes) -> None:
        view = memoryview(frame)
        while view:
            n = os.write(out_fd, view)
            view = view[n:]

    def take_input(block: bool) -> None:
        nonlocal pending, eof
        while not eof:
            ready, _, _ = select.select([inp_fd], [], [], None if block else 0)
            if not ready:
                return
            chunk = os.read(inp_fd, 1 << 16)
            if not chunk:
                eof = True
                return
            pending += chunk
            *lines, pending = pending.split(b"\n")
            for line in lines:
                text = line.decode("utf-8", "surrogatepass")
                if text.startswith("-"):
                    cancelled.add(text[1:])
                elif text.startswith("+"):
                    stack.append(text[1:])
            block = False

    while True:
        take_input(block=not stack)
        if not stack:
            if eof:
                return
            continue
        name = stack.pop()
        if name in done or name in cancelled:
            continue
        done.add(name)
        data = read_bytes(name)
        if data is None:
            continue
        send(Writer(_STARTED).str_(name).frame())
        try:
            result = rewrite(name, data)
        except (NeedsQuery, Exception):  # noqa: BLE001 - left to the worker, which reports failures
            send(Writer(_SKIPPED).str_(name).frame())
            continue
        send(Writer(_RESULT).str_(name).bytes_(digest(data)).bytes_(result.frame(0)).frame())
