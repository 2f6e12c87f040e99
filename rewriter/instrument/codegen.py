"""Small bytecode idioms every transformation needs: pushing constants, moving arguments, finding super().

Kept apart from the transformations so the exercise and the CCT rewriting
share one copy of each.
"""

from __future__ import annotations

from typing import Final

from ..analysis.typeflow import execute, state_from_frame
from ..classfile import opcodes as op
from ..classfile.code import CodeAttribute
from ..classfile.constants import ConstantPool
from ..classfile.descriptors import parse_method_descriptor, type_size
from ..classfile.frames import Frame, Top, UninitializedThis, initial_frame_locals
from ..classfile.instructions import Fragment, Instruction
from ..editor.body import CodeBody, Label


def push_int(pool: ConstantPool, value: int) -> Instruction:
    """The shortest instruction pushing int ``value``."""
    if -1 <= value <= 5:
        return Instruction(-1, op.ICONST_0 + value)
    if -128 <= value <= 127:
        return Instruction(-1, op.BIPUSH, value)
    if -32768 <= value <= 32767:
        return Instruction(-1, op.SIPUSH, value)
    return Instruction(-1, op.LDC_W, pool.add_integer(value))


class StraightCode:
    """Code written as bytes that runs straight on to its end: no labels, no handlers, no
    branches but forward ones to its very end (:meth:`branch_to_end`, a guard's exits).

    For generated code whose shape is fixed (the holder's initialiser: thousands of instructions
    per class that only push constants and call; the override check of every virtual twin): an
    :class:`Instruction` per step, a layout and a stack-depth flow would cost more than the
    rest of the code's making. The writer knows each step's encoding and its stack depth, so
    ``max_stack`` comes out on the way.
    """

    def __init__(self) -> None:
        # the bytes as a list of ints (compiled, an append to a list is native; to a bytearray it
        # is a call by name, and bytes((...)) a call through the Python API); see :meth:`bytes`
        self.code: list[int] = []
        self.depth = 0
        self.max_stack = 0
        self._branches: list[int] = []  # positions of branches to the end

    def _push(self, slots: int) -> None:
        self.depth += slots
        if self.depth > self.max_stack:
            self.max_stack = self.depth

    def simple(self, opcode: int, pops: int, pushes: int) -> None:
        """A one-byte instruction (``dup``, ``aastore``, ``aload_0``, returns ...)."""
        self.code.append(opcode)
        self.depth -= pops
        self._push(pushes)

    def with_index(self, opcode: int, index: int, pops: int, pushes: int) -> None:
        """An instruction with a two-byte constant-pool index (field, method, class)."""
        code = self.code
        code.append(opcode)
        code.append(index >> 8)
        code.append(index & 0xFF)
        self.depth -= pops
        self._push(pushes)

    def invoke_interface(self, index: int, pops: int, pushes: int) -> None:
        """``invokeinterface`` of pool entry ``index`` taking ``pops`` slots (its count byte)."""
        code = self.code
        code.append(op.INVOKEINTERFACE)
        code.append(index >> 8)
        code.append(index & 0xFF)
        code.append(pops)
        code.append(0)
        self.depth -= pops
        self._push(pushes)

    def ldc(self, index: int) -> None:
        """A one-slot constant: ``ldc`` when the index fits a byte, else ``ldc_w``."""
        code = self.code
        if index <= 0xFF:
            code.append(op.LDC)
            code.append(index)
        else:
            code.append(op.LDC_W)
            code.append(index >> 8)
            code.append(index & 0xFF)
        self._push(1)

    def push_int(self, pool: ConstantPool, value: int) -> None:
        """The shortest instruction pushing int ``value`` (as :func:`push_int`)."""
        code = self.code
        if -1 <= value <= 5:
            code.append(op.ICONST_0 + value)
        elif -128 <= value <= 127:
            code.append(op.BIPUSH)
            code.append(value & 0xFF)
        elif -32768 <= value <= 32767:
            code.append(op.SIPUSH)
            code.append((value >> 8) & 0xFF)
            code.append(value & 0xFF)
        else:
            self.ldc(pool.add_integer(value))
            return
        self._push(1)

    def local(self, opcode: int, slot: int) -> None:
        """A load or store of local ``slot`` (``iload`` ... ``astore``) in the form the assembler
        gives it: ``xload_n`` up to slot 3, then the byte form, then ``wide``."""
        code = self.code
        if slot <= 3:
            code.append(op.SHORT_FORM_BASE[opcode] + slot)
        elif slot <= 0xFF:
            code.append(opcode)
            code.append(slot)
        else:
            code.append(op.WIDE)
            code.append(opcode)
            code.append(slot >> 8)
            code.append(slot & 0xFF)
        pops, pushes = op.STACK_EFFECTS[opcode]  # type: ignore[misc]
        self.depth -= pops
        self._push(pushes)

    def load_arguments(self, descriptor: str, is_static: bool) -> None:
        """``this`` (unless static) and every parameter loaded, as :func:`load_arguments` gives them."""
        slot = 0
        if not is_static:
            self.local(op.ALOAD, 0)
            slot = 1
        for p in parse_method_descriptor(descriptor).params:
            self.local(load_opcode(p), slot)
            slot += type_size(p)

    def fragment(self, made: Fragment) -> None:
        """A fragment's bytes (neutral: the depth stays, its peak counts above it)."""
        self.code.extend(made.code)
        if self.depth + made.peak > self.max_stack:
            self.max_stack = self.depth + made.peak

    def branch_to_end(self, opcode: int, pops: int) -> None:
        """A conditional branch to the end of the code (its offset written by :meth:`end_branches`)."""
        self._branches.append(len(self.code))
        self.code.append(opcode)
        self.code.append(0)
        self.code.append(0)
        self.depth -= pops

    def end_branches(self) -> None:
        """Point every :meth:`branch_to_end` at the end of the code written so far."""
        end = len(self.code)
        for at in self._branches:
            offset = end - at
            self.code[at + 1] = offset >> 8
            self.code[at + 2] = offset & 0xFF
        self._branches.clear()

    def attribute(self, pool: ConstantPool, max_locals: int) -> CodeAttribute:
        """The Code attribute of what was written (no handlers, no nested attributes)."""
        return CodeAttribute(pool.add_utf8("Code"), self.max_stack, max_locals, self.bytes(), [], [])

    def bytes(self) -> bytes:
        """What was written."""
        return bytes(self.code)


