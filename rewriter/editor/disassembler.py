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
from ..classfile.instructions import Instruction
from ..classfile.model import Method
from ..errors import ClassFormatError
from .body import CodeAnnotationRef, CodeBody, Handler, Label, LocalVariable, frame_with_labels, symbolic_copy

# Opcodes whose symbolic form is a new object (short forms, branches, switches, ldc_w): every
# other instruction is taken over as it is, without a call to symbolic_copy.
_COPIED: Final[tuple[bool, ...]] = tuple(
    o in op.SHORT_FORMS or o in op.BRANCH_OPCODES or o in op.SWITCH_OPCODES or o == op.LDC_W for o in range(256)
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
    labels: dict[int, Label] = {}

    def label_at(offset: int) -> Label:
        lab = labels.get(offset)
        if lab is None:
            if not 0 <= offset <= length or not starts[offset]:
                raise ClassFormatError(
                    f"offset {offset} is not the start of an instruction",
                    offset=code.code_offset + offset if code.code_offset >= 0 else None,
                )
            lab = labels[offset] = Label()
        return lab

    copied = _COPIED
    symbolic = [symbolic_copy(insn, label_at) if copied[insn.opcode] else insn for insn in insns]
    # The body now owns the decoded instructions (many are taken over as they are): the Code
    # attribute goes back to its bytes, so editing the body can never change the original method.
    code.drop_instructions()
    symbolic_at: dict[int, Instruction] = {}  # (built when a frame first names a `new`)

    def new_at(offset: int):
        if not symbolic_at:
            symbolic_at.update((insn.offset, sym) for insn, sym in zip(insns, symbolic))
        sym = symbolic_at.get(offset)
        if sym is None or sym.opcode != 0xBB:  # NEW
            raise ClassFormatError(
                f"Uninitialized({offset}) in a frame does not name a `new` instruction",
                offset=code.code_offset + offset if code.code_offset >= 0 else None,
            )
        return sym

    body = CodeBody(items=[], max_locals=code.max_locals, max_stack=code.max_stack)
    body.handlers = [
        Handler(label_at(h.start_pc), label_at(h.end_pc), label_at(h.handler_pc), h.catch_type) for h in code.handlers
    ]

    for attr in code.attributes:
        name = pool.utf8(attr.name_index)
        body.attribute_order.append(name)
        decoded = A.decode_attribute(attr, pool, A.CODE, code.context)
        if isinstance(decoded, A.LineNumberTable):
            body.lines.extend((label_at(pc), line) for pc, line in decoded.rows)
        elif isinstance(decoded, (A.LocalVariableTable, A.LocalVariableTypeTable)):
            rows = [
                LocalVariable(label_at(start), label_at(start + ln), name_i, desc_i, slot)
                for start, ln, name_i, desc_i, slot in decoded.rows
            ]
            if isinstance(decoded, A.LocalVariableTable):
                body.local_variables.extend(rows)
            else:
                body.local_variable_types.extend(rows)
        elif isinstance(decoded, StackMapTable):
            body.has_stack_map = True
            for frame in decoded.frames(pool):
                body.frames[label_at(frame.offset)] = frame_with_labels(frame, new_at)
        elif isinstance(decoded, A.TypeAnnotations):
            for ta in decoded.annotations:
                body.code_annotations.append(CodeAnnotationRef(attr.name_index, ta, _annotation_targets(ta, label_at)))
        else:
            body.other_attributes.append(attr)
    # the labels go in by offset order, merged with the instructions (far fewer labels than
    # instructions: no lookup per instruction)
    items: list = []
    marks = sorted(labels)
    m = 0
    next_mark = marks[0] if marks else length + 1
    for k in range(len(insns)):
        if insns[k].offset == next_mark:
            items.append(labels[next_mark])
            m += 1
            next_mark = marks[m] if m < len(marks) else length + 1
        items.append(symbolic[k])
    if next_mark == length:
        items.append(labels[length])
    body.items = items
    return body


def _annotation_targets(ta: A.TypeAnnotation, label_at) -> list:
    t = ta.target_type
    if t in (0x40, 0x41):
        return [(label_at(start), label_at(start + ln), slot) for start, ln, slot in ta.target_info]
    if 0x43 <= t <= 0x46:
        return [label_at(ta.target_info[0])]
    if 0x47 <= t <= 0x4B:
        return [label_at(ta.target_info[0]), ta.target_info[1]]
    return list(ta.target_info)  # catch target (exception table index) and non-code targets
