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

import copy
import weakref
from collections.abc import Callable

from ..classfile import attributes as A
from ..classfile import opcodes as op
from ..classfile.code import CodeAttribute, ExceptionHandler, StackMapTable
from ..classfile.constants import ConstantPool
from ..classfile.frames import Frame, Uninitialized
from ..classfile.instructions import Iinc, Instruction, LookupSwitch, TableSwitch, encode_instructions, switch_padding
from ..errors import JprewriteError
from .body import CodeBody, Label
from .stack import stack_effect

MAX_CODE_LENGTH = 65535


class CodeTooLargeError(JprewriteError):
    """The edited code does not fit in 65535 bytes; keep the original method."""


class AssemblyError(JprewriteError):
    """The body cannot be written (a label not placed, a frame that is needed but unknown...)."""


FrameAfter = Callable[[int], Frame]


def _size(insn: Instruction, pos: int, long: bool) -> int:
    o = insn.opcode
    if o in op.LOCAL_SLOT_OPCODES:
        slot = insn.operand
        if slot <= 3 and o != op.RET:
            return 1
        return 2 if slot <= 255 else 4
    if o == op.IINC:
        return 3 if insn.operand <= 255 and -128 <= insn.increment <= 127 else 6  # type: ignore
    if o == op.LDC:
        return 2 if insn.operand <= 255 else 3
    if o in op.BRANCH_OPCODES:
        if not long:
            return 3
        return 5 if o in (op.GOTO, op.JSR, op.GOTO_W, op.JSR_W) else 8
    if o == op.TABLESWITCH:
        return 1 + switch_padding(pos) + 12 + 4 * len(insn.targets)  # type: ignore[attr-defined]
    if o == op.LOOKUPSWITCH:
        return 1 + switch_padding(pos) + 8 + 8 * len(insn.targets)  # type: ignore[attr-defined]
    n = op.LENGTHS[o]
    if n <= 0:
        raise AssemblyError(f"cannot assemble opcode {o}")
    return n


def layout(body: CodeBody, *, limit: bool = True) -> tuple[list[int], set[int]]:
    """Offsets of every item (labels get their offset set) and the indices of widened branches.

    ``limit=False``: no CodeTooLargeError (sizes of a body that is being split to fit).
    """
    items = body.items
    long: set[int] = set()
    while True:
        positions = [0] * len(items)
        pos = 0
        for i, item in enumerate(items):
            positions[i] = pos
            if isinstance(item, Label):
                item.offset = pos
            else:
                pos += _size(item, pos, i in long)
        changed = False
        for i, item in enumerate(items):
            if isinstance(item, Label) or i in long or item.opcode not in op.BRANCH_OPCODES:
                continue
            target = item.operand
            if not isinstance(target, Label) or target.offset < 0:
                raise AssemblyError(f"branch {item!r} targets a label that is not in the code")
            if not -32768 <= target.offset - positions[i] <= 32767:
                long.add(i)
                changed = True
        if not changed:
            if limit and pos > MAX_CODE_LENGTH:
                raise CodeTooLargeError(f"code is {pos} bytes, over the JVM's limit of 65535")
            return positions, long


def _concrete(body: CodeBody, positions: list[int], long: set[int]) -> tuple[list[Instruction], int]:
    """The concrete instructions at their positions, and max_locals (computed on the way)."""
    out: list[Instruction] = []
    placed: set[int] = set()
    top = body.max_locals
    for i, item in enumerate(body.items):
        if isinstance(item, Label):
            continue
        pos = positions[i]
        o = item.opcode
        if o in op.LOCAL_SLOT_OPCODES:
            slot = item.operand
            end = slot + (2 if o in op.TWO_SLOT_LOCAL_OPCODES else 1)
            if end > top:
                top = end
            if slot <= 3 and o != op.RET:
                out.append(Instruction(pos, op.SHORT_FORM_BASE[o] + slot))
            else:
                out.append(Instruction(pos, o, slot, wide=slot > 255))
        elif o == op.IINC:
            if item.operand + 1 > top:
                top = item.operand + 1
            inc = item.increment  # type: ignore[attr-defined]
            if not -32768 <= inc <= 32767:
                raise AssemblyError(f"iinc increment {inc} does not fit in 16 bits")
            out.append(Iinc(pos, item.operand, inc, wide=not (item.operand <= 255 and -128 <= inc <= 127)))
        elif o == op.LDC:
            out.append(Instruction(pos, op.LDC if item.operand <= 255 else op.LDC_W, item.operand))
        elif o in op.BRANCH_OPCODES:
            target = item.operand.offset
            if i not in long:
                out.append(Instruction(pos, o, target))
            elif o in (op.GOTO, op.GOTO_W):
                out.append(Instruction(pos, op.GOTO_W, target))
            elif o in (op.JSR, op.JSR_W):
                out.append(Instruction(pos, op.JSR_W, target))
            else:
                out.append(Instruction(pos, op.INVERSE_BRANCHES[o], pos + 8))
                out.append(Instruction(pos + 3, op.GOTO_W, target))
        elif isinstance(item, TableSwitch):
            out.append(TableSwitch(pos, item.default.offset, item.low, [t.offset for t in item.targets]))
        elif isinstance(item, LookupSwitch):
            pairs = sorted(zip(item.keys, (t.offset for t in item.targets)))
            out.append(LookupSwitch(pos, item.default.offset, [k for k, _ in pairs], [t for _, t in pairs]))
        else:
            # symbolic instructions carry no meaningful offset: give this one its place and encode
            # it; the same object used twice in a body (``[nop] * n``) gets copies
            if id(item) in placed:
                item = copy.copy(item)
            else:
                placed.add(id(item))
            item.offset = pos
            out.append(item)
    return out, top


