"""The full round trip ``check`` runs on one class, and where a difference lies when there is one.

Kept apart from the command so workers of a process pool can import it cheaply.
"""

from __future__ import annotations

from ..classfile.model import ClassFile, read_class
from ..errors import JprewriteError


def full_round_trip(data: bytes, *, path: str | None = None, entry: str | None = None) -> tuple[bool, str]:
    """Decode everything, encode again; (identical?, what differs or "error: <located message>")."""
    try:
        cf = read_class(data)
        cf.decode_all()
        out = cf.to_bytes()
    except JprewriteError as e:
        return False, f"error: {e.located(path=path, entry=entry)}"
    if out == data:
        return True, ""
    return False, locate_difference(data, out)


def locate_difference(original: bytes, produced: bytes) -> str:
    """Name the part (constant pool, a method's code, frames...) where ``produced`` first differs."""
    first = next((i for i, (a, b) in enumerate(zip(original, produced)) if a != b), min(len(original), len(produced)))
    where = f"first difference at byte {first} ({len(original)} -> {len(produced)} bytes)"
    try:
        fresh = read_class(original)
        decoded = read_class(original)
        decoded.decode_all()
    except JprewriteError:
        return where
    parts = _method_parts(fresh, decoded)
    return f"{where}; {parts}" if parts else where


def _method_parts(fresh: ClassFile, decoded: ClassFile) -> str:
    pool = fresh.pool
    for m_raw, m_dec in zip(fresh.methods, decoded.methods):
        for a_raw, a_dec in zip(m_raw.attributes, m_dec.attributes):
            if a_raw.encode(pool) != a_dec.encode(decoded.pool):
                name = pool.utf8(a_raw.name_index)
                detail = ""
                if name == "Code":
                    code = m_dec.code()
                    if code is not None and code.code_bytes() != code.code:
                        detail = " (instructions)"
                    else:
                        detail = " (nested attributes, e.g. StackMapTable)"
                return f"in {m_raw.name}{m_raw.descriptor}: {name}{detail}"
    return ""
