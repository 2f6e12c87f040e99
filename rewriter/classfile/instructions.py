"""Bytecode instructions at the concrete level: byte offsets and constant-pool indices.

This is the lossless codec under everything else: ``encode_instructions``
of an unchanged ``decode_instructions`` result is byte-identical, because
every encoding choice a compiler or obfuscator can make is kept in the
model -- ``wide`` prefixes that were not needed, ldc vs ldc_w, goto vs goto_w,
non-zero switch padding, the reserved bytes of invokeinterface/invokedynamic.

Model
-----
One :class:`Instruction` object per instruction, ``offset`` being where its
first byte (the ``wide`` prefix, for wide forms) sits in the code array.
Most instructions have at most one operand, kept in ``operand``:

* local-variable index (iload ... astore, ret; see ``wide``),
* constant-pool index (ldc, ldc_w, ldc2_w, get/put*, invoke{virtual,special,static}, new,
  anewarray, checkcast, instanceof),
* ABSOLUTE branch target offset (if*, goto, goto_w, jsr, jsr_w, ifnull, ifnonnull),
* signed immediate (bipush, sipush), or the newarray type code.

In a method body being edited (:mod:`jprewrite.editor`) a branch operand (and a switch's
``default`` and ``targets``) is that layer's ``Label`` instead of an offset, hence their loose type.

The few with more operands are subclasses with named fields:
:class:`Iinc`, :class:`InvokeInterface`, :class:`InvokeDynamic`,
:class:`MultiANewArray`, :class:`TableSwitch`, :class:`LookupSwitch`.

Speed matters (every method of every class goes through here), hence
``__slots__``, a 256-entry format table, no per-instruction dicts, and
truncation detected by catching IndexError/struct.error once around the loop
rather than by bounds checks per operand.

Errors: malformed code raises :class:`~jprewrite.errors.ClassFormatError` whose
``offset`` is the offset *in the code array* of the offending instruction;
the Code attribute adds the file position. The encoder raises the same error
for an instruction list that cannot be written as given (offsets that do
not match the layout, operands out of range, branch targets that are not
instruction starts), because writing it would produce a malformed class.
"""

from __future__ import annotations

import struct
from collections.abc import Iterable, Sequence
from operator import attrgetter
from typing import Any, ClassVar, Final

from ..errors import ClassFormatError
from .native import mypyc_attr
from .opcodes import (
    FMT_BRANCH,
    FMT_BRANCH_W,
    FMT_BYTE,
    FMT_CP1,
    FMT_CP2,
    FMT_IINC,
    FMT_INVALID,
    FMT_INVOKEDYNAMIC,
    FMT_INVOKEINTERFACE,
    FMT_LOCAL,
    FMT_LOOKUPSWITCH,
    FMT_MULTIANEWARRAY,
    FMT_NEWARRAY,
    FMT_NONE,
    FMT_SHORT,
    FMT_TABLESWITCH,
    FMT_WIDE,
    FORMATS,
    IINC,
    INVOKEDYNAMIC,
    INVOKEINTERFACE,
    JUMP_OPCODES,
    LENGTHS,
    LOOKUPSWITCH,
    MULTIANEWARRAY,
    TABLESWITCH,
    WIDE,
    WIDENABLE,
    opcode_name,
)

__all__ = [
    "Instruction",
    "Fragment",
    "FRAGMENT_OPCODE",
    "Iinc",
    "InvokeInterface",
    "InvokeDynamic",
    "MultiANewArray",
    "TableSwitch",
    "LookupSwitch",
    "decode_instructions",
    "encode_instructions",
    "encode_at",
    "instruction_length",
    "switch_padding",
]