_EFFECTS: weakref.WeakKeyDictionary[ConstantPool, dict] = weakref.WeakKeyDictionary()


def _effects_cache(pool: ConstantPool) -> dict:
    """Stack effects of pool-dependent instructions, kept per pool: every method of a class asks
    about the same few hundred field and method references, and each answer parses a descriptor.
    (Pools only grow while a class is edited, so an index keeps its meaning.)"""
    cache = _EFFECTS.get(pool)
    if cache is None:
        cache = _EFFECTS[pool] = {}
    return cache


def compute_max_stack(body: CodeBody, pool: ConstantPool) -> int:
    """Largest operand-stack depth (in slots) anywhere in the code, handlers and dead code included.

    Flow starts at the entry, at every handler and at every frame: the type-checking verifier
    checks every instruction, dead code included, continuing from the frame that must follow an
    unconditional transfer. Code inserted into a dead block that has a frame (ASM's
    COMPUTE_FRAMES writes ``nop…athrow`` with ``[Throwable]`` on the stack there) must fit in
    ``max_stack`` although no path from the entry reaches it.
    """
    items = body.items
    n = len(items)
    # next_insn[i]: index of the first instruction at or after i (n at the end)
    next_insn = [n] * (n + 1)
    nxt = n
    for i in range(n - 1, -1, -1):
        if not isinstance(items[i], Label):
            nxt = i
        next_insn[i] = nxt
    index_of_label = {id(item): i for i, item in enumerate(items) if isinstance(item, Label)}
    effects = _effects_cache(pool)
    fixed = op.STACK_EFFECTS
    ends_flow = op.UNCONDITIONAL_OPCODES

    depth_at: dict[int, int] = {}
    work: list[tuple[int, int]] = [(next_insn[0], 0)]
    for h in body.handlers:
        work.append((next_insn[index_of_label[id(h.handler)]], 1))
    for label, frame in body.frames.items():
        at = index_of_label.get(id(label))
        if at is not None:
            work.append((next_insn[at], sum(2 if t.tag in (3, 4) else 1 for t in frame.stack)))
    best = 0
    branch_ops = op.BRANCH_OPCODES
    while work:
        i, depth = work.pop()
        while i < n:
            seen = depth_at.get(i)
            if seen is not None and seen >= depth:
                break
            depth_at[i] = depth
            insn = items[i]
            o = insn.opcode  # type: ignore[union-attr]
            eff = fixed[o]
            if eff is None:
                key = (o, insn.operand if o != op.MULTIANEWARRAY else (insn.operand, insn.dims))  # type: ignore
                eff = effects.get(key)
                if eff is None:
                    eff = effects[key] = stack_effect(insn, pool)  # type: ignore[arg-type]
            after = depth - eff[0] + eff[1]
            if after > best:
                best = after
            if depth > best:
                best = depth
            if o in branch_ops:
                work.append((next_insn[index_of_label[id(insn.operand)]], after))  # type: ignore
                if o == op.JSR or o == op.JSR_W:
                    after = depth  # execution resumes after the subroutine returns
            elif o == op.TABLESWITCH or o == op.LOOKUPSWITCH:
                for t in (insn.default, *insn.targets):  # type: ignore[union-attr]
                    work.append((next_insn[index_of_label[id(t)]], after))
            if o in ends_flow:
                break
            depth = after
            i = next_insn[i + 1]
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
) -> CodeAttribute:
    """A new Code attribute for ``body``.

    ``frames``: write a StackMapTable (class files of version 50 and later).
    ``frame_after(i)``: the frame after instruction ``body.items[i]`` (needed only
    when a conditional branch had to be widened).
    """
    positions, long = layout(body)
    concrete, max_locals = _concrete(body, positions, long)
    code = encode_instructions(concrete)
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
        compute_max_stack(body, pool),
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
