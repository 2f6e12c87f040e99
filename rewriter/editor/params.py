"""Adding a parameter to a method: descriptor, locals, frames, debug tables and annotations move together.

CCT passing gives nearly every method one extra parameter (the caller's CCT
node). Everything that names a local slot at or above the new parameter's
slot shifts up by its size (two for long/double); frames, which list
verification types per *entry* rather than per slot, get the new type inserted
at the right entry; per-parameter attributes (parameter annotations,
MethodParameters, type annotations on formal parameters) get a row for it.

The method's generic ``Signature`` attribute is left alone: it describes the
source-level method, and callers that add parameters to synthetic twins drop
it themselves.
"""

from __future__ import annotations

from ..classfile import attributes as A
from ..classfile import opcodes as op
from ..classfile.descriptors import parse_method_descriptor, type_size
from ..classfile.frames import Frame, Top, VType, vtype_of_descriptor
from ..classfile.model import ACC_STATIC, ACC_SYNTHETIC, Method
from .body import CodeBody, Label
from .disassembler import disassemble

# long and double loads and stores by opcode (a list read: compiled, a set lookup is a call)
_IS_TWO_SLOT: list[bool] = [o in op.TWO_SLOT_LOCAL_OPCODES for o in range(256)]


def insert_parameter(method: Method, position: int, param_descriptor: str) -> int:
    """Insert a parameter of type ``param_descriptor`` before parameter ``position`` (0-based).

    Returns the local slot of the new parameter. Methods with code are
    re-assembled (raising :class:`~jprewrite.editor.CodeTooLargeError` if they
    no longer fit, in which case the method is left unchanged).
    """
    pool = method.pool
    old_desc = method.descriptor
    md = parse_method_descriptor(old_desc)
    params = list(md.params)
    if not 0 <= position <= len(params):
        raise ValueError(f"parameter position {position} out of range for {old_desc}")
    size = type_size(param_descriptor)
    first = 0 if method.access & ACC_STATIC else 1
    slot = first + sum(type_size(p) for p in params[:position])
    new_desc = "(" + "".join(params[:position] + [param_descriptor] + params[position:]) + ")" + md.return_type
    code = method.code()
    if code is not None:
        from . import write_body  # late import: editor/__init__ imports this module's siblings

        body = disassemble(method)
        shift_body(body, slot, size, vtype_of_descriptor(param_descriptor), pool)
        saved = method.descriptor_index
        method.descriptor_index = pool.add_utf8(new_desc)
        try:
            write_body(method, body)
        except Exception:
            method.descriptor_index = saved
            raise
    else:
        method.descriptor_index = pool.add_utf8(new_desc)
    _shift_parameter_attributes(method, position)
    return slot


def shift_body(body: CodeBody, slot: int, size: int, vtype: VType, pool=None) -> None:
    """Make room for a new local of ``vtype`` (``size`` slots) at ``slot``: :func:`insert_locals` of one."""
    insert_locals(body, slot, [(vtype, size)], pool)


def insert_locals(body: CodeBody, slot: int, news: list[tuple[VType, int]], pool=None) -> None:
    """Make room for new locals (``(type, size)`` each, in slot order) at ``slot``, in one pass.

    Slots at or above ``slot`` move up by the sizes' sum in every instruction, table and frame.
    One case cannot move that way: a long or double stored at ``slot - 1`` (compilers such as
    kotlinc reuse a dead parameter's slot for a wider value) would straddle the new locals. Those
    category-2 accesses (and their frame entries and local-variable rows) move to a fresh pair of
    slots above everything else. An ESI twin's node and call-site parameters go in together: each
    pass walks every instruction and rebuilds every frame.
    """
    size = sum(n for _, n in news)
    body.shift_locals(slot, size)
    moved: int | None = None
    if slot > 0:
        two_slot = _IS_TWO_SLOT
        wide_at_boundary = [
            insn
            for insn in body.items
            if not isinstance(insn, Label) and two_slot[insn.opcode] and insn.operand == slot - 1
        ]
        if wide_at_boundary:
            moved = body.max_locals
            body.max_locals += 2
            for insn in wide_at_boundary:
                insn.operand = moved
            for table in (body.local_variables, body.local_variable_types):
                for row in table:
                    if row.slot == slot - 1 and pool is not None and pool.utf8(row.descriptor_index)[:1] in ("J", "D"):
                        row.slot = moved
    for label, frame in list(body.frames.items()):
        body.frames[label] = Frame(frame.offset, _insert_local(frame.locals, slot, news, moved), frame.stack, None)


def _insert_local(
    locals_: list[VType], slot: int, news: list[tuple[VType, int]], moved: int | None = None
) -> list[VType]:
    """The frame's locals with the ``news`` types at ``slot`` and everything at or above it their sizes higher.

    Worked on per slot (a long/double is its type followed by a filler) and packed back into
    one entry per verification type. ``moved``: where a long/double at ``slot - 1`` goes.
    """
    FILL: object = None
    slots: list = []
    for t in locals_:
        slots.append(t)
        if t.tag in (3, 4):  # Double, Long take two slots
            slots.append(FILL)
    wide = None
    if (
        moved is not None
        and slot - 1 < len(slots)
        and slot >= 1
        and slots[slot - 1] is not None
        and slots[slot - 1].tag in (3, 4)
    ):
        wide = slots[slot - 1]
        slots[slot - 1] = Top
        if slot < len(slots):
            slots[slot] = Top  # its second half, now meaningless
    while len(slots) < slot:
        slots.append(Top)
    inserted: list = []
    for vtype, size in news:
        inserted.append(vtype)
        if size == 2:
            inserted.append(FILL)
    new = slots[:slot] + inserted + slots[slot:]
    if wide is not None and moved is not None:  # (wide is only set when moved is given)
        while len(new) < moved:
            new.append(Top)
        new[moved : moved + 2] = [wide, FILL]
    # pack: drop fillers, trim trailing Tops
    out = [t for t in new if t is not FILL]
    while out and out[-1] is Top:
        out.pop()
    return out


def _shift_parameter_attributes(method: Method, position: int) -> None:
    pool = method.pool
    for i, attr in enumerate(method.attributes):
        name = pool.utf8(attr.name_index)
        if name in ("RuntimeVisibleParameterAnnotations", "RuntimeInvisibleParameterAnnotations"):
            d = A.decode_attribute(attr, pool, A.METHOD)
            if position <= len(d.parameters):  # type: ignore[attr-defined]
                d.parameters.insert(position, [])  # type: ignore[attr-defined]
            method.attributes[i] = d
        elif name == "MethodParameters":
            d = A.decode_attribute(attr, pool, A.METHOD)
            if position <= len(d.parameters):  # type: ignore[attr-defined]
                d.parameters.insert(position, (0, ACC_SYNTHETIC))  # type: ignore[attr-defined]
            method.attributes[i] = d
        elif name in ("RuntimeVisibleTypeAnnotations", "RuntimeInvisibleTypeAnnotations"):
            d = A.decode_attribute(attr, pool, A.METHOD)
            for ta in d.annotations:  # type: ignore[attr-defined]
                if ta.target_type == 0x16 and ta.target_info[0] >= position:
                    ta.target_info = (ta.target_info[0] + 1,)
            method.attributes[i] = d