@mypyc_attr(acyclic=True)  # (see classfile.native)
class Instruction:
    """An instruction with zero or one operand (see the module docstring for ``operand``).

    ``wide`` is only meaningful for local-variable opcodes, ``ret`` and ``iinc``:
    it says the instruction is written with the ``wide`` prefix (u2 index),
    which is kept even when the index would fit in a byte. The encoder
    ignores it on other opcodes (checking it there would cost every
    instruction a test).
    """

    __slots__ = ("offset", "opcode", "operand", "wide")
    _FIELDS: ClassVar[tuple[str, ...]] = ("offset", "opcode", "operand", "wide")

    def __init__(self, offset: int, opcode: int, operand: Any = None, wide: bool = False) -> None:
        self.offset = offset
        self.opcode = opcode
        self.operand = operand
        self.wide = wide

    @property
    def name(self) -> str:
        return opcode_name(self.opcode)

    def _key(self) -> tuple:
        return tuple(getattr(self, f) for f in self._FIELDS)

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return self._key() == other._key()

    __hash__ = None  # type: ignore[assignment]  # mutable

    def _operands(self) -> str:
        return "" if self.operand is None else str(self.operand)

    def __repr__(self) -> str:
        ops = self._operands()
        wide = "wide " if self.wide else ""
        return f"<{self.offset}: {wide}{self.name}{' ' + ops if ops else ''}>"


@mypyc_attr(acyclic=True)
class Iinc(Instruction):
    """``iinc index, increment``: ``operand`` is the local index, ``increment`` is signed."""

    __slots__ = ("increment",)
    _FIELDS: ClassVar[tuple[str, ...]] = Instruction._FIELDS + ("increment",)

    def __init__(self, offset: int, index: int, increment: int, wide: bool = False) -> None:
        self.offset = offset
        self.opcode = IINC
        self.operand = index
        self.wide = wide
        self.increment = increment

    def _operands(self) -> str:
        return f"{self.operand}, {self.increment}"


@mypyc_attr(acyclic=True)
class InvokeInterface(Instruction):
    """``invokeinterface #index, count``; ``reserved`` is the trailing byte (0 per JVMS)."""

    __slots__ = ("count", "reserved")
    _FIELDS: ClassVar[tuple[str, ...]] = Instruction._FIELDS + ("count", "reserved")

    def __init__(self, offset: int, index: int, count: int, reserved: int = 0) -> None:
        self.offset = offset
        self.opcode = INVOKEINTERFACE
        self.operand = index
        self.wide = False
        self.count = count
        self.reserved = reserved

    def _operands(self) -> str:
        extra = f" reserved={self.reserved}" if self.reserved else ""
        return f"#{self.operand}, {self.count}{extra}"


@mypyc_attr(acyclic=True)
class InvokeDynamic(Instruction):
    """``invokedynamic #index``; ``reserved`` is the trailing u2 (0 per JVMS)."""

    __slots__ = ("reserved",)
    _FIELDS: ClassVar[tuple[str, ...]] = Instruction._FIELDS + ("reserved",)

    def __init__(self, offset: int, index: int, reserved: int = 0) -> None:
        self.offset = offset
        self.opcode = INVOKEDYNAMIC
        self.operand = index
        self.wide = False
        self.reserved = reserved

    def _operands(self) -> str:
        extra = f" reserved={self.reserved}" if self.reserved else ""
        return f"#{self.operand}{extra}"


#: the opcode a :class:`Fragment` answers to: none of the JVM's (0xcb-0xfd are unassigned, JVMS 6.2),
#: so that per-opcode tables send it down their rare paths
FRAGMENT_OPCODE: Final = 0xFD


@mypyc_attr(acyclic=True)
class Fragment(Instruction):
    """Instructions already encoded, placed in a method body as one item.

    What a rewriter inserts many times over (a bytecode counter at every basic block: six
    instructions) costs an :class:`Instruction` per step, then layout, encoding and the stack
    flow per step, every time; a fragment is encoded once and copied. So only code that can be
    copied anywhere: no switches or handlers, no branches but forward ones to its own end, and
    **neutral**: every path through it that does not leave the method (a return inside a guard)
    reaches its end with the operand stack as deep as it found it, never reaching below that
    depth, and leaves every local variable with the type it had (it may store a value of the
    same type). The type flow steps over it, and a frame before it holds after it (a frame at
    the label right after a fragment with branches is the caller's to give). ``peak``: the most
    slots it pushes above the depth it starts at; ``max_locals``: one past the highest local
    slot it uses. Its slots are in its bytes, so a body's locals are moved (a parameter
    inserted) before fragments go in, never after (``CodeBody.shift_locals`` refuses).
    """

    __slots__ = ("code", "peak", "max_locals")
    _FIELDS: ClassVar[tuple[str, ...]] = Instruction._FIELDS + ("code", "peak", "max_locals")

    def __init__(self, code: bytes, peak: int, max_locals: int) -> None:
        self.offset = -1
        self.opcode = FRAGMENT_OPCODE
        self.operand = None
        self.wide = False
        self.code = code
        self.peak = peak
        self.max_locals = max_locals

    @property
    def name(self) -> str:
        return "fragment"

    def _operands(self) -> str:
        return f"{self.code.hex()} peak={self.peak} max_locals={self.max_locals}"


