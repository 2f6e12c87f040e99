"""From an editable :class:`CodeBody` back to a Code attribute: layout, widening, tables, frames.

Layout is a fixed point: every branch starts short; any branch whose
displacement no longer fits in 16 bits is widened (``goto`` -> ``goto_w``,
``jsr`` -> ``jsr_w``, a conditional branch -> the inverted branch over a
``goto_w``), which can push other branches out of range, so layout repeats
until nothing changes (sizes only grow, so it ends). Local-variable
instructions get their shortest form (``aload_0``, ``aload 7``, ``wide aload
300``), ``ldc`` becomes ``ldc_w`` past index 255.

A widened conditional branch creates a new branch target right after the
``goto_w``, which needs a frame in class files with StackMapTables; the
caller supplies those through ``frame_after`` (the types after the original
branch instruction), usually from :mod:`jprewrite.analysis.typeflow`.

Code longer than 65535 bytes raises :class:`CodeTooLargeError`, which callers
catch to keep the original method.
"""

from __future__ import annotations

import struct
from collections.abc import Callable
from typing import Final

from ..classfile import attributes as A
from ..classfile import opcodes as op
from ..classfile.code import CodeAttribute, ExceptionHandler, StackMapTable
from ..classfile.constants import ConstantPool
from ..classfile.frames import Frame, Uninitialized
from ..classfile.instructions import (
    FRAGMENT_OPCODE,
    Fragment,
    Instruction,
    LookupSwitch,
    TableSwitch,
    encode_at,
    switch_padding,
)
from ..errors import ClassFormatError, JprewriteError
from .body import CodeBody, Label
from .stack import stack_effect

MAX_CODE_LENGTH: Final = 65535


class CodeTooLargeError(JprewriteError):
    """The edited code does not fit in 65535 bytes; keep the original method."""


class AssemblyError(JprewriteError):
    """The body cannot be written (a label not placed, a frame that is needed but unknown...)."""


FrameAfter = Callable[[int], Frame]

_BBb: Final = struct.Struct(">BBb")
_BBHh: Final = struct.Struct(">BBHh")


# How the assembler sizes and writes each opcode: most have one fixed form; local-variable
# instructions, iinc, ldc and branches get their form from their operands (and from layout),
# switches their padding from their position.
_K_FIXED: Final = 0
_K_LOCAL: Final = 1
_K_IINC: Final = 2
_K_LDC: Final = 3
_K_BRANCH: Final = 4
_K_SWITCH: Final = 5
_K_BAD: Final = 6
_KIND: Final[tuple[int, ...]] = tuple(
    _K_LOCAL
    if o in op.LOCAL_SLOT_OPCODES
    else _K_IINC
    if o == op.IINC
    else _K_LDC
    if o == op.LDC
    else _K_BRANCH
    if o in op.BRANCH_OPCODES
    else _K_SWITCH
    if o in (op.TABLESWITCH, op.LOOKUPSWITCH)
    else _K_FIXED
    if op.LENGTHS[o] > 0
    else _K_BAD
    for o in range(256)
)
_LONG_GOTOS: Final = frozenset((op.GOTO, op.JSR, op.GOTO_W, op.JSR_W))
# by opcode, for the encoder's loop (list reads: compiled, a set or dict lookup is a call):
# the slots a local-variable instruction reaches, and the first short form (``xload_0``)
_LOCAL_WIDTH: Final[list[int]] = [2 if o in op.TWO_SLOT_LOCAL_OPCODES else 1 for o in range(256)]
_SHORT_BASE: Final[list[int]] = [op.SHORT_FORM_BASE.get(o, -1) for o in range(256)]


def _size(insn: Instruction, pos: int, long: bool) -> int:
    o = insn.opcode
    kind = _KIND[o]
    if kind == _K_FIXED:
        return op.LENGTHS[o]
    if kind == _K_LOCAL:
        slot = insn.operand
        if slot <= 3 and o != op.RET:
            return 1
        return 2 if slot <= 255 else 4
    if kind == _K_IINC:
        return 3 if insn.operand <= 255 and -128 <= insn.increment <= 127 else 6  # type: ignore
    if kind == _K_LDC:
        return 2 if insn.operand <= 255 else 3
    if kind == _K_BRANCH:
        if not long:
            return 3
        return 5 if o in _LONG_GOTOS else 8
    if o == op.TABLESWITCH:
        return 1 + switch_padding(pos) + 12 + 4 * len(insn.targets)  # type: ignore[attr-defined]
    if o == op.LOOKUPSWITCH:
        return 1 + switch_padding(pos) + 8 + 8 * len(insn.targets)  # type: ignore[attr-defined]
    if isinstance(insn, Fragment):
        return len(insn.code)
    raise AssemblyError(f"cannot assemble opcode {o}")


