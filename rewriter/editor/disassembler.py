"""From a method's Code attribute to an editable :class:`~jprewrite.editor.body.CodeBody`.

Every offset the Code attribute and its nested attributes mention becomes a
label placed before the instruction at that offset (or at the end of the
code, for ranges that run to the end). Nothing is lost that the assembler
cannot rebuild: unknown nested attributes are carried as they are.
"""

from __future__ import annotations

from typing import Final

from ..classfile import attributes as A
from ..classfile import opcodes as op
from ..classfile.code import CodeAttribute, StackMapTable
from ..classfile.constants import ConstantPool
from ..classfile.frames import Frame, Uninitialized, VType
from ..classfile.instructions import Instruction, LookupSwitch, TableSwitch
from ..classfile.model import Method
from ..errors import ClassFormatError
from .body import CodeAnnotationRef, CodeBody, Handler, Label, LocalVariable

# What each opcode's symbolic form is: _KEEP (taken over as it is: most instructions), _SHORT
# (the general form of a short one: iload_1 -> ILOAD 1), _BRANCH (the target as a label; goto_w
# and jsr_w as goto and jsr), _SWITCH (targets as labels) or _LDC (ldc_w as ldc). Tables
# indexed by opcode: one list read an instruction.
_KEEP: Final = 0
_SHORT: Final = 1
_BRANCH: Final = 2
_SWITCH: Final = 3
_LDC: Final = 4
_ROLE: Final[list[int]] = [
    _SHORT
    if o in op.SHORT_FORMS
    else _BRANCH
    if o in op.BRANCH_OPCODES
    else _SWITCH
    if o in op.SWITCH_OPCODES
    else _LDC
    if o == op.LDC_W
    else _KEEP
    for o in range(256)
]
_GENERAL: Final[list[int]] = [op.SHORT_FORMS[o][0] if o in op.SHORT_FORMS else o for o in range(256)]
_GENERAL[op.GOTO_W] = op.GOTO
_GENERAL[op.JSR_W] = op.JSR
_SHORT_OPERAND: Final[list[int]] = [op.SHORT_FORMS[o][1] if o in op.SHORT_FORMS else 0 for o in range(256)]


class _Labels:
    """The labels of one method's code by offset, each made on first need (a class, not a
    closure: compiled, its method is a native call, a closure's a call through the Python API;
    a list by offset, not a dict: no int object per lookup)."""

    def __init__(self, starts: list[bool], length: int, code_offset: int) -> None:
        self.by_offset: list[Label | None] = [None] * (length + 1)
        self.starts = starts  # the offsets where an instruction starts, and the end of the code
        self.length = length
        self.code_offset = code_offset

    def at(self, offset: int) -> Label:
        if not 0 <= offset <= self.length or not self.starts[offset]:
            raise ClassFormatError(
                f"offset {offset} is not the start of an instruction",
                offset=self.code_offset + offset if self.code_offset >= 0 else None,
            )
        lab = self.by_offset[offset]
        if lab is None:
            lab = self.by_offset[offset] = Label()
        return lab


def _symbolic(insn: Instruction, role: int, labels: _Labels) -> Instruction:
    """The symbolic form of a concrete instruction whose role is not :data:`_KEEP`."""
    o = insn.opcode
    if role == _SHORT:
        return Instruction(-1, _GENERAL[o], _SHORT_OPERAND[o])
    if role == _BRANCH:
        return Instruction(-1, _GENERAL[o], labels.at(insn.operand))
    if role == _LDC:
        return Instruction(-1, op.LDC, insn.operand)
    if isinstance(insn, TableSwitch):
        return TableSwitch(-1, labels.at(insn.default), insn.low, [labels.at(t) for t in insn.targets])
    assert isinstance(insn, LookupSwitch)
    return LookupSwitch(-1, labels.at(insn.default), list(insn.keys), [labels.at(t) for t in insn.targets])


class _NewAt:
    """The symbolic ``new`` instruction at a code offset (a frame's Uninitialized names it)."""

    def __init__(self, insns: list[Instruction], symbolic: list[Instruction], code_offset: int) -> None:
        self.insns = insns
        self.symbolic = symbolic
        self.code_offset = code_offset
        self.by_offset: dict[int, Instruction] = {}  # (built when a frame first names a `new`)

    def at(self, offset: int) -> Instruction:
        if not self.by_offset:
            self.by_offset.update((insn.offset, sym) for insn, sym in zip(self.insns, self.symbolic))
        sym = self.by_offset.get(offset)
        if sym is None or sym.opcode != 0xBB:  # NEW
            raise ClassFormatError(
                f"Uninitialized({offset}) in a frame does not name a `new` instruction",
                offset=self.code_offset + offset if self.code_offset >= 0 else None,
            )
        return sym