@mypyc_attr(acyclic=True)
class MultiANewArray(Instruction):
    """``multianewarray #index, dims``."""

    __slots__ = ("dims",)
    _FIELDS: ClassVar[tuple[str, ...]] = Instruction._FIELDS + ("dims",)

    def __init__(self, offset: int, index: int, dims: int) -> None:
        self.offset = offset
        self.opcode = MULTIANEWARRAY
        self.operand = index
        self.wide = False
        self.dims = dims

    def _operands(self) -> str:
        return f"#{self.operand}, {self.dims}"


@mypyc_attr(acyclic=True)
class TableSwitch(Instruction):
    """``tableswitch``: ``targets[i]`` is the absolute target for key ``low + i``.

    ``padding`` is ``None`` when the 0-3 alignment bytes are zero (always, for
    javac); otherwise the exact bytes, so that odd class files re-encode
    identically. Non-zero padding of the wrong length for the instruction's
    offset is an encoding error.
    """

    __slots__ = ("default", "low", "targets", "padding")
    _FIELDS: ClassVar[tuple[str, ...]] = Instruction._FIELDS + ("default", "low", "targets", "padding")

    def __init__(self, offset: int, default: Any, low: int, targets: list[Any], padding: bytes | None = None) -> None:
        self.offset = offset
        self.opcode = TABLESWITCH
        self.operand = None
        self.wide = False
        self.default = default
        self.low = low
        self.targets = targets
        self.padding = padding

    @property
    def high(self) -> int:
        return self.low + len(self.targets) - 1

    def _operands(self) -> str:
        return f"{self.low}..{self.high} -> {self.targets} default {self.default}"


@mypyc_attr(acyclic=True)
class LookupSwitch(Instruction):
    """``lookupswitch``: ``keys[i]`` jumps to absolute ``targets[i]``; ``padding`` as TableSwitch.

    Keys are kept in file order (JVMS wants them sorted; sorting them here would
    hide a class file's actual content).
    """

    __slots__ = ("default", "keys", "targets", "padding")
    _FIELDS: ClassVar[tuple[str, ...]] = Instruction._FIELDS + ("default", "keys", "targets", "padding")

    def __init__(
        self, offset: int, default: Any, keys: list[int], targets: list[Any], padding: bytes | None = None
    ) -> None:
        self.offset = offset
        self.opcode = LOOKUPSWITCH
        self.operand = None
        self.wide = False
        self.default = default
        self.keys = keys
        self.targets = targets
        self.padding = padding

    def _operands(self) -> str:
        pairs = ", ".join(f"{k}: {t}" for k, t in zip(self.keys, self.targets))
        return f"{{{pairs}}} default {self.default}"


def switch_padding(offset: int) -> int:
    """Number of alignment bytes after a switch opcode at ``offset`` (relative to code start)."""
    return 3 - (offset & 3)


def instruction_length(insn: Instruction, offset: int | None = None) -> int:
    """Size in bytes of ``insn`` if placed at ``offset`` (default: its own offset).

    Only switches depend on the position (their padding).
    """
    op = insn.opcode
    fmt = FORMATS[op]
    if fmt == FMT_TABLESWITCH:
        pos = insn.offset if offset is None else offset
        return 1 + switch_padding(pos) + 12 + 4 * len(insn.targets)  # type: ignore[attr-defined]
    if fmt == FMT_LOOKUPSWITCH:
        pos = insn.offset if offset is None else offset
        return 1 + switch_padding(pos) + 8 + 8 * len(insn.targets)  # type: ignore[attr-defined]
    if insn.wide:
        return 6 if op == IINC else 4
    n = LENGTHS[op]
    if n == 0:
        raise ValueError(f"{opcode_name(op)} is not an instruction")
    return n