def layout(body: CodeBody, *, limit: bool = True) -> tuple[list[int], set[int]]:
    """Offsets of every item (labels get their offset set) and the indices of widened branches.

    ``limit=False``: no CodeTooLargeError (sizes of a body that is being split to fit).
    """
    positions, long, _ = _layout(body, limit)
    return positions, long


def _layout(body: CodeBody, limit: bool) -> tuple[list[int], set[int], int]:
    """:func:`layout`, and the code length."""
    items = body.items
    long: set[int] = set()
    kinds, lengths = _KIND, op.LENGTHS
    fixed, local, branch = _K_FIXED, _K_LOCAL, _K_BRANCH
    ret = op.RET
    positions = [0] * len(items)
    # (the annotated locals let mypyc, when it compiles this module, keep them as machine integers)
    pos: int
    slot: int
    while True:
        pos = 0
        branches: list[int] = []
        # the common sizes inline: this loop runs over every item of every body written
        for i, item in enumerate(items):
            positions[i] = pos
            if isinstance(item, Label):
                item.offset = pos
                continue
            o = item.opcode
            kind = kinds[o]
            if kind == fixed:
                pos += lengths[o]
            elif kind == local:
                slot = item.operand
                pos += 1 if slot <= 3 and o != ret else 2 if slot <= 255 else 4
            elif kind == branch:
                branches.append(i)
                pos += 3 if not long or i not in long else 5 if o in _LONG_GOTOS else 8
            else:
                pos += _size(item, pos, i in long)
        changed = False
        for i in branches:
            if i in long:
                continue
            target: object = items[i].operand  # type: ignore[union-attr]
            if not isinstance(target, Label) or target.offset < 0:
                raise AssemblyError(f"branch {items[i]!r} targets a label that is not in the code")
            if not -32768 <= target.offset - positions[i] <= 32767:
                long.add(i)
                changed = True
        if not changed:
            if limit and pos > MAX_CODE_LENGTH:
                raise CodeTooLargeError(f"code is {pos} bytes, over the JVM's limit of 65535")
            return positions, long, pos


_ENCODE_ERRORS: Final = (struct.error, TypeError, AttributeError, IndexError, ValueError)


