"""``python -m jprewrite.agent.worker``: the process the ``-javaagent`` talks to over its stdin/stdout.

One request at a time (``docs/agent.md``): the agent sends a class, the worker may ask for
classes it cannot find, then answers. stdout carries frames only; anything printed goes to
stderr, which is the JVM's. Progress lines appear once rewriting has taken a few seconds (a
person is waiting for a cold start), and can be silenced with the agent option
``progress=false``.
"""

from __future__ import annotations

import gc
import sys
import time
from typing import BinaryIO, TextIO

from ..errors import JprewriteError
from . import speculation
from .loadtime import LoadTimeRewriter
from .options import parse_options
from .protocol import (
    ANSWER,
    CLASS,
    ERROR,
    EXIT,
    FAILED,
    HELLO,
    QUERY,
    READY,
    VERSION,
    ProtocolError,
    Result,
    Writer,
    read_frame,
)
from .speculation import Speculator

PREFIX = "jprewrite agent: "


class Progress:
    """Counts and rate on stderr, every ``every`` seconds once ``after`` seconds have passed."""

    def __init__(self, stream: TextIO, enabled: bool, *, after: float = 2.0, every: float = 2.0) -> None:
        self.stream = stream
        self.enabled = enabled
        self.after = after
        self.every = every
        self.started = time.monotonic()
        self.next_report = self.started + after
        self.count = 0
        self.printed = False

    def tick(self) -> None:
        self.count += 1
        if not self.enabled:
            return
        now = time.monotonic()
        if now >= self.next_report:
            self.next_report = now + self.every
            self.printed = True
            self._line(now, "so far")

    def finish(self, ahead: int = 0) -> None:
        if self.enabled and self.printed:
            extra = f" ({ahead:,} of them ahead of time on the second core)" if ahead else ""
            self._line(time.monotonic(), f"in all{extra}; cached for the next run")

    def _line(self, now: float, what: str) -> None:
        elapsed = max(now - self.started, 1e-9)
        self.stream.write(
            f"{PREFIX}{self.count:,} classes rewritten {what} ({elapsed:.1f} s, {self.count / elapsed:.0f} classes/s)\n"
        )
        self.stream.flush()


def serve(inp: BinaryIO, out: BinaryIO, err: TextIO) -> int:
    """Answer the agent until it says goodbye or closes the pipe; the exit status of the worker."""
    hello = read_frame(inp)
    if hello is None:
        return 0
    if hello.kind != HELLO:
        raise ProtocolError(f"expected a hello frame, got {hello.kind!r}")
    version, option_text, java_home, class_path = hello.str_(), hello.str_(), hello.str_(), hello.str_()
    if version != VERSION:
        Writer(ERROR).str_(
            f"protocol version {version} is not {VERSION} (agent and worker of different jprewrite versions)"
        ).send(out)
        return 2
    jar_release = hello.str_()  # "base", or the release whose multi-release copies the JVM loads

    def query(name: str) -> bytes | None:
        Writer(QUERY).str_(name).send(out)
        answer = read_frame(inp)
        if answer is None or answer.kind != ANSWER:
            raise ProtocolError("expected an answer frame")
        data = answer.bytes_()
        return data or None

    def warn(message: str) -> None:
        err.write(PREFIX + message + "\n")
        err.flush()

    try:
        options = parse_options(option_text)
        rewriter = LoadTimeRewriter(options, java_home, class_path, query=query, warn=warn, jar_release=jar_release)
    except JprewriteError as e:
        Writer(ERROR).str_(str(e)).send(out)
        return 2
    Writer(READY).str_(f"jprewrite worker, Python {sys.version.split()[0]}").send(out)
    # The rewriter's tables live as long as the worker: frozen, no collection walks them again;
    # and a rewrite allocates tens of thousands of short-lived objects that reference counting
    # frees, so the cyclic collector need not run every 700 of them (see rewrite.offline).
    gc.freeze()
    gc.set_threshold(max(gc.get_threshold()[0], 50_000), *gc.get_threshold()[1:])
    progress = Progress(err, options.progress)
    ahead: Speculator | None = None
    if speculation.enabled():
        try:
            ahead = Speculator(rewriter.speculative_rewrite, rewriter.read_bytes)
        except OSError:
            ahead = None
    try:
        while True:
            frame = read_frame(inp)
            if frame is None or frame.kind == EXIT:
                break
            if frame.kind != CLASS:
                raise ProtocolError(f"unexpected frame {frame.kind!r}")
            request_id, name, flags, data = frame.u4(), frame.str_(), frame.u1(), frame.bytes_()
            resolutions = bool(flags & 1)
            try:
                # (made ahead for the application class loader: not for a loader of the program)
                result = ahead.take(name, data) if ahead is not None and not resolutions else None
                if ahead is not None:
                    ahead.suggest(rewriter.likely_next(data))
                if result is not None:
                    rewriter.adopt(name, data, result)
                else:
                    result = rewriter.rewrite(name, data, resolutions)
            except ProtocolError:
                raise
            except Exception as e:  # noqa: BLE001 - a bug for one class must not end the worker
                result = Result(FAILED, message=f"{type(e).__name__}: {e}")
            out.write(result.frame(request_id))
            out.flush()
            if result.status != 0 or result.data:
                progress.tick()
    finally:
        if ahead is not None:
            ahead.close()
        progress.finish(ahead.hits if ahead is not None else 0)
        rewriter.close()
    return 0


def main() -> int:
    inp, out = sys.stdin.buffer, sys.stdout.buffer
    err = sys.stderr
    sys.stdout = sys.stderr  # a stray print must never corrupt the frames
    try:
        return serve(inp, out, err)
    except (ProtocolError, BrokenPipeError) as e:
        err.write(f"{PREFIX}worker stops: {e}\n")
        return 3
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