# ---------------------------------------------------------------- decoding
# Decoding shape per opcode: FMT_* merged where the bytes look the same, so
# the hot loop tests as few cases as possible, most frequent first.
# bipush and sipush (~3% of instructions) have shapes of their own: through
# _decode_other they cost five times as much as the others.
_D_NONE: Final = 0
_D_U1: Final = 1
_D_U2: Final = 2
_D_BRANCH: Final = 3
_D_BYTE: Final = 4
_D_SHORT: Final = 5
_D_OTHER: Final = 6
_DECODE_SHAPE: Final = tuple(
    _D_NONE
    if f == FMT_NONE
    else _D_U1
    if f in (FMT_LOCAL, FMT_CP1, FMT_NEWARRAY)
    else _D_U2
    if f == FMT_CP2
    else _D_BRANCH
    if f == FMT_BRANCH
    else _D_BYTE
    if f == FMT_BYTE
    else _D_SHORT
    if f == FMT_SHORT
    else _D_OTHER
    for f in FORMATS
)

_S2: Final = struct.Struct(">h")
# True when this module runs compiled by mypyc (see decode_instructions)
_COMPILED: Final = __file__.endswith((".so", ".pyd"))
_S4: Final = struct.Struct(">i")
_III: Final = struct.Struct(">iii")
_II: Final = struct.Struct(">ii")
_HH: Final = struct.Struct(">HH")
_Hh: Final = struct.Struct(">Hh")


def decode_instructions(code: bytes) -> list[Instruction]:
    """Decode a Code attribute's code array into instructions with absolute branch targets.

    Raises ClassFormatError (offset = code offset of the instruction) for unknown
    opcodes, truncated operands, ``wide`` before an opcode that has no wide
    form, negative lookupswitch npairs, tableswitch low > high, and branch or
    switch targets that are not the start of an instruction in this code.
    """
    n = len(code)
    out: list[Instruction] = []
    append = out.append
    shapes = _DECODE_SHAPE
    Insn = Instruction
    # object.__new__ plus slot stores is ~25% cheaper than calling __init__ when interpreted;
    # worth it for the shapes that make up ~85% of all instructions. (Compiled by mypyc,
    # Instruction is a native class: calling it is the fast way, and the only one.)
    new = object.__new__
    compiled = _COMPILED
    NONE, U1, U2, BRANCH, BYTE, SHORT = _D_NONE, _D_U1, _D_U2, _D_BRANCH, _D_BYTE, _D_SHORT
    lengths = LENGTHS
    jumps: list[Instruction] = []  # instructions whose targets must be checked at the end
    pos = 0
    operand: int | None
    try:
        while pos < n:
            op = code[pos]
            shape = shapes[op]
            if shape == NONE:
                operand = None
                size = 1
            elif shape == U2:
                operand = (code[pos + 1] << 8) | code[pos + 2]
                size = 3
            elif shape == U1:
                operand = code[pos + 1]
                size = 2
            elif shape == BRANCH:
                delta = (code[pos + 1] << 8) | code[pos + 2]
                operand = pos + delta - 0x10000 if delta & 0x8000 else pos + delta
                size = 3
            elif shape == BYTE:
                v = code[pos + 1]
                operand = v - 256 if v > 127 else v
                size = 2
            elif shape == SHORT:
                v = (code[pos + 1] << 8) | code[pos + 2]
                operand = v - 0x10000 if v & 0x8000 else v
                size = 3
            else:
                insn = _decode_other(code, pos, op)
                append(insn)
                if op in JUMP_OPCODES:
                    jumps.append(insn)
                # fixed-size opcodes from the table; switches and wide forms (0 there) computed
                pos += lengths[op] or instruction_length(insn, pos)
                continue
            if compiled:
                insn = Instruction(pos, op, operand, False)  # (the class itself: a direct call)
            else:
                insn = new(Insn)
                insn.offset = pos
                insn.opcode = op
                insn.operand = operand
                insn.wide = False
            append(insn)
            if shape == BRANCH:
                jumps.append(insn)
            pos += size
    except (IndexError, struct.error):
        raise ClassFormatError(
            f"truncated {opcode_name(code[pos])} instruction at the end of the code (length {n})", offset=pos
        ) from None
    if jumps:
        _check_targets(out, jumps, n)
    return out