def _encode(
    body: CodeBody,
    positions: list[int],
    long: set[int],
    size: int,
) -> tuple[bytes, int]:
    """The code array of the laid-out body, and max_locals (computed on the way).

    Each item is written in the form layout gave it, straight into the array (no concrete
    instruction objects in between); the bytes are those :func:`encode_instructions` makes of
    the concrete instructions. Items written as they are get their offset set, as concrete ones.

    The array is built as a list of ints (compiled, an append to a typed list is a native call;
    to a ``bytearray`` it is a call by name, once per byte of every method the rewriting
    writes); the rarer forms are written by the shared encoders into a small ``bytearray``
    each. Every value is checked where a ``bytearray`` would have refused it.
    """
    out: list[int] = []
    placed: list[int] = []  # item indices of the instructions written as they are
    top = body.max_locals
    kinds = _KIND
    fixed, local, branch = _K_FIXED, _K_LOCAL, _K_BRANCH
    ret, width, short_base = op.RET, _LOCAL_WIDTH, _SHORT_BASE
    none_shape = op.FMT_NONE
    formats = op.FORMATS
    cp2 = op.FMT_CP2
    targets: list[int] = []  # every jump target offset, checked at the end
    item: Instruction | Label | None = None
    pos = 0
    # (typed for mypyc, as in _layout; a wrong operand type raises TypeError there, reported below)
    v: int
    slot: int
    end: int
    target: int
    d: int
    label: Label
    frag: Fragment
    try:
        for i, item in enumerate(body.items):
            if isinstance(item, Label):
                continue
            pos = positions[i]
            o = item.opcode
            kind = kinds[o]
            if kind == fixed:
                placed.append(i)
                f = formats[o]
                if f == none_shape:
                    out.append(o)
                elif f == cp2:
                    v = item.operand
                    if v >> 16:
                        raise ValueError(f"constant-pool index {v} does not fit in 16 bits")
                    out.append(o)
                    out.append(v >> 8)
                    out.append(v & 0xFF)
                else:
                    rare = bytearray()
                    encode_at(rare, item, pos)
                    out += rare
            elif kind == local:
                slot = item.operand
                if slot < 0 or slot > 0xFFFF:
                    raise ValueError(f"local slot {slot} out of range")
                end = slot + width[o]
                if end > top:
                    top = end
                if slot <= 3 and o != ret:
                    out.append(short_base[o] + slot)
                elif slot > 255:
                    out.append(op.WIDE)
                    out.append(o)
                    out.append(slot >> 8)
                    out.append(slot & 0xFF)
                else:
                    out.append(o)
                    out.append(slot)
            elif kind == branch:
                label = item.operand
                target = label.offset
                targets.append(target)
                d = target - pos
                if not long or i not in long:
                    if not -0x8000 <= d <= 0x7FFF:
                        raise ValueError(f"branch offset {d} does not fit in 16 bits")
                    out.append(o)
                    out.append((d >> 8) & 0xFF)
                    out.append(d & 0xFF)
                elif o == op.GOTO or o == op.GOTO_W or o == op.JSR or o == op.JSR_W:
                    out.append(op.GOTO_W if o == op.GOTO or o == op.GOTO_W else op.JSR_W)
                    out.append((d >> 24) & 0xFF)
                    out.append((d >> 16) & 0xFF)
                    out.append((d >> 8) & 0xFF)
                    out.append(d & 0xFF)
                else:  # the inverse condition over a goto_w: 3 + 5 bytes
                    d -= 3
                    out.append(op.INVERSE_BRANCHES[o])
                    out.append(0)
                    out.append(8)
                    out.append(op.GOTO_W)
                    out.append((d >> 24) & 0xFF)
                    out.append((d >> 16) & 0xFF)
                    out.append((d >> 8) & 0xFF)
                    out.append(d & 0xFF)
            elif o == FRAGMENT_OPCODE:  # a counter at nearly every block
                frag = item  # type: ignore[assignment]
                out += frag.code
                if frag.max_locals > top:
                    top = frag.max_locals
            else:
                rare = bytearray()
                top = _encode_rare(rare, item, pos, top, targets)
                out += rare
    except _ENCODE_ERRORS as e:
        raise ClassFormatError(f"cannot encode {item!r}: {e}", offset=pos) from None
    # their offsets, from the last one back: an object that is in the body twice (``[nop] * n``)
    # keeps the offset of its first place
    items = body.items
    done: Instruction  # (typed: a native attribute write, compiled)
    for k in range(len(placed) - 1, -1, -1):
        i = placed[k]
        done = items[i]  # type: ignore[assignment]  # (placed: instructions only)
        done.offset = positions[i]
    n = len(out)
    if n != size:
        raise AssemblyError(f"the code was laid out in {size} bytes but written in {n}")
    for t in targets:
        if not 0 <= t < n:
            raise ClassFormatError(f"a jump target {t} is outside the code (code length {n})")
    return bytes(out), top


def _encode_rare(buf: bytearray, item: Instruction, pos: int, top: int, targets: list[int]) -> int:
    """iinc, ldc and the switches for :func:`_encode`; returns max_locals so far."""
    o = item.opcode
    if o == op.IINC:
        slot, inc = item.operand, item.increment  # type: ignore[attr-defined]
        if slot + 1 > top:
            top = slot + 1
        if not -32768 <= inc <= 32767:
            raise AssemblyError(f"iinc increment {inc} does not fit in 16 bits")
        if slot <= 255 and -128 <= inc <= 127:
            buf += _BBb.pack(op.IINC, slot, inc)
        else:
            buf += _BBHh.pack(op.WIDE, op.IINC, slot, inc)
    elif o == op.LDC:
        index = item.operand
        if index <= 255:
            buf.append(op.LDC)
            buf.append(index)
        else:
            buf.append(op.LDC_W)
            buf.append(index >> 8)
            buf.append(index & 0xFF)
    elif isinstance(item, TableSwitch):
        offsets = [t.offset for t in item.targets]
        targets.append(item.default.offset)
        targets.extend(offsets)
        encode_at(buf, TableSwitch(pos, item.default.offset, item.low, offsets), pos)
    elif isinstance(item, LookupSwitch):
        pairs = sorted(zip(item.keys, (t.offset for t in item.targets)))
        targets.append(item.default.offset)
        targets.extend(t for _, t in pairs)
        encode_at(buf, LookupSwitch(pos, item.default.offset, [k for k, _ in pairs], [t for _, t in pairs]), pos)
    elif isinstance(item, Fragment):
        buf += item.code
        if item.max_locals > top:
            top = item.max_locals
    else:
        raise AssemblyError(f"cannot assemble opcode {o}")
    return top


