"""Editable method bodies: instructions and labels instead of offsets.

A transformation inserts code by splicing instructions into ``CodeBody.items``;
everything that pointed at a *position* in the original code (branch and
switch targets, exception ranges, line numbers, local-variable ranges, frames,
``Uninitialized`` types, type annotations on code) points at a :class:`Label`
instead, so it stays attached to the right instruction however much code moves.
:func:`jprewrite.editor.assembler.assemble` turns a body back into bytes.

Symbolic instructions reuse the concrete classes of
:mod:`jprewrite.classfile.instructions` with these differences:

* branch operands and switch targets/defaults are :class:`Label` objects;
* local-variable loads and stores are normalised to the general opcode
  (``iload_1`` becomes ``ILOAD`` with operand 1) so that shifting a slot is one
  assignment; the assembler picks the shortest encoding again, ``wide`` included;
* ``goto_w``/``jsr_w`` become ``goto``/``jsr``, ``ldc_w`` becomes ``ldc``; the
  assembler widens whatever no longer fits (branches past +-32 KB, indices past 255);
* ``offset`` is meaningless until assembly.

Frames are explicit (:class:`jprewrite.classfile.frames.Frame`) and keyed by
label; an ``Uninitialized`` type holds its ``new`` *instruction object* in its
``offset`` field (not a label: code inserted at a label before the ``new``
must not change which instruction the type names).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from itertools import count
from typing import Final

from ..classfile import opcodes as op
from ..classfile.attributes import TypeAnnotation
from ..classfile.frames import Frame
from ..classfile.instructions import FRAGMENT_OPCODE, Instruction
from ..classfile.native import mypyc_attr

_LABEL_NUMBERS: Final = count(1)  # names of labels made without one: L1, L2...


@mypyc_attr(acyclic=True)  # (see classfile.native)
class Label:
    """A position in a code body. Identity matters, not value; ``offset`` is set by the assembler."""

    __slots__ = ("offset", "name")

    def __init__(self, name: str | None = None) -> None:
        self.offset = -1
        if name is None:
            name = f"L{next(_LABEL_NUMBERS)}"
        self.name = name

    def __repr__(self) -> str:
        return f"{self.name}@{self.offset}" if self.offset >= 0 else self.name


Item = Instruction | Label


@dataclass(slots=True)
class Handler:
    """An exception_table row; ``catch_type`` is a Class constant index, 0 for any."""

    start: Label
    end: Label
    handler: Label
    catch_type: int

    # (written out, not generated: compiled by mypyc, a dataclass's generated __init__ runs interpreted)
    def __init__(self, start: Label, end: Label, handler: Label, catch_type: int) -> None:
        self.start = start
        self.end = end
        self.handler = handler
        self.catch_type = catch_type


@dataclass(slots=True)
class LocalVariable:
    """A LocalVariableTable / LocalVariableTypeTable row over [start, end)."""

    start: Label
    end: Label
    name_index: int
    descriptor_index: int  # descriptor (LVT) or signature (LVTT)
    slot: int

    # (written out, not generated: compiled by mypyc, a dataclass's generated __init__ runs interpreted)
    def __init__(self, start: Label, end: Label, name_index: int, descriptor_index: int, slot: int) -> None:
        self.start = start
        self.end = end
        self.name_index = name_index
        self.descriptor_index = descriptor_index
        self.slot = slot


@dataclass(slots=True)
class CodeAnnotationRef:
    """A type annotation on code (target_type 0x40-0x4B), its offsets replaced by labels.

    ``targets`` is: for localvar targets a list of (start, end, slot); for
    offset targets ``[label]``; for type-argument targets ``[label, index]``;
    for catch targets ``[exception_table_index]``.
    """

    attribute_name_index: int
    annotation: TypeAnnotation  # (its target_info is replaced when assembled)
    targets: list


def branch_targets(insn: Instruction) -> list[Label]:
    """Labels an instruction may jump to (not counting fall-through)."""
    if insn.opcode in op.BRANCH_OPCODES:
        return [insn.operand]
    if insn.opcode == op.TABLESWITCH or insn.opcode == op.LOOKUPSWITCH:
        return [insn.default, *insn.targets]  # type: ignore[attr-defined]
    return []


@dataclass
class CodeBody:
    """One method's code, editable.

    ``items`` is the instruction stream with labels marking positions. The
    other lists refer to labels in ``items``. ``max_locals`` is kept up to date
    by :meth:`new_local` and parameter insertion; ``max_stack`` is the
    disassembled method's (the assembler computes the new one, unless the
    caller gives it a bound built on this one).
    """

    items: list[Item]
    handlers: list[Handler] = field(default_factory=list)
    lines: list[tuple[Label, int]] = field(default_factory=list)
    local_variables: list[LocalVariable] = field(default_factory=list)
    local_variable_types: list[LocalVariable] = field(default_factory=list)
    frames: dict[Label, Frame] = field(default_factory=dict)
    code_annotations: list[CodeAnnotationRef] = field(default_factory=list)
    other_attributes: list = field(default_factory=list)  # unknown Code attributes, carried as is
    max_locals: int = 0
    max_stack: int = 0
    has_stack_map: bool = False  # the disassembled method had a StackMapTable
    attribute_order: list = field(default_factory=list)  # nested attribute names, original order

    # (written out, not generated: compiled by mypyc, a dataclass's generated __init__ runs interpreted)
    def __init__(
        self,
        items: list[Item],
        handlers: list[Handler] | None = None,
        lines: list[tuple[Label, int]] | None = None,
        local_variables: list[LocalVariable] | None = None,
        local_variable_types: list[LocalVariable] | None = None,
        frames: dict[Label, Frame] | None = None,
        code_annotations: list[CodeAnnotationRef] | None = None,
        other_attributes: list | None = None,
        max_locals: int = 0,
        max_stack: int = 0,
        has_stack_map: bool = False,
        attribute_order: list | None = None,
    ) -> None:
        self.items = items
        self.handlers = [] if handlers is None else handlers
        self.lines = [] if lines is None else lines
        self.local_variables = [] if local_variables is None else local_variables
        self.local_variable_types = [] if local_variable_types is None else local_variable_types
        self.frames = {} if frames is None else frames
        self.code_annotations = [] if code_annotations is None else code_annotations
        self.other_attributes = [] if other_attributes is None else other_attributes
        self.max_locals = max_locals
        self.max_stack = max_stack
        self.has_stack_map = has_stack_map
        self.attribute_order = [] if attribute_order is None else attribute_order

    # ------------------------------------------------------------ navigation
    def instructions(self) -> Iterator[Instruction]:
        for item in self.items:
            if not isinstance(item, Label):
                yield item

    def index_of(self, item: Item) -> int:
        for i, x in enumerate(self.items):
            if x is item:
                return i
        raise ValueError(f"{item!r} is not in this body")

    # --------------------------------------------------------------- editing
    def insert(self, index: int, new_items: list[Item]) -> None:
        """Splice ``new_items`` in before ``items[index]``."""
        self.items[index:index] = new_items

    def new_local(self, size: int = 1) -> int:
        """A fresh local slot (two for long/double) above every slot in use."""
        slot = self.max_locals
        self.max_locals += size
        return slot

    def shift_locals(self, from_slot: int, by: int) -> None:
        """Move every local slot >= ``from_slot`` up by ``by`` (making room for a new parameter).

        Rewrites loads, stores, iinc and ret; local-variable table rows; type
        annotations on locals. Frames are per *entry*, not per slot, so they are
        handled by :func:`jprewrite.editor.params.insert_parameter`, which knows
        what goes into the gap.
        """
        slot_ops = _IS_SLOT_OPCODE
        for insn in self.items:
            if isinstance(insn, Label):
                continue
            if slot_ops[insn.opcode] and insn.operand >= from_slot:
                insn.operand += by
            elif insn.opcode == FRAGMENT_OPCODE:
                # its slots are in its bytes: locals move before fragments go in, never after
                raise ValueError("cannot move the locals of a body that holds fragments")
        for table in (self.local_variables, self.local_variable_types):
            for row in table:
                if row.slot >= from_slot:
                    row.slot += by
        for ref in self.code_annotations:
            if ref.annotation.target_type in (0x40, 0x41):
                ref.targets = [(s, e, slot + by if slot >= from_slot else slot) for s, e, slot in ref.targets]
        self.max_locals += by


_SLOT_OPCODES: Final = op.LOCAL_SLOT_OPCODES | {op.IINC}  # instructions whose operand is a local slot
# the same by opcode (a list read, where a set lookup is a hash and a call once compiled)
_IS_SLOT_OPCODE: Final[list[bool]] = [o in _SLOT_OPCODES for o in range(256)]


# ------------------------------------------------------------------ symbolic copies