def _decode_other(code: bytes, pos: int, op: int) -> Instruction:
    """The rarer formats, out of the hot loop. IndexError/struct.error mean truncation."""
    fmt = FORMATS[op]
    if fmt == FMT_IINC:
        inc = code[pos + 2]
        return Iinc(pos, code[pos + 1], inc - 256 if inc > 127 else inc)
    if fmt == FMT_INVOKEINTERFACE:
        return InvokeInterface(pos, (code[pos + 1] << 8) | code[pos + 2], code[pos + 3], code[pos + 4])
    if fmt == FMT_INVOKEDYNAMIC:
        index, reserved = _HH.unpack_from(code, pos + 1)
        return InvokeDynamic(pos, index, reserved)
    if fmt == FMT_BYTE:
        v = code[pos + 1]
        return Instruction(pos, op, v - 256 if v > 127 else v)
    if fmt == FMT_SHORT:
        return Instruction(pos, op, _S2.unpack_from(code, pos + 1)[0])
    if fmt == FMT_BRANCH_W:
        return Instruction(pos, op, pos + _S4.unpack_from(code, pos + 1)[0])
    if fmt == FMT_MULTIANEWARRAY:
        return MultiANewArray(pos, (code[pos + 1] << 8) | code[pos + 2], code[pos + 3])
    if fmt == FMT_TABLESWITCH or fmt == FMT_LOOKUPSWITCH:
        return _decode_switch(code, pos, op)
    if fmt == FMT_WIDE:
        real = code[pos + 1]
        if real not in WIDENABLE:
            raise ClassFormatError(f"wide before {opcode_name(real)}, which has no wide form", offset=pos)
        if real == IINC:
            index, inc = _Hh.unpack_from(code, pos + 2)
            return Iinc(pos, index, inc, True)
        return Instruction(pos, real, (code[pos + 2] << 8) | code[pos + 3], True)
    assert fmt == FMT_INVALID
    raise ClassFormatError(f"unknown opcode {op}", offset=pos)


def _decode_switch(code: bytes, pos: int, op: int) -> Instruction:
    n = len(code)
    start = pos + 1
    p = start + switch_padding(pos)
    if p > n:
        raise IndexError
    padding = bytes(code[start:p]) if any(code[start:p]) else None
    if op == TABLESWITCH:
        default, low, high = _III.unpack_from(code, p)
        if low > high:
            raise ClassFormatError(f"tableswitch low {low} > high {high}", offset=pos)
        count = high - low + 1
        p += 12
        if p + 4 * count > n:
            raise IndexError
        targets = [pos + t for t in struct.unpack_from(f">{count}i", code, p)]
        return TableSwitch(pos, pos + default, low, targets, padding)
    default, npairs = _II.unpack_from(code, p)
    if npairs < 0:
        raise ClassFormatError(f"lookupswitch npairs {npairs} < 0", offset=pos)
    p += 8
    if p + 8 * npairs > n:
        raise IndexError
    flat = struct.unpack_from(f">{2 * npairs}i", code, p)
    return LookupSwitch(pos, pos + default, list(flat[0::2]), [pos + t for t in flat[1::2]], padding)


def _targets_of(insn: Instruction) -> Sequence[int]:
    if isinstance(insn, (TableSwitch, LookupSwitch)):
        return [insn.default, *insn.targets]
    return (insn.operand,)


_offset_of = attrgetter("offset")


def _check_targets(insns: Sequence[Instruction], jumps: list[Instruction], code_length: int) -> None:
    if _COMPILED:
        starts = {insn.offset for insn in insns}  # (native attribute reads)
    else:
        starts = set(map(_offset_of, insns))  # (map + attrgetter: the loop runs in C)
    for insn in jumps:
        if type(insn) is Instruction and insn.operand in starts:  # the usual branch, quickly
            continue
        for t in _targets_of(insn):
            if t not in starts:
                where = "outside the code" if not 0 <= t < code_length else "not at an instruction start"
                raise ClassFormatError(
                    f"{insn.name} target {t} is {where} (code length {code_length})", offset=insn.offset
                )


# ---------------------------------------------------------------- encoding
_E_NONE: Final = 0
_E_LOCAL: Final = 1
_E_CP2: Final = 2
_E_U1: Final = 3
_E_BRANCH: Final = 4
_E_BYTE: Final = 5
_E_SHORT: Final = 6
_E_OTHER: Final = 7
_ENCODE_SHAPE: Final = tuple(
    _E_NONE
    if f == FMT_NONE
    else _E_LOCAL
    if f == FMT_LOCAL
    else _E_CP2
    if f == FMT_CP2
    else _E_U1
    if f in (FMT_CP1, FMT_NEWARRAY)
    else _E_BRANCH
    if f == FMT_BRANCH
    else _E_BYTE
    if f == FMT_BYTE
    else _E_SHORT
    if f == FMT_SHORT
    else _E_OTHER
    for f in FORMATS
)