_NEUTRAL: Final = (0, 0)

# What an opcode does to the flow, for compute_max_stack: one table lookup per instruction.
_C_NEXT: Final = 0
_C_BRANCH: Final = 1
_C_GOTO: Final = 2
_C_JSR: Final = 3
_C_SWITCH: Final = 4
_C_END: Final = 5
_CONTROL: Final[tuple[int, ...]] = tuple(
    _C_GOTO
    if o in op.GOTO_OPCODES
    else _C_JSR
    if o in op.JSR_OPCODES
    else _C_BRANCH
    if o in op.BRANCH_OPCODES
    else _C_SWITCH
    if o in op.SWITCH_OPCODES
    else _C_END
    if o in op.UNCONDITIONAL_OPCODES
    else _C_NEXT
    for o in range(256)
)


# id(pool) -> (the pool, its cache); the pool is held so that its id is not reused (not weakly:
# compiled by mypyc, the pool cannot be weakly referenced), and the few most recent are kept
_EFFECTS: Final[dict[int, tuple[ConstantPool, dict[int, tuple[int, int]]]]] = {}


def _effects_cache(pool: ConstantPool) -> dict[int, tuple[int, int]]:
    """Stack effects of pool-dependent instructions, kept per pool: every method of a class asks
    about the same few hundred field and method references, and each answer parses a descriptor.
    (Pools only grow while a class is edited, so an index keeps its meaning.) Keyed by an int
    (operand and opcode; ``multianewarray``'s dimensions, negative), not a tuple to allocate."""
    entry = _EFFECTS.get(id(pool))
    if entry is None:
        if len(_EFFECTS) >= 8:
            _EFFECTS.clear()
        entry = _EFFECTS[id(pool)] = (pool, {})
    return entry[1]


def _pool_effect(insn: Instruction, pool: ConstantPool, effects: dict[int, tuple[int, int]]) -> tuple[int, int]:
    """The stack effect of an instruction whose effect the pool decides, from the pool's cache
    (:func:`_effects_cache`), computed on first need."""
    o = insn.opcode
    key: int
    if o != op.MULTIANEWARRAY:
        key = (insn.operand << 8) | o
    else:
        key = -1 - ((insn.operand << 8) | insn.dims)  # type: ignore[attr-defined]
    eff = effects.get(key)
    if eff is None:
        eff = effects[key] = stack_effect(insn, pool)
    return eff


def compute_max_stack(body: CodeBody, pool: ConstantPool) -> int:
    """Largest operand-stack depth (in slots) anywhere in the code, handlers and dead code included.

    Flow starts at the entry, at every handler and at every frame: the type-checking verifier
    checks every instruction, dead code included, continuing from the frame that must follow an
    unconditional transfer. Code inserted into a dead block that has a frame (ASM's
    COMPUTE_FRAMES writes ``nop…athrow`` with ``[Throwable]`` on the stack there) must fit in
    ``max_stack`` although no path from the entry reaches it.
    """
    return _max_stack(body, pool)


def _instructions_and_labels(body: CodeBody) -> tuple[list[Instruction], dict[int, int]]:
    """The instructions alone, and for each label the index of the instruction it stands before
    (what the work list walks)."""
    insns: list[Instruction] = []
    label_at: dict[int, int] = {}
    for item in body.items:
        if isinstance(item, Label):
            label_at[id(item)] = len(insns)
        else:
            insns.append(item)
    return insns, label_at


