"""The MethodIds a rewritten class uses, and where they live (its holder class).

Kept apart from the class rewriter: the table is filled while methods are
rewritten and turned into the holder class's initialiser at the end.
"""

from __future__ import annotations

from ..classfile import opcodes as op
from ..classfile.instructions import Instruction
from ..classfile.model import ClassFile
from . import codegen as G
from .runtime_api import MID_GET
from .support import HOLDER_SUFFIX, INIT_FLAG_PREFIX, MIDS_ARRAY, MIDS_FIELD

__all__ = ["MidTable"]


class MidTable:
    """The MethodIds a class uses, in one static array of a small holder class of their own.

    Not in the class itself: code of a class can run before its ``<clinit>``
    (a superclass's initialiser that instantiates the subclass), and the holder
    is initialised on first use, whatever state its class is in.
    """

    def __init__(self, cf: ClassFile, pool) -> None:
        self.cf = cf
        self.pool = pool
        self.entries: list[tuple[str, str, str, int, int]] = []
        self.index: dict[tuple[str, str, str, int, int], int] = {}
        self.dispatchers = 0  #: inline-cache slots of interface dispatchers (``$jp$seen``)
        #: classes whose initialisation this class may trigger -> the number of their holder flag
        self.init_flags: dict[str, int] = {}

    def ref(self, owner: str, name: str, descriptor: str, kind: int, sites: int = 0) -> int:
        key = (owner.replace("/", "."), name, descriptor, kind, sites)
        i = self.index.get(key)
        if i is None:
            i = self.index[key] = len(self.entries)
            self.entries.append(key)
        return i

    @property
    def holder(self) -> str:
        return self.cf.name + HOLDER_SUFFIX

    def load(self, i: int, pool=None) -> list:
        pool = pool or self.pool
        return [
            Instruction(-1, op.GETSTATIC, pool.add_fieldref(self.holder, MIDS_FIELD, MIDS_ARRAY)),
            G.push_int(pool, i),
            Instruction(-1, op.AALOAD),
        ]

    def init_flag(self, target: str) -> int:
        """The fieldref of the holder's ``$jp$init<k>`` flag for class ``target`` (made on first use)."""
        k = self.init_flags.setdefault(target, len(self.init_flags))
        return self.pool.add_fieldref(self.holder, f"{INIT_FLAG_PREFIX}{k}", "Z")

    def loader(self, pool):
        """``load`` bound to ``pool`` (dispatchers are built in the class or in the holder)."""
        return lambda i: self.load(i, pool)

    def fill(self, pool, start: int, end: int) -> list:
        """``array`` on the stack: store entries [start, end) into it; the array stays on the stack."""
        get = pool.add_methodref(MID_GET.owner, MID_GET.name, MID_GET.descriptor)
        out: list = []
        for i in range(start, end):
            cls, name, desc, kind, sites = self.entries[i]
            out += [
                Instruction(-1, op.DUP),
                G.push_int(pool, i),
                Instruction(-1, op.LDC_W, pool.add_string(cls)),
                Instruction(-1, op.LDC_W, pool.add_string(name)),
                Instruction(-1, op.LDC_W, pool.add_string(desc)),
                G.push_int(pool, kind),
                G.push_int(pool, sites),
                Instruction(-1, op.INVOKESTATIC, get),
                Instruction(-1, op.AASTORE),
            ]
        return out