_BB: Final = struct.Struct(">BB")
_Bh: Final = struct.Struct(">Bh")
_Bb: Final = struct.Struct(">Bb")
_Bi: Final = struct.Struct(">Bi")
_BBH: Final = struct.Struct(">BBH")
_BBHh: Final = struct.Struct(">BBHh")
_BBb: Final = struct.Struct(">BBb")
_BHBB: Final = struct.Struct(">BHBB")
_BHH: Final = struct.Struct(">BHH")
_BHB: Final = struct.Struct(">BHB")


def encode_instructions(insns: Iterable[Instruction]) -> bytes:
    """Encode instructions, each at its own ``offset``, into a code array.

    The layout is exactly the instructions' offsets: each must equal the
    running length (raise otherwise), because branch targets are absolute and
    the caller (who computed the layout) must decide how to fix a mismatch.
    Operands out of range for the chosen form (ldc index > 255, local > 255
    without wide, goto distance beyond +-32767, ...) and branch targets that are
    not instruction starts raise ClassFormatError with the instruction's offset.
    """
    if not isinstance(insns, (list, tuple)):
        insns = list(insns)
    buf = bytearray()
    append = buf.append  # bytearray.append range-checks 0..255, which is the check we need
    shapes = _ENCODE_SHAPE
    NONE, LOCAL, CP2, U1, BRANCH = _E_NONE, _E_LOCAL, _E_CP2, _E_U1, _E_BRANCH
    BYTE, SHORT = _E_BYTE, _E_SHORT
    pack_Bh, pack_BBH, pack_Bb = _Bh.pack, _BBH.pack, _Bb.pack
    jumps: list[Instruction] = []
    pos = 0
    insn: Instruction | None = None
    v: int  # (an operand; typed for mypyc: None or another type raises TypeError, reported below)
    try:
        for insn in insns:
            if insn.offset != pos:
                raise ClassFormatError(
                    f"{insn.name} has offset {insn.offset} but would be written at {pos}", offset=pos
                )
            op = insn.opcode
            shape = shapes[op]
            if shape == NONE:
                append(op)
                pos += 1
            elif shape == CP2:
                v = insn.operand
                append(op)
                append(v >> 8)
                append(v & 0xFF)
                pos += 3
            elif shape == LOCAL:
                if insn.wide:
                    buf += pack_BBH(WIDE, op, insn.operand)
                    pos += 4
                else:
                    append(op)
                    append(insn.operand)
                    pos += 2
            elif shape == BRANCH:
                buf += pack_Bh(op, insn.operand - pos)
                jumps.append(insn)
                pos += 3
            elif shape == U1:
                append(op)
                append(insn.operand)
                pos += 2
            elif shape == BYTE:
                buf += pack_Bb(op, insn.operand)
                pos += 2
            elif shape == SHORT:
                buf += pack_Bh(op, insn.operand)
                pos += 3
            else:
                _encode_other(buf, insn, pos, op)
                if op in JUMP_OPCODES:
                    jumps.append(insn)
                pos = len(buf)
    except (struct.error, TypeError, AttributeError, IndexError, ValueError) as e:
        assert insn is not None
        raise ClassFormatError(f"cannot encode {insn!r}: {_explain(insn, e)}", offset=pos) from None
    if jumps:
        _check_targets(insns, jumps, pos)
    return bytes(buf)