def encode_straight(items: list[Instruction | Label], pool: ConstantPool) -> tuple[bytes, int, int, int]:
    """``items``, straight-line code that falls through, encoded as the assembler would anywhere
    (local and ``ldc`` forms do not depend on position): the bytes, the stack's depth after them
    and their peak (both relative to the depth they start at), and the locals they reach
    (max_locals for them alone).

    For generated code whose shape is known (a wrapper's head, a call with its arguments): its
    bytes go straight into a Code attribute, past labels, layout and the stack-depth flow.
    Raises AssemblyError for a label, a branch, a switch, a return, ``athrow``, ``jsr``, or
    code that takes values it did not push.
    """
    depth = 0
    peak = 0
    for insn in items:
        if isinstance(insn, Label) or isinstance(insn, Fragment) or _CONTROL[insn.opcode] != _C_NEXT:
            raise AssemblyError(f"straight-line code falls through, not {insn!r}")
        pops, pushes = stack_effect(insn, pool)
        depth -= pops
        if depth < 0:
            raise AssemblyError(f"straight-line code takes nothing from the stack it found: {insn!r} does")
        depth += pushes
        if depth > peak:
            peak = depth
    body = CodeBody(items=list(items), max_locals=0)
    positions, long, size = _layout(body, False)
    code, max_locals = _encode(body, positions, long, size)
    return code, depth, peak, max_locals


def make_fragment(items: list[Instruction | Label], pool: ConstantPool) -> Fragment:
    """``items`` encoded once as a :class:`~jprewrite.classfile.instructions.Fragment`, in the forms
    the assembler would give them anywhere (local and ``ldc`` forms do not depend on position).

    Raises AssemblyError for what a fragment cannot be: a label, a branch, a switch, a return,
    ``athrow``, ``jsr``, code that takes values it did not push or leaves the stack deeper. That
    every local keeps its type is the caller's promise (the type flow steps over fragments).
    """
    code, depth, peak, max_locals = encode_straight(items, pool)
    if depth:
        raise AssemblyError(f"a fragment leaves the stack as deep as it found it, not {depth} slots deeper")
    return Fragment(code, peak, max_locals)


def _max_stack(body: CodeBody, pool: ConstantPool) -> int:
    """:func:`compute_max_stack`: one pass in code order, the work list where that cannot tell
    (rare: ``jsr``, old code; only then are the instructions and label positions collected)."""
    best = max_stack_in_order(body, pool)
    if best >= 0:
        return best
    insns, label_at = _instructions_and_labels(body)
    return _max_stack_by_flow(body, pool, insns, label_at)


def max_stack_by_flow(body: CodeBody, pool: ConstantPool) -> int:
    """:func:`compute_max_stack` by the work list alone (what :func:`max_stack_in_order` is checked against)."""
    insns, label_at = _instructions_and_labels(body)
    return _max_stack_by_flow(body, pool, insns, label_at)


def max_stack_in_order(body: CodeBody, pool: ConstantPool) -> int:
    """:func:`compute_max_stack` in one pass in code order, or -1 where that cannot tell.

    The JVM requires every path to an instruction to bring the same stack depth (JVMS 4.10.1.4,
    4.10.2.2), so the depth falls through from the instruction before; after a jump, a return
    or a throw it comes from a label whose depth is known: a forward branch's target, a
    handler (one slot) or a frame's stack. Code that a transfer ends in front of a label known
    no other way (a target only of backward branches without a frame: code below version 50),
    ``jsr`` (whose subroutine returns to the instruction after it), or a depth below zero, is
    left to :func:`max_stack_by_flow`, the work list. Whichever answers, the answer is the same
    for code the JVM accepts; one pass costs a third of the work list's time per instruction, and
    every method a rewriting writes passes through here.
    """
    effects = _effects_cache(pool)
    fixed = op.STACK_EFFECTS
    control = _CONTROL
    fragment = FRAGMENT_OPCODE
    known: dict[int, int] = {}  # id(label) -> the depth there
    for h in body.handlers:
        known[id(h.handler)] = 1
    for label, frame in body.frames.items():
        known[id(label)] = sum(2 if t.tag in (3, 4) else 1 for t in frame.stack)
    depth: int = 0
    best: int = 0
    after: int
    d: int | None
    eff: tuple[int, int] | None
    falls = True  # the previous instruction falls through to this place
    for item in body.items:
        if isinstance(item, Label):
            if not falls:
                d = known.get(id(item))
                if d is not None:
                    depth = d
                    falls = True
                    if depth > best:
                        best = depth
            continue
        if not falls:
            return -1
        o = item.opcode
        eff = fixed[o]
        if eff is None:
            if o == fragment:  # neutral: back at the depth it started at
                if depth + item.peak > best:  # type: ignore[attr-defined]
                    best = depth + item.peak  # type: ignore[attr-defined]
                continue
            eff = _pool_effect(item, pool, effects)
        after = depth - eff[0]
        if after < 0:
            return -1
        after += eff[1]
        if after > best:
            best = after
        c = control[o]
        if c:
            if c == _C_SWITCH:
                for t in (item.default, *item.targets):  # type: ignore[attr-defined]
                    known.setdefault(id(t), after)
                falls = False
            elif c == _C_JSR:
                return -1
            elif c == _C_END:
                falls = False
            else:
                known.setdefault(id(item.operand), after)
                if c == _C_GOTO:
                    falls = False
        depth = after
    return best