# by a descriptor's first character (module-level: a dict display in the function is built anew each call)
_LOADS: Final[dict[str, int]] = {"J": op.LLOAD, "D": op.DLOAD, "F": op.FLOAD, "L": op.ALOAD, "[": op.ALOAD}
_STORES: Final[dict[str, int]] = {"J": op.LSTORE, "D": op.DSTORE, "F": op.FSTORE, "L": op.ASTORE, "[": op.ASTORE}
_RETURNS: Final[dict[str, int]] = {
    "V": op.RETURN,
    "J": op.LRETURN,
    "D": op.DRETURN,
    "F": op.FRETURN,
    "L": op.ARETURN,
    "[": op.ARETURN,
}


def load_opcode(desc: str) -> int:
    return _LOADS.get(desc[0], op.ILOAD)


def store_opcode(desc: str) -> int:
    return _STORES.get(desc[0], op.ISTORE)


def return_opcode(desc: str) -> int:
    return _RETURNS.get(desc[0], op.IRETURN)


def load_arguments(descriptor: str, is_static: bool, *, with_this: bool = True) -> tuple[list, int]:
    """Instructions loading ``this`` (unless static or not wanted) and every parameter; and the next free slot."""
    items: list = []
    slot = 0
    if not is_static:
        if with_this:
            items.append(Instruction(-1, op.ALOAD, 0))
        slot = 1
    for p in parse_method_descriptor(descriptor).params:
        items.append(Instruction(-1, load_opcode(p), slot))
        slot += type_size(p)
    return items, slot


def after_labels(body: CodeBody, index: int) -> int:
    """First position at ``index`` or after that is past the labels sitting there."""
    while index < len(body.items) and isinstance(body.items[index], Label):
        index += 1
    return index


def after_initialisation(
    this_class: str, method_name: str, descriptor: str, body: CodeBody, pool: ConstantPool
) -> int | None:
    """Item index just after a constructor's super()/this() call (0 for other methods).

    None when the call cannot be found on the straight-line path from the
    entry: code before it runs with ``this`` uninitialised, where no handler
    may be added.
    """
    if method_name != "<init>" or this_class == "java/lang/Object":
        return 0
    state = state_from_frame(Frame(-1, initial_frame_locals(this_class, method_name, descriptor, False), []))
    for i, item in enumerate(body.items):
        if isinstance(item, Label):
            continue
        if item.opcode in op.BRANCH_OPCODES or item.opcode in (op.TABLESWITCH, op.LOOKUPSWITCH, op.ATHROW, op.RETURN):
            return None
        was_uninit = UninitializedThis in state.locals
        state = execute(state, item, pool, this_class, new_label=item)
        if was_uninit and UninitializedThis not in state.locals:
            return i + 1
    return None


def with_local(locals_: list, slot: int, vtype) -> list:
    """Frame locals (one entry per type) with ``vtype`` at ``slot``; entries from ``slot`` on are dropped."""
    out: list = []
    used = 0
    for t in locals_:
        if used >= slot:
            break
        out.append(t)
        used += 2 if t.tag in (3, 4) else 1
    out += [Top] * (slot - used)
    out.append(vtype)
    return out


def define_local_in_frames(body: CodeBody, slot: int, vtype) -> None:
    """Declare a new local (at or above every slot the frames mention) live with ``vtype`` in every frame."""
    for frame in body.frames.values():
        frame.locals = with_local(frame.locals, slot, vtype)
        frame.kind = None


def frame_before(body: CodeBody, index: int) -> Frame | None:
    """The frame at the run of labels just before ``body.items[index]``, if any."""
    i = index - 1
    while i >= 0:
        item = body.items[i]
        if not isinstance(item, Label):
            break
        frame = body.frames.get(item)
        if frame is not None:
            return frame
        i -= 1
    return None


def copied_code(code: CodeAttribute) -> CodeAttribute:
    """A copy of a method's Code attribute that shares nothing decoded with it (a twin starts so)."""
    handlers = [type(h)(h.start_pc, h.end_pc, h.handler_pc, h.catch_type) for h in code.handlers]
    return CodeAttribute(
        code.name_index,
        code.max_stack,
        code.max_locals,
        code.code_bytes(),
        handlers,
        list(code.attributes),
        code.context,
        code.code_offset,
    )


_IS_INVOKE: list[bool] = [o in op.INVOKE_OPCODES for o in range(256)]


def count_call_sites(items: list) -> int:
    """The invoke instructions among a body's items: its call sites, dead ones included (what a
    MethodId's ``sites`` says). A loop over a table by opcode (compiled, a set lookup is a call)."""
    invoke = _IS_INVOKE
    n = 0
    for x in items:
        if not isinstance(x, Label) and invoke[x.opcode]:
            n += 1
    return n
