"""The MethodIds a rewritten class uses, and where they live (its holder class).

Kept apart from the class rewriter: the table is filled while methods are
rewritten and turned into the holder class's initialiser at the end.

Each MethodId is a ``static final`` field of the holder (``$jp$m<k>``), set by the holder's
``<clinit>`` itself: once the holder is initialised the JIT compilers read such a field as a
constant, so a node's ``enter`` compares its cached child's method with an immediate instead of
loading the MethodId first, and the load is 3 bytes of bytecode instead of 7. Classes that could
need too many of them (the ``<clinit>`` must stay under 64 KB and the class's constant pool takes
three entries per field) keep one ``static final MethodId[] $jp$mids`` array; so does the
contract-only form, which the agent's Java contract writer must reproduce.
"""

from __future__ import annotations

from ..classfile import mutf8
from ..classfile import opcodes as op
from ..classfile.constants import ConstantPool
from ..classfile.instructions import Instruction
from ..classfile.model import ClassFile
from . import codegen as G
from .runtime_api import MID_GET, MID_LEAF_CALLEES, MID_TABLE
from .support import (
    HOLDER_SUFFIX,
    INIT_FLAG_PREFIX,
    KIND_INSTRUMENTED,
    MID_DESC,
    MID_FIELD_PREFIX,
    MIDS_ARRAY,
    MIDS_FIELD,
)

__all__ = [
    "MidTable",
    "MAX_FIELD_MIDS",
    "MAX_LEAF_SLOTS",
    "leaf_width",
    "mid_fields_fit",
    "packable_leaf",
    "take_leaf_slot",
]

#: most MethodId fields a holder gets (its ``<clinit>`` sets each with at most 20 bytes of code)
MAX_FIELD_MIDS = 2500
#: bytes of one packed table string (``MethodId.table``): a Utf8 constant holds at most 65535
_TABLE_BYTES = 65535
#: in a packed table string, the class name of the previous MethodId (``MethodId.SAME_CLASS``: the
#: length char of an empty name, which no holder's MethodId has; ASCII, as most of a table is)
_SAME_CLASS = "\x01"
#: longest name a packed entry holds (its length is one char); longer ones get ``MethodId.get``
_PACKED_NAME_LIMIT = 0xFFF0
_METHOD_REF_TAGS = frozenset((10, 11, 18))  # Methodref, InterfaceMethodref, InvokeDynamic
#: most methods of one class whose leaf calls are counted in slots (each costs the holder's
#: ``<clinit>`` about 10 bytes: ``MethodId.leafCallees``); the others enter their leaf calls
_MAX_LEAF_METHODS = 1500
#: most leaf slots of one method (its packed callees are one string constant); further leaf callees
#: are entered
MAX_LEAF_SLOTS = 200


def packable_leaf(owner: str, name: str, descriptor: str) -> bool:
    """Can a leaf callee be one entry of a packed list of leaf callees (``MethodId.leafCallees``)?"""
    return max(len(owner), len(name), len(descriptor)) < 0x400


def leaf_width(kind: int) -> int:
    """Slots a leaf callee of kind ``kind`` takes in its caller's node: its calls, and for an
    application leaf (a slot twin's, :mod:`.shape_slot`) its bytecodes in the next one."""
    return 2 if kind == KIND_INSTRUMENTED else 1


def take_leaf_slot(leaves: dict[tuple[str, str, str, int], int], callee: tuple[str, str, str, int]) -> int:
    """The slot of ``callee`` (class with dots, name, descriptor, kind) among a method's ``leaves``
    (callee -> first slot), a new one after the others if it has none; -1 when it cannot have one
    (past :data:`MAX_LEAF_SLOTS`, or a name too long to pack): its call is then entered."""
    slot = leaves.get(callee, -1)
    if slot < 0:
        used = sum(leaf_width(k[3]) for k in leaves)
        if used + leaf_width(callee[3]) <= MAX_LEAF_SLOTS and packable_leaf(callee[0], callee[1], callee[2]):
            slot = leaves[callee] = used
    return slot


def mid_fields_fit(cf: ClassFile) -> bool:
    """Can ``cf``'s MethodIds be fields of its holder? An upper bound of how many it may make: one per
    method reference of its pool for its call sites (two for a reference called both ways) and a few
    per method of its own (its MethodId, a delegating or native one, dispatchers)."""
    tags = cf.pool.tags
    refs = sum(1 for t in tags if t in _METHOD_REF_TAGS)
    bound = 2 * refs + 4 * len(cf.methods) + 16
    return bound <= MAX_FIELD_MIDS and len(tags) + 3 * bound < 60000