def _max_stack_by_flow(body: CodeBody, pool: ConstantPool, insns: list[Instruction], label_at: dict[int, int]) -> int:
    """:func:`compute_max_stack` by a work list over every path from the entry, the handlers and
    the frames; ``insns`` and ``label_at`` as :func:`_encode` gives them."""
    n = len(insns)
    effects = _effects_cache(pool)
    fixed = op.STACK_EFFECTS

    depth_at = [-(1 << 30)] * n  # (below any depth, even that of broken code)
    work: list[tuple[int, int]] = [(0, 0)]
    for h in body.handlers:
        work.append((label_at[id(h.handler)], 1))
    for label, frame in body.frames.items():
        at = label_at.get(id(label))
        if at is not None:
            work.append((at, sum(2 if t.tag in (3, 4) else 1 for t in frame.stack)))
    best = 0
    control = _CONTROL
    fragment = FRAGMENT_OPCODE
    eff: tuple[int, int] | None
    while work:
        i, depth = work.pop()
        if i >= n or depth_at[i] >= depth:
            continue
        if depth > best:
            best = depth
        # each depth after the first is an ``after`` already counted in ``best``
        while True:
            depth_at[i] = depth
            insn = insns[i]
            o = insn.opcode
            eff = fixed[o]
            if eff is None and o == fragment:  # neutral: back at the depth it started at
                if depth + insn.peak > best:  # type: ignore[attr-defined]
                    best = depth + insn.peak  # type: ignore[attr-defined]
                eff = _NEUTRAL
            if eff is None:
                eff = _pool_effect(insn, pool, effects)
            after = depth - eff[0] + eff[1]
            if after > best:
                best = after
            c = control[o]
            if c:
                if c == _C_SWITCH:
                    for t in (insn.default, *insn.targets):  # type: ignore[attr-defined]
                        work.append((label_at[id(t)], after))
                    break
                if c != _C_END:
                    work.append((label_at[id(insn.operand)], after))
                    if c == _C_GOTO:
                        break
                    if c == _C_JSR:
                        after = depth  # execution resumes after the subroutine returns
                else:
                    break
            depth = after
            i += 1
            if i >= n or depth_at[i] >= depth:
                break
    return best


def _label_offset(label: Label, what: str) -> int:
    if label.offset < 0:
        raise AssemblyError(f"{what} refers to a label that is not in the code")
    return label.offset


def assemble(
    body: CodeBody,
    pool: ConstantPool,
    *,
    frames: bool,
    frame_after: FrameAfter | None = None,
    name_index: int | None = None,
    attribute_order: list[str] | None = None,
    max_stack: int = -1,
) -> CodeAttribute:
    """A new Code attribute for ``body``.

    ``frames``: write a StackMapTable (class files of version 50 and later).
    ``frame_after(i)``: the frame after instruction ``body.items[i]`` (needed only
    when a conditional branch had to be widened).
    ``max_stack``: the caller's bound (:func:`~.stack.peak_depth`), written as it is; without
    one (-1) a depth flow over the code computes it.
    """
    positions, long, size = _layout(body, True)
    code, max_locals = _encode(body, positions, long, size)
    if len(code) > MAX_CODE_LENGTH:
        raise CodeTooLargeError(f"code is {len(code)} bytes, over the JVM's limit of 65535")
    handlers = []
    for h in body.handlers:
        start, end = _label_offset(h.start, "exception handler"), _label_offset(h.end, "exception handler")
        if start < end:  # an emptied range is no range (the JVM rejects start == end)
            handlers.append(ExceptionHandler(start, end, _label_offset(h.handler, "exception handler"), h.catch_type))
    attrs: dict[str, A.Attribute] = {}
    if body.lines or "LineNumberTable" in body.attribute_order:
        lines: list[tuple[int, ...]] = [
            (lab.offset, line) for lab, line in body.lines if lab.offset >= 0
        ]  # javac's order kept
        attrs["LineNumberTable"] = A.LineNumberTable(pool.add_utf8("LineNumberTable"), lines)
    for name, table in (
        ("LocalVariableTable", body.local_variables),
        ("LocalVariableTypeTable", body.local_variable_types),
    ):
        if table or name in body.attribute_order:
            cls = A.LocalVariableTable if name == "LocalVariableTable" else A.LocalVariableTypeTable
            rows: list[tuple[int, ...]] = [
                (v.start.offset, v.end.offset - v.start.offset, v.name_index, v.descriptor_index, v.slot)
                for v in table
                if 0 <= v.start.offset <= v.end.offset
            ]
            attrs[name] = cls(pool.add_utf8(name), rows)
    if frames:
        frame_list = _frames(body, positions, long, frame_after)
        if frame_list:
            smt = StackMapTable(pool.add_utf8("StackMapTable"), b"", None)
            smt.set_frames(frame_list)
            attrs["StackMapTable"] = smt
    for ann_name, group in _type_annotations(body, pool).items():
        attrs[ann_name] = group
    ordered: list[A.Attribute] = []
    for name in attribute_order or []:
        if name in attrs:
            ordered.append(attrs.pop(name))
    ordered.extend(attrs.values())
    ordered.extend(body.other_attributes)
    result = CodeAttribute(
        name_index if name_index is not None else pool.add_utf8("Code"),
        max_stack if max_stack >= 0 else _max_stack(body, pool),
        max_locals,
        code,
        handlers,
        ordered,
    )
    return result


