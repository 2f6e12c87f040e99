"""Application leaf methods: bodies that count into their caller's node instead of a node of their own.

A *leaf* is a method whose code can neither call nor start any other code: no invoke, no
``invokedynamic``, no ``new`` or array allocation (a class initialiser, an allocation count), no
static field of another class (its ``<clinit>``), no ``ldc`` of a class, method handle, method
type or dynamic constant (resolution, a bootstrap method), no monitor, no ``jsr``/``ret``. Such a
method needs no node to hand on: what it executes can be counted in two slots of its caller's
context (calls, bytecodes; ``LeafNode``), so a call of it leaves no call into the runtime in the
caller's compiled code (``Node.enter``) and no context to find, create or collect.

A leaf must also be statically bound (static, private, final, or of a final class, in a class
that is not an interface): the caller then knows the body that runs. Callers decide from the
callee's class summary (:func:`leaf_methods`, a bit in :class:`~.hierarchy.MemberInfo`'s access);
the callee decides its own shape from its own code. The two may disagree (a class changed
between rewritings): every statically bound method with an ESI therefore gets the slot-taking
twin, and one whose code is not a leaf delegates to its ordinary twin (``instrument.shape_slot``),
so a disagreement costs only the saving, never a ``NoSuchMethodError``.

Only short bodies qualify (:data:`MAX_LEAF_CODE`): a long one amortises its ``enter`` anyway.
"""

from __future__ import annotations

from typing import Final

from ..classfile import opcodes as op
from ..classfile.constants import DOUBLE, FLOAT, INTEGER, LONG, STRING
from ..classfile.model import (
    ACC_ABSTRACT,
    ACC_FINAL,
    ACC_INTERFACE,
    ACC_NATIVE,
    ACC_PRIVATE,
    ACC_STATIC,
    ACC_SYNCHRONIZED,
)

__all__ = ["ACC_JP_LEAF", "MAX_LEAF_CODE", "declared_statics", "is_leaf_code", "statically_bound"]

#: the bit a summary's method access carries for a leaf (above the JVM's 16 bits of flags)
ACC_JP_LEAF: Final = 0x10000
#: the longest code (bytes) a leaf may have
MAX_LEAF_CODE: Final = 160

#: opcodes a leaf may not hold (a call, code that may start other code, a monitor, a subroutine)
_NEVER: Final = frozenset(
    (
        op.INVOKEVIRTUAL,
        op.INVOKESPECIAL,
        op.INVOKESTATIC,
        op.INVOKEINTERFACE,
        op.INVOKEDYNAMIC,
        op.NEW,
        op.NEWARRAY,
        op.ANEWARRAY,
        op.MULTIANEWARRAY,
        op.MONITORENTER,
        op.MONITOREXIT,
        op.JSR,
        op.JSR_W,
        op.RET,
        op.WIDE,
        op.BREAKPOINT,
    )
)
_STATICS: Final = frozenset((op.GETSTATIC, op.PUTSTATIC))
_LDCS: Final = frozenset((op.LDC, op.LDC_W, op.LDC2_W))
_PLAIN_CONSTANTS: Final = frozenset((INTEGER, FLOAT, LONG, DOUBLE, STRING))


def statically_bound(class_access: int, access: int, name: str) -> bool:
    """Is a method with ``access`` (of a class with ``class_access``) one whose call selects it,
    with a body, outside interfaces, and not an initialiser or a synchronized method?"""
    if class_access & ACC_INTERFACE or name.startswith("<"):
        return False
    if access & (ACC_ABSTRACT | ACC_NATIVE | ACC_SYNCHRONIZED):
        return False
    return bool(access & (ACC_STATIC | ACC_PRIVATE | ACC_FINAL) or class_access & ACC_FINAL)


def declared_statics(fields) -> frozenset[tuple[str, str]]:
    """(name, descriptor) of the static ones among ``fields`` (a class's fields, or their
    summaries): the ``own_fields`` :func:`is_leaf_code` takes."""
    return frozenset((f.name, f.descriptor) for f in fields if f.access & ACC_STATIC)


def is_leaf_code(code: bytes, pool, owner: str, own_fields: frozenset[tuple[str, str]]) -> bool:
    """Is ``code`` (a Code attribute's code array) a leaf's: nothing in :data:`_NEVER`, static
    fields only of ``owner`` and declared there (``own_fields``: name, descriptor), ``ldc`` only of
    numbers and strings? False for anything it cannot read (unassigned opcodes, a truncated array)."""
    n = len(code)
    if n > MAX_LEAF_CODE:
        return False
    lengths = op.LENGTHS
    never = _NEVER
    pc = 0
    try:
        while pc < n:
            o = code[pc]
            if o in never:
                return False
            if o == op.TABLESWITCH or o == op.LOOKUPSWITCH:
                at = pc + 1 + ((-(pc + 1)) % 4)
                if o == op.TABLESWITCH:
                    low = int.from_bytes(code[at + 4 : at + 8], "big", signed=True)
                    high = int.from_bytes(code[at + 8 : at + 12], "big", signed=True)
                    if high < low:
                        return False
                    pc = at + 12 + 4 * (high - low + 1)
                else:
                    pairs = int.from_bytes(code[at + 4 : at + 8], "big", signed=True)
                    if pairs < 0:
                        return False
                    pc = at + 8 + 8 * pairs
                continue
            size = lengths[o]
            if not size:
                return False
            if o in _STATICS:
                cls, name, desc = pool.member_ref((code[pc + 1] << 8) | code[pc + 2])
                if cls != owner or (name, desc) not in own_fields:
                    return False
            elif o in _LDCS:
                index = code[pc + 1] if o == op.LDC else (code[pc + 1] << 8) | code[pc + 2]
                if pool.tag(index) not in _PLAIN_CONSTANTS:
                    return False
            pc += size
    except (IndexError, ValueError, KeyError, TypeError):
        return False
    return pc == n