class MidTable:
    """The MethodIds a class uses, in one static array of a small holder class of their own.

    Not in the class itself: code of a class can run before its ``<clinit>``
    (a superclass's initialiser that instantiates the subclass), and the holder
    is initialised on first use, whatever state its class is in.
    """

    def __init__(self, cf: ClassFile, pool: ConstantPool, fields: bool = False) -> None:
        self.cf = cf
        self.pool = pool
        #: the holder's internal name (the class's name does not change while it is rewritten)
        self.holder = cf.name + HOLDER_SUFFIX
        #: entry -> its field's Fieldref in ``pool``: every call site loads a MethodId, and
        #: find-or-add would build the field's name and a memo key each time
        self._field_refs: dict[int, int] = {}
        self.fields = fields  #: one static final field per MethodId (else the array)
        self.entries: list[tuple[str, str, str, int, int]] = []
        self.index: dict[tuple[str, str, str, int, int], int] = {}
        self.dispatchers = 0  #: inline-cache slots of interface dispatchers (``$jp$seen``)
        #: classes whose initialisation this class may trigger -> the number of their holder flag
        self.init_flags: dict[str, int] = {}
        #: MethodId index of a method with leaf slots -> its leaf callees, packed (``MethodId.leafCallees``)
        self.leaves: dict[int, str] = {}

    def leaf_slots_open(self) -> bool:
        """May one more method of this class count its leaf calls in slots?"""
        return len(self.leaves) < _MAX_LEAF_METHODS

    def set_leaves(self, i: int, callees: list[tuple[str, str, str, int]]) -> None:
        """Entry ``i`` (a method's own MethodId) has leaf slots for ``callees`` (class with dots, name,
        descriptor, kind), in slot order: its holder tells the runtime so (:meth:`wire_leaves`)."""
        self.leaves[i] = "".join(
            f"{chr(len(c) + 1)}{c}{chr(len(n) + 1)}{n}{chr(len(d) + 1)}{d}{chr(k + 1)}" for c, n, d, k in callees
        )

    def drop_leaves(self, i: int) -> None:
        """Entry ``i`` has no leaf slots after all (its method was written again, split, without them)."""
        self.leaves.pop(i, None)

    def wire_leaves(self, pool: ConstantPool, code: G.StraightCode) -> None:
        """Each method's leaf callees given to its MethodId (the holder's ``<clinit>``, after the
        MethodIds are made and stored, before any code can reach them)."""
        if not self.leaves:
            return
        callees = pool.add_methodref(MID_LEAF_CALLEES.owner, MID_LEAF_CALLEES.name, MID_LEAF_CALLEES.descriptor)
        for i, packed in self.leaves.items():
            if self.fields:
                code.with_index(op.GETSTATIC, self._holder_field(pool, i), 0, 1)
            else:
                code.with_index(op.GETSTATIC, pool.add_fieldref(self.holder, MIDS_FIELD, MIDS_ARRAY), 0, 1)
                code.push_int(pool, i)
                code.simple(op.AALOAD, 2, 1)
            code.ldc(pool.add_string(packed))
            code.with_index(op.INVOKEVIRTUAL, callees, 2, 0)

    def ref(self, owner: str, name: str, descriptor: str, kind: int, sites: int = 0) -> int:
        key = (owner.replace("/", "."), name, descriptor, kind, sites)
        i = self.index.get(key)
        if i is None:
            i = self.index[key] = len(self.entries)
            self.entries.append(key)
        return i

    def load(self, i: int, pool: ConstantPool | None = None) -> list:
        if self.fields:
            if pool is None or pool is self.pool:
                return [Instruction(-1, op.GETSTATIC, self._field_ref(i))]
            return [Instruction(-1, op.GETSTATIC, pool.add_fieldref(self.holder, f"{MID_FIELD_PREFIX}{i}", MID_DESC))]
        pool = pool or self.pool
        return [
            Instruction(-1, op.GETSTATIC, pool.add_fieldref(self.holder, MIDS_FIELD, MIDS_ARRAY)),
            G.push_int(pool, i),
            Instruction(-1, op.AALOAD),
        ]

    def write(self, i: int, code: G.StraightCode) -> None:
        """:meth:`load` written as bytes (in the class's own pool): the MethodId on the stack."""
        if self.fields:
            code.with_index(op.GETSTATIC, self._field_ref(i), 0, 1)
            return
        code.with_index(op.GETSTATIC, self.pool.add_fieldref(self.holder, MIDS_FIELD, MIDS_ARRAY), 0, 1)
        code.push_int(self.pool, i)
        code.simple(op.AALOAD, 2, 1)

    def _field_ref(self, i: int) -> int:
        """The Fieldref of entry ``i``'s field in the class's pool, made on first need."""
        ref = self._field_refs.get(i)
        if ref is None:
            ref = self._field_refs[i] = self.pool.add_fieldref(self.holder, f"{MID_FIELD_PREFIX}{i}", MID_DESC)
        return ref

    def init_flag(self, target: str) -> int:
        """The fieldref of the holder's ``$jp$init<k>`` flag for class ``target`` (made on first use)."""
        k = self.init_flags.setdefault(target, len(self.init_flags))
        return self.pool.add_fieldref(self.holder, f"{INIT_FLAG_PREFIX}{k}", "Z")

    def resolve_flag(self, target: str) -> int:
        """The fieldref of the holder's flag "``target`` has been resolved by this class's loader"
        (one more ``$jp$init<k>``, apart from ``target``'s initialisation flag)."""
        return self.init_flag("resolve " + target)  # (no class name holds a space)

    def fill_fields(self, pool: ConstantPool, code: G.StraightCode) -> None:
        """Every MethodId made and stored in its field (the holder's ``<clinit>``: only there are
        static final fields constants to the JIT compilers).

        The MethodIds come from ``MethodId.table(packed, count)``, a string constant packing up to
        64 KB of them (:meth:`_packed`): one constant and about 7 bytes of code per MethodId,
        where ``MethodId.get`` takes three string constants, two ints and about 15 bytes."""
        table = pool.add_methodref(MID_TABLE.owner, MID_TABLE.name, MID_TABLE.descriptor)
        n = len(self.entries)
        start = 0
        while start < n:
            packed, end = self._packed(start)
            if end == start:  # a name too long to pack: this one through MethodId.get
                get = pool.add_methodref(MID_GET.owner, MID_GET.name, MID_GET.descriptor)
                self._make(pool, get, start, code)
                code.with_index(op.PUTSTATIC, self._holder_field(pool, start), 1, 0)
                start += 1
                continue
            code.ldc(pool.add_string(packed))
            code.push_int(pool, end - start)
            code.with_index(op.INVOKESTATIC, table, 2, 1)
            for i in range(start, end):  # the array stays on the stack until the last
                code.simple(op.DUP, 0, 1)
                code.push_int(pool, i - start)
                code.simple(op.AALOAD, 2, 1)
                code.with_index(op.PUTSTATIC, self._holder_field(pool, i), 1, 0)
            code.simple(op.POP, 1, 0)
            start = end

    def _holder_field(self, pool: ConstantPool, i: int) -> int:
        return pool.add_fieldref(self.holder, f"{MID_FIELD_PREFIX}{i}", MID_DESC)

    def _packed(self, start: int) -> tuple[str, int]:
        """The packed string of entries [start, end) (``MethodId.table``'s format), and ``end``:
        as many as fit in one Utf8 constant (``end == start``: entry ``start`` cannot be packed)."""
        parts: list[str] = []
        size = 0
        previous = ""  # (no packed class name is empty)
        for i in range(start, len(self.entries)):
            cls, name, desc, kind, sites = self.entries[i]
            if not cls or max(len(cls), len(name), len(desc)) > _PACKED_NAME_LIMIT or not 0 <= sites < 0xFFF0:
                return "".join(parts), i
            head = _SAME_CLASS if cls == previous else chr(len(cls) + 1) + cls
            entry = f"{head}{chr(len(name) + 1)}{name}{chr(len(desc) + 1)}{desc}{chr(kind + 1)}{chr(sites + 1)}"
            entry_size = len(entry) if entry.isascii() else len(mutf8.encode(entry))
            if size + entry_size > _TABLE_BYTES:
                return "".join(parts), i
            parts.append(entry)
            size += entry_size
            previous = cls
        return "".join(parts), len(self.entries)

    def fill(self, pool: ConstantPool, start: int, end: int, code: G.StraightCode) -> None:
        """``array`` on the stack: store entries [start, end) into it; the array stays on the stack."""
        get = pool.add_methodref(MID_GET.owner, MID_GET.name, MID_GET.descriptor)
        for i in range(start, end):
            code.simple(op.DUP, 0, 1)
            code.push_int(pool, i)
            self._make(pool, get, i, code)
            code.simple(op.AASTORE, 3, 0)

    def _make(self, pool: ConstantPool, get: int, i: int, code: G.StraightCode) -> None:
        """``MethodId.get(class, name, descriptor, kind, sites)`` of entry ``i``: the MethodId on the stack."""
        cls, name, desc, kind, sites = self.entries[i]
        code.ldc(pool.add_string(cls))
        code.ldc(pool.add_string(name))
        code.ldc(pool.add_string(desc))
        code.push_int(pool, kind)
        code.push_int(pool, sites)
        code.with_index(op.INVOKESTATIC, get, 5, 1)