def _frames(body: CodeBody, positions: list[int], long: set[int], frame_after: FrameAfter | None) -> list[Frame]:
    by_offset: dict[int, Frame] = {}
    for label, frame in body.frames.items():
        if label.offset < 0:
            continue  # the label was removed with its code
        if label.offset not in by_offset:
            by_offset[label.offset] = frame
    items = body.items
    for i in sorted(long):
        insn = items[i]
        if insn.opcode in (op.GOTO, op.GOTO_W, op.JSR, op.JSR_W):  # type: ignore[union-attr]
            continue
        after = positions[i] + 8
        if after not in by_offset:
            if frame_after is None:
                raise AssemblyError("a conditional branch had to be widened and no frame is known after it")
            by_offset[after] = frame_after(i)
    position_of: dict[int, int] = {}

    def concrete(t):
        if isinstance(t, Uninitialized) and not isinstance(t.offset, int):
            site = t.offset
            if not position_of:  # built on first need: most frames hold no uninitialized object
                position_of.update(
                    (id(item), positions[i]) for i, item in enumerate(items) if not isinstance(item, Label)
                )
            pos = site.offset if isinstance(site, Label) else position_of.get(id(site), -1)
            if pos < 0:
                raise AssemblyError("an Uninitialized type refers to a `new` that is not in the code")
            return Uninitialized(pos)
        return t

    out = []
    for offset in sorted(by_offset):
        f = by_offset[offset]
        out.append(Frame(offset, [concrete(t) for t in f.locals], [concrete(t) for t in f.stack], f.kind))
    return out


def _type_annotations(body: CodeBody, pool: ConstantPool) -> dict[str, A.Attribute]:
    groups: dict[int, list[A.TypeAnnotation]] = {}
    for ref in body.code_annotations:
        ta = ref.annotation
        t = ta.target_type
        info: list[tuple[int, int, int]] | tuple
        if t in (0x40, 0x41):
            info = [(s.offset, e.offset - s.offset, slot) for s, e, slot in ref.targets if s.offset >= 0]
            if not info:
                continue
        elif 0x43 <= t <= 0x46:
            if ref.targets[0].offset < 0:
                continue
            info = (ref.targets[0].offset,)
        elif 0x47 <= t <= 0x4B:
            if ref.targets[0].offset < 0:
                continue
            info = (ref.targets[0].offset, ref.targets[1])
        else:
            info = tuple(ref.targets)
        groups.setdefault(ref.attribute_name_index, []).append(A.TypeAnnotation(t, info, ta.type_path, ta.annotation))
    out: dict[str, A.Attribute] = {}
    for name_index, anns in groups.items():
        name = pool.utf8(name_index)
        cls = (
            A.RuntimeVisibleTypeAnnotations
            if name == "RuntimeVisibleTypeAnnotations"
            else A.RuntimeInvisibleTypeAnnotations
        )
        out[name] = cls(name_index, anns)
    return out
