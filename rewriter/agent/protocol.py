"""Frames between the Java agent and the Python worker (``docs/agent.md``, "The worker protocol").

A frame is ``u4 length`` (of what follows), ``u1 type``, payload; integers big-endian, strings
``u4 length`` + UTF-8, byte strings ``u4 length`` + data. Kept independent of the rest of
jprewrite so a test can speak it from either side.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field
from typing import BinaryIO

VERSION = "2"

HELLO, READY, ERROR, CLASS, QUERY, ANSWER, DONE, EXIT = b"H", b"R", b"E", b"C", b"Q", b"A", b"D", b"X"

UNCHANGED, REWRITTEN, FAILED = 0, 1, 2

_MAX_FRAME = 1 << 30


class ProtocolError(Exception):
    """The other side sent something that is not a frame of this protocol (or closed the pipe)."""


class Writer:
    """Builds one frame's payload."""

    def __init__(self, kind: bytes) -> None:
        self.kind = kind
        self.parts: list[bytes] = []

    def u1(self, v: int) -> Writer:
        self.parts.append(struct.pack(">B", v))
        return self

    def u2(self, v: int) -> Writer:
        self.parts.append(struct.pack(">H", v))
        return self

    def u4(self, v: int) -> Writer:
        self.parts.append(struct.pack(">I", v))
        return self

    def bytes_(self, data: bytes) -> Writer:
        self.parts.append(struct.pack(">I", len(data)))
        self.parts.append(bytes(data))
        return self

    def str_(self, text: str) -> Writer:
        return self.bytes_(text.encode("utf-8", "surrogatepass"))

    def frame(self) -> bytes:
        payload = b"".join(self.parts)
        return struct.pack(">I", 1 + len(payload)) + self.kind + payload

    def send(self, out: BinaryIO) -> None:
        out.write(self.frame())
        out.flush()


class Reader:
    """Reads one frame's payload field by field."""

    def __init__(self, kind: bytes, payload: bytes) -> None:
        self.kind = kind
        self.data = payload
        self.pos = 0

    def _take(self, n: int) -> bytes:
        if self.pos + n > len(self.data):
            raise ProtocolError(f"frame {self.kind!r} is too short")
        out = self.data[self.pos : self.pos + n]
        self.pos += n
        return out

    def u1(self) -> int:
        return self._take(1)[0]

    def u2(self) -> int:
        return struct.unpack(">H", self._take(2))[0]

    def u4(self) -> int:
        return struct.unpack(">I", self._take(4))[0]

    def bytes_(self) -> bytes:
        return self._take(self.u4())

    def str_(self) -> str:
        return self.bytes_().decode("utf-8", "surrogatepass")


def read_frame(stream: BinaryIO) -> Reader | None:
    """The next frame, or None at a clean end of the stream (before a frame started)."""
    head = _read_exactly(stream, 4, allow_eof=True)
    if head is None:
        return None
    (length,) = struct.unpack(">I", head)
    if length < 1 or length > _MAX_FRAME:
        raise ProtocolError(f"bad frame length {length}")
    body = _read_exactly(stream, length, allow_eof=False)
    assert body is not None
    return Reader(body[:1], body[1:])


def _read_exactly(stream: BinaryIO, n: int, *, allow_eof: bool) -> bytes | None:
    chunks = []
    got = 0
    while got < n:
        chunk = stream.read(n - got)
        if not chunk:
            if got == 0 and allow_eof:
                return None
            raise ProtocolError("the stream ended inside a frame")
        chunks.append(chunk)
        got += len(chunk)
    return b"".join(chunks)


@dataclass
class Result:
    """The worker's answer to one class (a ``D`` frame)."""

    status: int
    data: bytes = b""
    extras: dict[str, bytes] = field(default_factory=dict)
    message: str = ""

    def frame(self, request_id: int) -> bytes:
        w = Writer(DONE).u4(request_id).u1(self.status).bytes_(self.data).u2(len(self.extras))
        for name, data in self.extras.items():
            w.str_(name).bytes_(data)
        return w.str_(self.message).frame()

    @classmethod
    def read(cls, r: Reader) -> tuple[int, Result]:
        request_id = r.u4()
        status = r.u1()
        data = r.bytes_()
        extras = {}
        for _ in range(r.u2()):
            name = r.str_()
            extras[name] = r.bytes_()
        return request_id, cls(status, data, extras, r.str_())
