"""Modified UTF-8, the string encoding of CONSTANT_Utf8 (JVMS 4.4.7).

It differs from UTF-8 in two ways that matter for a lossless rewriter: NUL is
written as the two bytes ``C0 80``, and characters above U+FFFF are written as
two surrogates of three bytes each. Decoding combines a valid surrogate pair
into one Python character (so names read naturally) and keeps a lone surrogate
as it is; encoding inverts that. Constants also keep their original bytes, so
even an unusual (overlong) encoding that a JVM accepts is written back as it was.
"""

from __future__ import annotations

from ..errors import ClassFormatError


def decode(data: bytes) -> str:
    """Decode modified UTF-8; raise ClassFormatError on bytes that no JVM accepts."""
    if type(data) is not bytes:
        data = bytes(data)  # (a bytearray or memoryview works too, as it always did)
    # Fast path: plain ASCII without NUL (almost every name in real class files).
    if data.isascii():
        if 0 not in data:
            return data.decode("ascii")
    else:
        # Second fast path: bytes that are strict UTF-8 (no surrogates, no overlong
        # forms) are modified UTF-8 with the same meaning, provided there is no raw NUL
        # and no 4-byte form (a character above U+FFFF, which modified UTF-8 writes as
        # two 3-byte surrogates). Anything else -- C0 80, surrogates, or bytes no JVM
        # accepts -- takes the strict loop below, which also words the errors.
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            pass
        else:
            if "\x00" not in text and max(text) <= "\uffff":
                return text
    units: list[int] = []
    i = 0
    n = len(data)
    while i < n:
        b = data[i]
        if b < 0x80:
            if b == 0:
                raise ClassFormatError("Utf8 constant contains a raw NUL byte", offset=i)
            units.append(b)
            i += 1
        elif b & 0xE0 == 0xC0:
            if i + 1 >= n or data[i + 1] & 0xC0 != 0x80:
                raise ClassFormatError("malformed modified UTF-8 (2-byte form)", offset=i)
            units.append(((b & 0x1F) << 6) | (data[i + 1] & 0x3F))
            i += 2
        elif b & 0xF0 == 0xE0:
            if i + 2 >= n or data[i + 1] & 0xC0 != 0x80 or data[i + 2] & 0xC0 != 0x80:
                raise ClassFormatError("malformed modified UTF-8 (3-byte form)", offset=i)
            units.append(((b & 0x0F) << 12) | ((data[i + 1] & 0x3F) << 6) | (data[i + 2] & 0x3F))
            i += 3
        else:
            raise ClassFormatError(f"malformed modified UTF-8 (byte 0x{b:02x})", offset=i)
    return _units_to_str(units)


def _units_to_str(units: list[int]) -> str:
    out: list[str] = []
    i = 0
    n = len(units)
    while i < n:
        u = units[i]
        if 0xD800 <= u < 0xDC00 and i + 1 < n and 0xDC00 <= units[i + 1] < 0xE000:
            out.append(chr(0x10000 + ((u - 0xD800) << 10) + (units[i + 1] - 0xDC00)))
            i += 2
        else:
            out.append(chr(u))
            i += 1
    return "".join(out)


def encode(text: str) -> bytes:
    """Encode a Python string as modified UTF-8 (the canonical form javac writes)."""
    if "\x00" not in text:
        if text.isascii():
            return text.encode("ascii")
        # Without NUL, surrogates or characters above U+FFFF, modified UTF-8 is UTF-8: one C call
        # (a lone surrogate makes encode raise; those and the rest take the loop below)
        try:
            raw = text.encode("utf-8")
        except UnicodeEncodeError:
            pass
        else:
            if max(text) <= "\uffff":
                return raw
    out = bytearray()
    for ch in text:
        c = ord(ch)
        if c > 0xFFFF:
            c -= 0x10000
            for unit in (0xD800 + (c >> 10), 0xDC00 + (c & 0x3FF)):
                out += bytes((0xE0 | (unit >> 12), 0x80 | ((unit >> 6) & 0x3F), 0x80 | (unit & 0x3F)))
        elif 0 < c < 0x80:
            out.append(c)
        elif c < 0x800:
            out += bytes((0xC0 | (c >> 6), 0x80 | (c & 0x3F)))
        else:
            out += bytes((0xE0 | (c >> 12), 0x80 | ((c >> 6) & 0x3F), 0x80 | (c & 0x3F)))
    return bytes(out)