def encode_at(buf: bytearray, insn: Instruction, pos: int) -> None:
    """Append ``insn``, placed at code offset ``pos``, to ``buf``: :func:`encode_instructions`' encoding
    of one instruction, without its offset and branch-target checks.

    Why: an assembler that knows every position already (the code editor's) writes its code in one
    pass instead of building a concrete instruction object per item first. Bad operands raise what
    the packers raise (``struct.error``, ``ValueError``, ``TypeError``, ``AttributeError``).
    """
    op = insn.opcode
    shape = _ENCODE_SHAPE[op]
    if shape == _E_NONE:
        buf.append(op)
    elif shape == _E_CP2:
        v = insn.operand
        buf.append(op)
        buf.append(v >> 8)
        buf.append(v & 0xFF)
    elif shape == _E_LOCAL:
        if insn.wide:
            buf += _BBH.pack(WIDE, op, insn.operand)
        else:
            buf.append(op)
            buf.append(insn.operand)
    elif shape == _E_BRANCH:
        buf += _Bh.pack(op, insn.operand - pos)
    elif shape == _E_U1:
        buf.append(op)
        buf.append(insn.operand)
    elif shape == _E_BYTE:
        buf += _Bb.pack(op, insn.operand)
    elif shape == _E_SHORT:
        buf += _Bh.pack(op, insn.operand)
    else:
        _encode_other(buf, insn, pos, op)


def _explain(insn: Instruction, e: Exception) -> str:
    op = getattr(insn, "opcode", None)
    if not isinstance(op, int) or not 0 <= op < 256:
        return f"not an instruction ({e})"
    fmt = FORMATS[op]
    if isinstance(e, (struct.error, ValueError)):
        if fmt in (FMT_BRANCH, FMT_BRANCH_W):
            return "branch distance out of range for this form (use goto_w/jsr_w or a trampoline)"
        if fmt in (FMT_LOCAL, FMT_IINC) and not insn.wide:
            return "operand out of range (needs wide)"
        if fmt == FMT_CP1:
            return "constant-pool index out of range for ldc (use ldc_w)"
        return f"operand out of range ({e})"
    if isinstance(e, AttributeError):
        return f"wrong instruction class {type(insn).__name__} for this opcode"
    return str(e)


def _encode_other(buf: bytearray, insn: Any, pos: int, op: int) -> None:
    """The rarer formats, out of the hot loop; struct.error/AttributeError mean bad operands."""
    fmt = FORMATS[op]
    if fmt == FMT_IINC:
        if insn.wide:
            buf += _BBHh.pack(WIDE, op, insn.operand, insn.increment)
        else:
            buf += _BBb.pack(op, insn.operand, insn.increment)
    elif fmt == FMT_INVOKEINTERFACE:
        buf += _BHBB.pack(op, insn.operand, insn.count, insn.reserved)
    elif fmt == FMT_INVOKEDYNAMIC:
        buf += _BHH.pack(op, insn.operand, insn.reserved)
    elif fmt == FMT_BYTE:
        buf += _Bb.pack(op, insn.operand)
    elif fmt == FMT_SHORT:
        buf += _Bh.pack(op, insn.operand)
    elif fmt == FMT_BRANCH_W:
        buf += _Bi.pack(op, insn.operand - pos)
    elif fmt == FMT_MULTIANEWARRAY:
        buf += _BHB.pack(op, insn.operand, insn.dims)
    elif fmt == FMT_TABLESWITCH or fmt == FMT_LOOKUPSWITCH:
        _encode_switch(buf, insn, pos, op)
    elif fmt == FMT_WIDE:
        raise ClassFormatError(
            "a bare wide prefix is not an instruction (set .wide on the widened instruction instead)", offset=pos
        )
    else:
        raise ClassFormatError(f"unknown opcode {op}", offset=pos)


def _encode_switch(buf: bytearray, insn: Any, pos: int, op: int) -> None:
    buf.append(op)
    pad = switch_padding(pos)
    padding = insn.padding
    if padding is None:
        buf += bytes(pad)
    elif len(padding) != pad:
        raise ClassFormatError(f"{insn.name} at {pos} needs {pad} padding bytes, has {len(padding)}", offset=pos)
    else:
        buf += padding
    targets = insn.targets
    rel = [t - pos for t in targets]
    if op == TABLESWITCH:
        if not targets:
            raise ClassFormatError("tableswitch without targets (low > high)", offset=pos)
        low = insn.low
        buf += _III.pack(insn.default - pos, low, low + len(targets) - 1)
        buf += struct.pack(f">{len(rel)}i", *rel)
    else:
        keys = insn.keys
        if len(keys) != len(targets):
            raise ClassFormatError(f"lookupswitch has {len(keys)} keys but {len(targets)} targets", offset=pos)
        buf += _II.pack(insn.default - pos, len(keys))
        flat = [0] * (2 * len(keys))
        flat[0::2] = keys
        flat[1::2] = rel
        buf += struct.pack(f">{len(flat)}i", *flat)