def _with_instructions(types: list[VType], new_at: _NewAt) -> list[VType]:
    """``types`` with each Uninitialized(offset) as Uninitialized(<the `new` instruction>)."""
    out: list[VType] = []
    for t in types:
        out.append(Uninitialized(new_at.at(t.offset)) if isinstance(t, Uninitialized) else t)
    return out


def _frame_with_instructions(frame: Frame, new_at: _NewAt) -> Frame:
    return Frame(
        frame.offset, _with_instructions(frame.locals, new_at), _with_instructions(frame.stack, new_at), frame.kind
    )


def disassemble(method: Method) -> CodeBody:
    """The editable body of ``method`` (which must have code)."""
    code = method.code()
    if code is None:
        raise ValueError(f"{method!r} has no code")
    return disassemble_code(code, method.pool)


def disassemble_code(code: CodeAttribute, pool: ConstantPool) -> CodeBody:
    insns: list[Instruction] = code.instructions()
    length = len(code.code)
    starts: list[bool] = [False] * (length + 1)  # (a list: compiled, a store and a read are a few instructions)
    starts[length] = True  # the end of the code, for ranges that run to it
    at: Instruction
    for at in insns:
        starts[at.offset] = True
    labels = _Labels(starts, length, code.code_offset)
    roles = _ROLE
    symbolic: list[Instruction] = []
    for insn in insns:
        role = roles[insn.opcode]
        symbolic.append(insn if role == _KEEP else _symbolic(insn, role, labels))
    # The body now owns the decoded instructions (many are taken over as they are): the Code
    # attribute goes back to its bytes, so editing the body can never change the original method.
    code.drop_instructions()
    new_at = _NewAt(insns, symbolic, code.code_offset)

    body = CodeBody(items=[], max_locals=code.max_locals, max_stack=code.max_stack)
    body.handlers = [
        Handler(labels.at(h.start_pc), labels.at(h.end_pc), labels.at(h.handler_pc), h.catch_type)
        for h in code.handlers
    ]

    for attr in code.attributes:
        name = pool.utf8(attr.name_index)
        body.attribute_order.append(name)
        decoded = A.decode_attribute(attr, pool, A.CODE, code.context)
        if isinstance(decoded, A.LineNumberTable):
            body.lines.extend((labels.at(pc), line) for pc, line in decoded.rows)
        elif isinstance(decoded, (A.LocalVariableTable, A.LocalVariableTypeTable)):
            rows = [
                LocalVariable(labels.at(start), labels.at(start + ln), name_i, desc_i, slot)
                for start, ln, name_i, desc_i, slot in decoded.rows
            ]
            if isinstance(decoded, A.LocalVariableTable):
                body.local_variables.extend(rows)
            else:
                body.local_variable_types.extend(rows)
        elif isinstance(decoded, StackMapTable):
            body.has_stack_map = True
            for frame in decoded.frames(pool):
                body.frames[labels.at(frame.offset)] = _frame_with_instructions(frame, new_at)
        elif isinstance(decoded, A.TypeAnnotations):
            for ta in decoded.annotations:
                body.code_annotations.append(CodeAnnotationRef(attr.name_index, ta, _annotation_targets(ta, labels)))
        else:
            body.other_attributes.append(attr)
    # each instruction after its label, if it has one
    items: list = []
    by_offset = labels.by_offset
    for k in range(len(insns)):
        lab = by_offset[insns[k].offset]
        if lab is not None:
            items.append(lab)
        items.append(symbolic[k])
    end = by_offset[length]
    if end is not None:
        items.append(end)
    body.items = items
    return body


def _annotation_targets(ta: A.TypeAnnotation, labels: _Labels) -> list:
    t = ta.target_type
    if t in (0x40, 0x41):
        return [(labels.at(start), labels.at(start + ln), slot) for start, ln, slot in ta.target_info]
    if 0x43 <= t <= 0x46:
        return [labels.at(ta.target_info[0])]
    if 0x47 <= t <= 0x4B:
        return [labels.at(ta.target_info[0]), ta.target_info[1]]
    return list(ta.target_info)  # catch target (exception table index) and non-code targets
