"""The project's own bytecode verifier: would the JVM accept this method? (JVMS 4.6-4.10)

Why it exists: a rewriter must never emit a method that the JVM rejects (a
``VerifyError`` or ``ClassFormatError`` at class-load time takes the whole
program down, far from the rewriter). This module checks a method the way
HotSpot (JDK 17) does, *independently of how the method was built*: it reads the
code bytes, the exception table, the StackMapTable and the debug tables of the
class file, never the editor's labels or the frames a transformation meant to
write. The rewriter runs it as a gate on every method it changed or added; a
method that fails is emitted uninstrumented.

API: :func:`verify_method` and :func:`verify_class` return a list of
:class:`VerifyProblem` (empty: the method verifies). At most one problem per
method, the first in the order HotSpot meets them (HotSpot stops there too).

What is checked, per method
---------------------------
* Format (ClassFormatError territory, as far as a rewriter can break it): the
  method's access flags (JVMS 4.6: visibility, abstract combinations,
  ``<init>``/``<clinit>``, interface methods by class-file version), no other
  method with the same name and descriptor, code present exactly when the
  method is neither abstract nor native, code length 1..65535, the arguments
  fit ``max_locals``; exception table rows inside the code with ``start_pc <
  end_pc``; LineNumberTable pcs inside the code; LocalVariableTable and
  LocalVariableTypeTable ranges inside the code, slots inside ``max_locals``, no
  duplicate rows, every LVTT row matching an LVT row.
* Structure (JVMS 4.9): every instruction decodes (no ``breakpoint``/``impdep``,
  ``wide`` only before loads, stores, iinc and ret, no truncated instruction);
  branch and switch targets, handler start/end/handler pcs and
  LocalVariableTable ranges on instruction starts (an end may equal the code
  length); catch types are Class constants assignable to java/lang/Throwable;
  ``jsr``/``ret`` only below version 51; switch padding zero below version 51;
  lookupswitch keys sorted; invokeinterface count and zero byte, invokedynamic
  zero bytes (and only from version 51); constant-pool entries of the right
  kind for ldc, field and invoke instructions (interface methods by
  invokestatic/invokespecial only from version 52); ``<init>`` called only by
  invokespecial, ``<clinit>`` never; multianewarray dimensions, newarray types.
* Version >= 50: type checking against the StackMapTable (JVMS 4.10.1), the way
  HotSpot's ``ClassVerifier::verify_method`` does it: ONE linear pass over
  *every* instruction, dead code included. The state after an instruction that
  does not fall through (goto, switches, returns, athrow) is unknown, so the
  next instruction must have a frame and the pass continues from that frame.
  Frames lie on instruction starts, inside max_locals/max_stack, and their
  ``Uninitialized`` entries name a ``new``. At every instruction with a frame
  that is reached by falling through, and at every branch/switch target, the
  incoming state must be assignable to the recorded frame (JVMS
  ``frameIsAssignable``: same stack height, locals and stack entries
  ``isAssignable``, flagThisUninit a subset). For every instruction inside an
  exception range the locals (before a store, otherwise after the instruction,
  as HotSpot does) with the stack ``[catch type]`` must be assignable to the
  handler's frame. Operand types of every instruction; local indices inside
  max_locals (two slots for long/double, a long split by a store is no long);
  the stack never deeper than max_stack nor popped when empty, category-1/2
  rules of pop/dup/swap; the return instruction matching the descriptor;
  uninitialized objects (``<init>`` of the class that was ``new``-ed, of this
  class or its superclass on uninitializedThis, ``putfield`` on
  uninitializedThis only for the class's own fields, a constructor may not
  return before ``super()``/``this()``, handlers covering that call must end in
  athrow, uninitialized objects are not initialized references);
  ``invokespecial`` owner rules; protected member access (JVMS 4.10.1.8) where
  the hierarchy can answer; no fall-through past the end.
* Version < 50, and version-50 methods that use ``jsr``/``ret`` (HotSpot fails
  over to the old verifier for those): the same per-instruction checks by
  data-flow inference over the reachable code (JVMS 4.10.2), states merged at
  join points through the class hierarchy; subroutines are followed with
  return-address types, and locals a subroutine does not write keep the types
  of its caller.

Class hierarchy and leniency
----------------------------
Reference assignability asks the hierarchy (a
:class:`~jprewrite.analysis.hierarchy.ClassHierarchy`, or None). HotSpot would
load the classes, and fail with ``NoClassDefFoundError`` when one is missing; a
rewriter's class path is often incomplete, so this verifier is *lenient* where
the hierarchy cannot answer: a reference is assignable to a class that cannot be
found, or whose relation to the source cannot be decided because a superclass of
the source is missing; a merge (inference) that needs a missing class gives a
reference assignable to anything. With ``hierarchy=None`` every class-to-class
question is answered "assignable" (arrays, primitives, null, uninitialized
types and interfaces are still checked exactly) and no protected-access check
is made. Interfaces are treated as java/lang/Object (any reference is
assignable to an interface type, arrays only to Cloneable and Serializable),
exactly as HotSpot does. The class being checked is described by the ClassFile
itself, not by the hierarchy (it may be a rewritten class the hierarchy has an
older copy of, or none).

What is not checked (known gaps)
--------------------------------
* Resolution and linking: that referenced classes, fields and methods exist,
  access rights other than the protected-member rule, loader constraints,
  overriding of final methods, class-level structure (super class final or an
  interface, ...).
* Class-file format beyond the method checks above: the constant pool,
  descriptors and names (beyond what reading needs), fields, class attributes,
  attributes of Code other than StackMapTable, LineNumberTable,
  LocalVariableTable and LocalVariableTypeTable; strictfp and other flag
  combinations not listed above.
* HotSpot's fail-over to the old verifier for version-50 classes: a version-50
  method whose StackMapTable is wrong is rejected here although HotSpot would
  verify it again by inference (the project's rule: rewritten version-50
  classes must carry correct frames). Only methods using jsr/ret go to inference.
* JDK differences: this follows JDK 17. Frame flags are "some local (or this
  frame's stack entry) is uninitializedThis", which differs from JDK 17 only
  for a same_frame that follows a frame with uninitializedThis on its stack.
  Backward branches with uninitialized objects are allowed, as in JDK 17.
* The old (< 50) verifier is approximated: subroutines nested several levels
  deep or left without ``ret`` are followed conservatively (merges), the
  handler state is the merge of the states before every covered instruction
  (and after stores and ``<init>`` calls).
* Messages say what is wrong in this module's words, not HotSpot's.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from itertools import pairwise
from typing import TYPE_CHECKING, Any, cast

from ..classfile import constants as C
from ..classfile import opcodes as op
from ..classfile.attributes import CODE, decode_attribute
from ..classfile.code import CodeAttribute, StackMapTable
from ..classfile.descriptors import parse_method_descriptor
from ..classfile.frames import (
    Double,
    Float,
    Integer,
    Long,
    Null,
    Object,
    Top,
    Uninitialized,
    UninitializedThis,
    VType,
    decode_stack_map_table,
    initial_frame_locals,
    vtype_of_descriptor,
)
from ..classfile.instructions import decode_instructions
from ..classfile.model import (
    ACC_ABSTRACT,
    ACC_FINAL,
    ACC_NATIVE,
    ACC_PRIVATE,
    ACC_PROTECTED,
    ACC_PUBLIC,
    ACC_STATIC,
    ACC_SYNCHRONIZED,
    ClassFile,
    Method,
)
from ..errors import JprewriteError

if TYPE_CHECKING:  # pragma: no cover
    from .hierarchy import ClassHierarchy

__all__ = ["VerifyProblem", "verify_method", "verify_class"]

OBJECT = "java/lang/Object"
THROWABLE = "java/lang/Throwable"
_ARRAY_INTERFACES = ("java/lang/Cloneable", "java/io/Serializable")


# ------------------------------------------------------------------- results
@dataclass(frozen=True, slots=True)
class VerifyProblem:
    """Why a method would not verify: ``method`` is ``pkg.C.name(desc)``, ``offset`` the bytecode
    offset (-1 when the problem is not at one instruction), ``reason`` one line."""

    method: str
    offset: int
    reason: str

    def __str__(self) -> str:
        where = f" @{self.offset}" if self.offset >= 0 else ""
        return f"{self.method}{where}: {self.reason}"


#: the offset of a _Fail raised while an instruction executes: the engine fills in its pc
_HERE = -2


class _Fail(Exception):
    """The first problem of a method (raised deep in the checker, turned into a VerifyProblem)."""

    def __init__(self, offset: int, reason: str) -> None:
        super().__init__(reason)
        self.offset = offset
        self.reason = reason


# ------------------------------------------------------------ private types
class _Half(VType):
    """The second slot of a long or double (HotSpot's long_2nd/double_2nd).

    Stack and locals are slot lists here, as in HotSpot: a long is ``Long``
    followed by ``_LONG2``, so depth is ``len(stack)`` and dup2 & co. work on slots.
    """

    __slots__ = ("_name",)
    _name: str

    def __init__(self, name: str) -> None:
        object.__setattr__(self, "_name", name)

    def __repr__(self) -> str:
        return self._name


_LONG2 = _Half("Long_2nd")
_DOUBLE2 = _Half("Double_2nd")


class _ReturnAddress(VType):
    """What jsr pushes (inference only: no frame can hold it); ``target`` names the subroutine."""

    __slots__ = ("target",)
    target: int

    def __init__(self, target: int) -> None:
        object.__setattr__(self, "target", target)

    def __eq__(self, other: object) -> bool:
        return type(other) is _ReturnAddress and other.target == self.target

    def __hash__(self) -> int:
        return hash(("ret", self.target))

    def __repr__(self) -> str:
        return f"returnAddress({self.target})"


class _AnyRef(VType):
    """Inference only: the merge of two classes whose common superclass the hierarchy cannot
    tell (a supertype is missing). Lenient: it is assignable to every reference type."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "reference(unknown class)"


_ANYREF = _AnyRef()
_SECOND: dict[object, _Half] = {Long: _LONG2, Double: _DOUBLE2}


def _show(t: object) -> str:
    if type(t) is Object:
        return t.name
    if type(t) is Uninitialized:
        return f"uninitialized({t.offset})"
    if t is UninitializedThis:
        return "uninitializedThis"
    return repr(t).lower() if t in (Top, Integer, Float, Long, Double, Null) else repr(t)


def _is_ref(t: object) -> bool:
    """An initialized reference (HotSpot is_reference: null included)."""
    return type(t) is Object or t is Null or t is _ANYREF


def _is_ref_or_uninit(t: object) -> bool:
    """HotSpot's reference_check: any reference, initialized or not."""
    return type(t) is Object or t is Null or type(t) is Uninitialized or t is UninitializedThis or t is _ANYREF


def _cat1(t: object) -> bool:
    """A one-slot value (HotSpot is_category1): not top, not a long/double or their halves."""
    return not (t is Top or t is Long or t is Double or t is _LONG2 or t is _DOUBLE2)


def _expand(types: Iterable[VType]) -> list:
    """One entry per slot: each Long/Double followed by its second half."""
    out: list = []
    for t in types:
        out.append(t)
        if t is Long:
            out.append(_LONG2)
        elif t is Double:
            out.append(_DOUBLE2)
    return out


def _array_of(name: str) -> str:
    return "[" + name if name[0] == "[" else f"[L{name};"


def _package(name: str) -> str:
    return name.rpartition("/")[0]


# ------------------------------------------------------------ class context
class _Types:
    """Assignability and hierarchy questions for one class being verified (answers cached).

    ``hierarchy`` may be None; see the module docstring for the lenient answers.
    The current class is described by ``cf`` (its super class and interfaces).
    """

    def __init__(self, cf: ClassFile, hierarchy: ClassHierarchy | None) -> None:
        self.hierarchy = hierarchy
        self.this = cf.name
        self.this_type = Object(cf.name)
        self.super_name = cf.super_name
        self.interfaces = tuple(cf.interfaces)
        self.this_is_interface = cf.is_interface()
        self._assignable: dict[tuple[str, str], bool] = {}
        self._infos: dict[str, object] = {}
        self._in_supers: dict[str, bool] = {}
        self._protected: dict[tuple[str, str, str, bool], bool] = {}
        # constant-pool index -> what the checker needs of the constant (shared by the class's methods)
        self.fields: dict[int, _FieldInfo] = {}
        self.methods: dict[int, _MethodInfo] = {}
        self.indy: dict[int, _MethodInfo] = {}
        self.ldc: dict[int, tuple] = {}  # index (negated for ldc2_w) -> entries pushed

    # --- hierarchy access (the current class answered from the ClassFile)
    def _info(self, name: str):
        try:
            return self._infos[name]
        except KeyError:
            pass
        info = None
        if self.hierarchy is not None and name != self.this:
            try:
                info = self.hierarchy.info(name)
            except JprewriteError:
                info = None
        self._infos[name] = info
        return info

    def is_interface(self, name: str) -> bool | None:
        """True/False, or None when the class cannot be found."""
        if name == self.this:
            return self.this_is_interface
        info = self._info(name)
        return None if info is None else info.is_interface

    def super_of(self, name: str) -> tuple[bool, str | None]:
        """(known, superclass name)."""
        if name == self.this:
            return True, self.super_name
        info = self._info(name)
        if info is None:
            return False, None
        return True, info.super_name

    def is_subclass(self, sub: str, sup: str) -> bool | None:
        """``sup`` in the superclass chain of ``sub`` (itself included); None if a link is missing."""
        name: str | None = sub
        seen = 0
        while name is not None and seen < 512:
            if name == sup:
                return True
            known, name = self.super_of(name)
            if not known:
                return None
            seen += 1
        return False

    def name_in_supers(self, name: str) -> bool:
        """``name`` is a proper superclass of the current class (HotSpot name_in_supers)."""
        r = self._in_supers.get(name)
        if r is None:
            r = self._in_supers[name] = name != self.this and self.is_subclass(self.this, name) is True
        return r

    # --- assignability (HotSpot VerificationType::is_assignable_from)
    def ref_assignable(self, src: str, dst: str) -> bool:
        """May a reference of class/array ``src`` be used where ``dst`` is expected?"""
        if src == dst or dst == OBJECT:
            return True
        key = (src, dst)
        r = self._assignable.get(key)
        if r is None:
            r = self._assignable[key] = self._compute(src, dst)
        return r

    def _compute(self, src: str, dst: str) -> bool:
        if dst[0] == "[":
            if src[0] != "[":
                return False
            cs, cd = src[1:], dst[1:]
            if cd[0] in "L[" and cs[0] in "L[":
                return self.ref_assignable(cs[1:-1] if cs[0] == "L" else cs, cd[1:-1] if cd[0] == "L" else cd)
            return cs == cd  # primitive components must be identical
        iface = self.is_interface(dst)
        if iface is None:
            return True  # lenient: the target class cannot be found
        if iface:
            return src[0] != "[" or dst in _ARRAY_INTERFACES
        if src[0] == "[":
            return False
        sub = self.is_subclass(src, dst)
        return True if sub is None else sub  # lenient when the source's chain is cut

    def assignable(self, src: Any, dst: Any) -> bool:
        """JVMS isAssignable(src, dst) for verification types (slot entries).

        (Any for the type checker only: slot entries include the checker's own types, and ``dst`` is
        narrowed through ``type(dst)`` once, which the checker cannot follow.)"""
        if src is dst or dst is Top:
            return True
        tdst = type(dst)
        if tdst is Object:
            if type(src) is Object:
                return self.ref_assignable(src.name, dst.name)
            return src is Null or src is _ANYREF
        if tdst is Uninitialized:
            return type(src) is Uninitialized and src.offset == dst.offset
        if dst is _ANYREF:
            return _is_ref(src)
        return src == dst

    # --- merging (inference only)
    def merge(self, a: object, b: object) -> object | None:
        """The merged type of two values, or None when they do not merge (locals become Top)."""
        if a is b or a == b:
            return a
        if a is Null:
            return b if (type(b) is Object or b is _ANYREF) else None
        if b is Null:
            return a if (type(a) is Object or a is _ANYREF) else None
        if a is _ANYREF or b is _ANYREF:
            return _ANYREF if (_is_ref(a) and _is_ref(b)) else None
        if type(a) is Object and type(b) is Object:
            return self._lub(a.name, b.name)
        return None

    def _lub(self, a: str, b: str) -> object:
        """Least common superclass (interfaces count as java/lang/Object, as in the old verifier);
        _ANYREF when a missing class hides it (never a guess that could be too specific)."""
        if a == b:
            return _object(a)
        if a[0] == "[" or b[0] == "[":
            if a[0] == "[" and b[0] == "[" and a[1] in "L[" and b[1] in "L[":
                m = self._lub(a[2:-1] if a[1] == "L" else a[1:], b[2:-1] if b[1] == "L" else b[1:])
                return Object(_array_of(m.name)) if type(m) is Object else _ANYREF
            return Object(OBJECT)
        ia, ib = self.is_interface(a), self.is_interface(b)
        if ia is None or ib is None:
            return _ANYREF
        if ia or ib:
            return Object(OBJECT)
        chain: list[str] = []
        name: str | None = a
        while name is not None and len(chain) < 512:
            chain.append(name)
            known, name = self.super_of(name)
            if not known:
                return _ANYREF
        name = b
        members = set(chain)
        while name is not None:
            if name in members:
                return Object(name)
            known, name = self.super_of(name)
            if not known:
                return _ANYREF
        return Object(OBJECT)

    # --- members (JVMS 4.10.1.8 protected access)
    def is_protected_elsewhere(self, owner: str, name: str, desc: str, is_method: bool) -> bool:
        """Is this member use subject to the protected-access check? (HotSpot is_protected_access)

        Only when ``owner`` is a proper superclass of the current class and the member it
        resolves to is protected and declared in another package. Unknown: no check (lenient).
        """
        key = (owner, name, desc, is_method)
        r = self._protected.get(key)
        if r is None:
            r = self._protected[key] = self._compute_protected(owner, name, desc, is_method)
        return r

    def _compute_protected(self, owner: str, name: str, desc: str, is_method: bool) -> bool:
        h = self.hierarchy
        if h is None or owner[0] == "[" or not self.name_in_supers(owner):
            return False
        try:
            m = h.resolve_method(owner, name, desc) if is_method else h.resolve_field(owner, name, desc)
        except JprewriteError:
            return False
        return m is not None and m.is_protected and _package(m.owner) != _package(self.this)


# ------------------------------------------------------------ instruction tables
_I, _F = Integer, Float
_LP = (_LONG2, Long)  # popping a long: top first
_DP = (_DOUBLE2, Double)
_LS = (Long, _LONG2)  # pushing a long
_DS = (Double, _DOUBLE2)
_OBJECT = Object(OBJECT)
_THROWABLE = Object(THROWABLE)

# Each opcode has a kind (what the checker does) and a static argument (_ARG) for that kind.
(
    K_BAD,
    K_LOAD,
    K_ALOAD,
    K_STORE,
    K_ASTORE,
    K_SIMPLE,
    K_GETFIELD,
    K_PUTFIELD,
    K_GETSTATIC,
    K_PUTSTATIC,
    K_INVOKE,
    K_IF,
    K_IFREF,
    K_GOTO,
    K_IINC,
    K_RETURN,
    K_VRETURN,
    K_ARRLOAD,
    K_ARRSTORE,
    K_AALOAD,
    K_AASTORE,
    K_STACKOP,
    K_LDC,
    K_NEW,
    K_CHECKCAST,
    K_INSTANCEOF,
    K_ATHROW,
    K_ARRAYLENGTH,
    K_MONITOR,
    K_NEWARRAY,
    K_ANEWARRAY,
    K_MULTI,
    K_SWITCH,
    K_INVOKEDYNAMIC,
    K_SUBROUTINE,
    K_WIDE,
) = range(36)
_KIND = [K_BAD] * 256
_ARG: list = [None] * 256
_LEN = op.LENGTHS  # instruction length by opcode (0: switches and wide, computed)


def _kind(ops: Iterable[int], kind: int, arg: object = None) -> None:
    for o in ops:
        _KIND[o] = kind
        _ARG[o] = arg


def _slot_form(values: str, top_first: bool) -> tuple:
    """Stack entries of the values of an opcodes.SIGNATURES string (a long or double is two)."""
    out: list = []
    for v in values:
        t = op.VALUE_TYPES[v]
        out.extend((t, _SECOND[t]) if t in _SECOND else (t,))
    return tuple(reversed(out)) if top_first else tuple(out)


# fixed primitive effects: (types popped, top first; entries pushed), for every signature of
# primitive (and null) values only; the kinds set below take over the opcodes they check
# otherwise (loads, stores, branches, returns, switches, iinc, ret).
for _o, (_pops, _pushes) in op.SIGNATURES.items():
    if all(v in op.VALUE_TYPES for v in _pops + _pushes):
        _kind([_o], K_SIMPLE, (_slot_form(_pops, True), _slot_form(_pushes, False)))
# loads and stores: (type, slot or -1 for the operand, second half or None)
for _general in (op.ILOAD, op.LLOAD, op.FLOAD, op.DLOAD, op.ISTORE, op.LSTORE, op.FSTORE, op.DSTORE):
    _t = op.LOCAL_TYPES[_general]
    _kind([_general], K_STORE if _general in op.STORE_OPCODES else K_LOAD, (_t, -1, _SECOND.get(_t)))
for _short, (_general, _k) in op.SHORT_FORMS.items():
    if _general in op.LOCAL_TYPES:
        _t = op.LOCAL_TYPES[_general]
        _kind([_short], K_STORE if _general in op.STORE_OPCODES else K_LOAD, (_t, _k, _SECOND.get(_t)))
_kind([op.ALOAD], K_ALOAD, -1)
_kind([op.ASTORE], K_ASTORE, -1)
for _k in range(4):
    _kind([op.ALOAD_0 + _k], K_ALOAD, _k)
    _kind([op.ASTORE_0 + _k], K_ASTORE, _k)
_kind([op.GETFIELD], K_GETFIELD)
_kind([op.PUTFIELD], K_PUTFIELD)
_kind([op.GETSTATIC], K_GETSTATIC)
_kind([op.PUTSTATIC], K_PUTSTATIC)
_kind([op.INVOKEVIRTUAL, op.INVOKESPECIAL, op.INVOKESTATIC, op.INVOKEINTERFACE], K_INVOKE)
_kind([op.INVOKEDYNAMIC], K_INVOKEDYNAMIC)
for _o in (*range(op.IFEQ, op.IFLE + 1), *range(op.IF_ICMPEQ, op.IF_ICMPLE + 1)):
    _kind([_o], K_IF, _slot_form(op.SIGNATURES[_o][0], True))
_kind([op.IF_ACMPEQ, op.IF_ACMPNE], K_IFREF, 2)
_kind([op.IFNULL, op.IFNONNULL], K_IFREF, 1)
_kind([op.GOTO, op.GOTO_W], K_GOTO)
_kind([op.IINC], K_IINC)
# returns: the descriptor characters the instruction may return
_kind([op.IRETURN], K_RETURN, "BCISZ")
_kind([op.LRETURN], K_RETURN, "J")
_kind([op.FRETURN], K_RETURN, "F")
_kind([op.DRETURN], K_RETURN, "D")
_kind([op.ARETURN], K_RETURN, "L[")
_kind([op.RETURN], K_VRETURN)
# array element access: (element descriptors accepted, pushed / popped value entries)
for _o, _arg in (
    (op.IALOAD, ("I", (_I,))),
    (op.BALOAD, ("BZ", (_I,))),
    (op.CALOAD, ("C", (_I,))),
    (op.SALOAD, ("S", (_I,))),
    (op.LALOAD, ("J", _LS)),
    (op.FALOAD, ("F", (_F,))),
    (op.DALOAD, ("D", _DS)),
):
    _kind([_o], K_ARRLOAD, _arg)
for _o, _store_arg in (
    (op.IASTORE, ("I", (_I,))),
    (op.BASTORE, ("BZ", (_I,))),
    (op.CASTORE, ("C", (_I,))),
    (op.SASTORE, ("S", (_I,))),
    (op.LASTORE, ("J", _LP)),
    (op.FASTORE, ("F", (_F,))),
    (op.DASTORE, ("D", _DP)),
):
    _kind([_o], K_ARRSTORE, _store_arg)
_kind([op.AALOAD], K_AALOAD)
_kind([op.AASTORE], K_AASTORE)
_kind([op.POP, op.POP2, op.DUP, op.DUP_X1, op.DUP_X2, op.DUP2, op.DUP2_X1, op.DUP2_X2, op.SWAP], K_STACKOP)
_kind([op.LDC, op.LDC_W, op.LDC2_W], K_LDC)
_kind([op.NEW], K_NEW)
_kind([op.CHECKCAST], K_CHECKCAST)
_kind([op.INSTANCEOF], K_INSTANCEOF)
_kind([op.ATHROW], K_ATHROW)
_kind([op.ARRAYLENGTH], K_ARRAYLENGTH)
_kind([op.MONITORENTER, op.MONITOREXIT], K_MONITOR)
_kind([op.NEWARRAY], K_NEWARRAY)
_kind([op.ANEWARRAY], K_ANEWARRAY)
_kind([op.MULTIANEWARRAY], K_MULTI)
_kind([op.TABLESWITCH, op.LOOKUPSWITCH], K_SWITCH)
_kind([op.JSR, op.JSR_W, op.RET], K_SUBROUTINE)
_kind([op.WIDE], K_WIDE)
#: instructions after which control does not fall through to the next one (jsr: not until ret)
_ENDS = tuple(o in op.UNCONDITIONAL_OPCODES or o in op.JSR_OPCODES for o in range(256))
_STORES = op.ANY_STORE_OPCODES
_JSR = op.JSR_OPCODES
_SUBROUTINE = op.SUBROUTINE_OPCODES
_CONDITIONAL = op.CONDITIONAL_BRANCH_OPCODES
_NEWARRAY = op.NEWARRAY_DESCRIPTORS
_LDC_TYPES = {tag: (t,) for tag, t in op.LDC_TYPES.items() if t not in _SECOND}
_LDC2_TYPES = {tag: (t, _SECOND[t]) for tag, t in op.LDC_TYPES.items() if t in _SECOND}
_MEMBER_TAGS = (C.FIELDREF, C.METHODREF, C.INTERFACE_METHODREF)
_DEBUG_TABLES = frozenset(("LineNumberTable", "LocalVariableTable", "LocalVariableTypeTable"))


def _push_of(desc: str) -> tuple:
    """Slot entries a value of field type ``desc`` takes on the stack."""
    t = vtype_of_descriptor(desc)
    return (t, _SECOND[t]) if t in _SECOND else (t,)


_OBJECTS: dict[str, Object] = {}


def _object(name: str) -> Object:
    """A shared Object type for ``name`` (verification types are immutable)."""
    t = _OBJECTS.get(name)
    if t is None:
        if len(_OBJECTS) > 100_000:
            _OBJECTS.clear()
        t = _OBJECTS[name] = Object(name)
    return t


@lru_cache(maxsize=8192)
def _field_shape(desc: str) -> tuple[tuple, tuple]:
    """(entries popped top first, entries pushed) for a value of field type ``desc``."""
    push = _push_of(desc)
    if type(push[0]) is Object:
        push = (_object(push[0].name),)
    return tuple(reversed(push)), push


@lru_cache(maxsize=8192)
def _method_shape(desc: str) -> tuple[tuple, tuple, int]:
    """(argument entries popped top first, entries pushed, argument slots) of a method descriptor."""
    md = parse_method_descriptor(desc)
    args: list = []
    for p in md.params:
        args.extend(_field_shape(p)[1])
    push = () if md.return_type == "V" else _field_shape(md.return_type)[1]
    return tuple(reversed(args)), push, len(args)


class _FieldInfo:
    """A Fieldref as the checker needs it (cached per constant-pool index, per class)."""

    __slots__ = ("owner", "owner_type", "name", "desc", "pops", "push", "protected")

    def __init__(self, owner: str, name: str, desc: str, protected: bool) -> None:
        self.owner, self.name, self.desc = owner, name, desc
        self.owner_type = _object(owner)
        self.pops, self.push = _field_shape(desc)
        self.protected = protected  # a protected field of a superclass in another package


class _MethodInfo:
    """A Methodref/InterfaceMethodref as the checker needs it (cached per constant-pool index)."""

    __slots__ = ("tag", "owner", "owner_type", "name", "desc", "args", "push", "slots", "protected")

    def __init__(self, tag: int, owner: str, name: str, desc: str, protected: bool) -> None:
        self.tag, self.owner, self.name, self.desc = tag, owner, name, desc
        self.owner_type = _object(owner)
        self.args, self.push, self.slots = _method_shape(desc)  # args: top of the stack first
        self.protected = protected


# ------------------------------------------------------------------ frames
class _Frame:
    """A StackMapTable frame in slot form: ``locals`` (unpadded), ``stack``, flagThisUninit,
    ``checks`` (the non-Top locals, what assignability has to look at) and ``padded``
    (locals filled with Top up to max_locals, what the state becomes at this frame)."""

    __slots__ = ("offset", "locals", "stack", "flag", "checks", "padded")

    def __init__(self, offset: int, locals_: list, stack: list, max_locals: int) -> None:
        self.offset = offset
        self.locals = locals_
        self.stack = stack
        self.flag = UninitializedThis in locals_ or UninitializedThis in stack
        self.checks = [(i, t) for i, t in enumerate(locals_) if t is not Top]
        self.padded = locals_ + [Top] * (max_locals - len(locals_))


class _Handler:
    __slots__ = ("start", "end", "pc", "catch", "frame", "problem", "seen")

    def __init__(self, start: int, end: int, pc: int, catch: Object) -> None:
        self.start, self.end, self.pc, self.catch = start, end, pc, catch
        self.frame: _Frame | None = None
        self.problem: str | None = None
        self.seen: tuple | None = None


class _NeedsInference(Exception):
    """Version-50 code with jsr/ret: HotSpot verifies it by inference (the old verifier)."""


#: marks an offset that must turn out to be an instruction start (handler and variable ranges)
_MUST_START = object()


def _name(o: int) -> str:
    return op.opcode_name(o)


def _local_insn(o: int, slot: int) -> str:
    """How a message names a load/store: ``aload_1``, but ``aload 7``."""
    name = op.opcode_name(o)
    return name if name[-2] == "_" else f"{name} {slot}"


@lru_cache(maxsize=4096)
def _entry(this: str, name: str, desc: str, is_static: bool) -> tuple[list, str, VType | None]:
    """(locals at method entry in slot form, return descriptor, return type) of a method.

    The list is shared: callers copy it before changing anything.
    """
    initial = _expand(initial_frame_locals(this, name, desc, is_static))
    ret = parse_method_descriptor(desc).return_type
    return initial, ret, None if ret == "V" else vtype_of_descriptor(ret)


# ------------------------------------------------------------------ checker
class _Checker:
    """Checks one method; ``run`` raises :class:`_Fail` at the first problem.

    One engine, :meth:`_run`, executes instructions straight from the code bytes with the
    state in local variables (this is the hot loop of the rewriter's gate); what differs
    between type checking and inference is behind four callbacks: ``boundary`` (an
    instruction with a frame / a join point), ``jump``, ``on_handlers`` and ``subroutine``.
    """

    def __init__(self, cf: ClassFile, method: Method, name: str, desc: str, code: CodeAttribute, types: _Types) -> None:
        self.cf = cf
        self.pool = cf.pool
        self.types = types
        self.major = cf.major
        self.this = types.this
        self.this_type = types.this_type
        self.name = name
        self.desc = desc
        self.is_static = bool(method.access & ACC_STATIC)
        self.is_init = self.name == "<init>"
        self.code = code
        self.max_stack = code.max_stack
        self.max_locals = code.max_locals
        self.flag = False  # flagThisUninit of the current state
        self.this_uninit = False  # set by invokespecial this/super.<init> (HotSpot's this_uninit)
        self.lver = 0  # bumped whenever the locals (or flags) change: handler checks are cached by it
        self.hver = -1  # the lver at which the handlers covering the current instruction were checked
        self.mod: frozenset | None = None  # inference: locals written since the current subroutine's entry
        self.inference = False
        self._insns: list | None = None

    # ================================================================ entry
    def run(self) -> None:
        self._prepare()
        if self.major >= 50:
            try:
                self._frames()
                self._typecheck()
                return
            except _NeedsInference:
                pass  # version 50 with jsr/ret: HotSpot falls back to the old verifier
            except _Fail:
                # (the same fallback when the type checker fails before it meets the jsr)
                if self.major != 50 or not any(i.opcode in _SUBROUTINE for i in self.instructions()):
                    raise
        self._infer()

    def instructions(self) -> list:
        """Decoded instructions (only the rare paths need them)."""
        if self._insns is None:
            try:
                self._insns = decode_instructions(self.raw)
            except JprewriteError as e:
                raise _Fail(e.offset if e.offset is not None else -1, e.message) from None
        return self._insns

    # ============================================================ structure
    def _prepare(self) -> None:
        code = self.code
        raw = code.code_bytes()
        n = len(raw)
        if not 0 < n <= 65535:
            raise _Fail(-1, f"code length {n} is not in 1..65535")
        self.raw = raw
        self.code_length = n
        self.padded_code = raw + bytes(8)  # operand reads past the end see zeros (truncation checked after)
        self.initial, self.ret, self.ret_type = _entry(self.this, self.name, self.desc, self.is_static)
        if len(self.initial) > self.max_locals:
            raise _Fail(-1, f"the arguments need {len(self.initial)} local slots but max_locals is {self.max_locals}")
        # offsets that must be instruction starts, checked when the code has been walked
        must: dict[int, str] = {}
        self.must_start = must
        pool = self.pool
        handlers = []
        ex_min, ex_max = n, -1
        for h in code.handlers:
            s, e, pc = h.start_pc, h.end_pc, h.handler_pc
            if s >= e:
                raise _Fail(-1, f"exception handler range [{s}, {e}) is empty or reversed")
            if e > n or pc >= n:
                raise _Fail(-1, f"exception handler [{s}, {e}) -> {pc} lies outside the code (length {n})")
            must.setdefault(s, f"exception handler start_pc {s}")
            if e != n:
                must.setdefault(e, f"exception handler end_pc {e}")
            must.setdefault(pc, f"exception handler_pc {pc}")
            if h.catch_type:
                if not 0 < h.catch_type < len(pool) or pool.tag(h.catch_type) != C.CLASS:
                    raise _Fail(-1, f"catch type #{h.catch_type} is not a Class constant")
                catch = pool.class_name(h.catch_type)
                if catch[0] == "[" or not self.types.ref_assignable(catch, THROWABLE):
                    raise _Fail(pc, f"catch type {catch} is not a subclass of java/lang/Throwable")
            else:
                catch = THROWABLE
            handlers.append(_Handler(s, e, pc, Object(catch)))
            ex_min, ex_max = min(ex_min, s), max(ex_max, e)
        self.handlers = handlers
        self.ex_min, self.ex_max = ex_min, ex_max
        self._debug_tables(code, n)

    def _debug_tables(self, code: CodeAttribute, n: int) -> None:
        """LineNumberTable, LocalVariableTable and LocalVariableTypeTable as HotSpot checks them
        (ClassFileParser: pcs inside the code, slots inside max_locals, no duplicate entries, every
        LVTT entry matching an LVT entry; the verifier: LVT ranges on instruction starts)."""
        pool = self.pool
        must = self.must_start
        lvt: set[tuple[int, int, int, int]] = set()
        lvtt: set[tuple[int, int, int, int]] = set()
        tables: list[Any] = []  # (StackMapTable or RawAttribute)
        self.stack_map_tables = tables
        for a in code.attributes:
            kind = pool.utf8(a.name_index)
            if kind not in _DEBUG_TABLES:
                if kind == "StackMapTable":
                    tables.append(a)
                continue
            try:
                rows = cast(Any, decode_attribute(a, pool, CODE)).rows  # (AttributeError: not a table)
            except (JprewriteError, AttributeError) as err:
                raise _Fail(-1, f"{kind}: {getattr(err, 'message', err)}") from None
            if kind == "LineNumberTable":
                for row in rows:
                    if row[0] >= n:
                        raise _Fail(-1, f"LineNumberTable pc {row[0]} is outside the code (length {n})")
                continue
            for start, length, name_index, desc_index, slot in rows:
                end = start + length
                if start >= n or end > n:
                    raise _Fail(-1, f"{kind} range [{start}, {end}) lies outside the code (length {n})")
                key = (start, length, name_index, slot)
                if kind == "LocalVariableTable":
                    size = 2 if pool.utf8(desc_index) in ("J", "D") else 1
                    if slot + size > self.max_locals:
                        raise _Fail(-1, f"LocalVariableTable slot {slot} is outside max_locals {self.max_locals}")
                    if key in lvt:
                        raise _Fail(-1, f"duplicate LocalVariableTable entry for {pool.utf8(name_index)}")
                    lvt.add(key)
                    must.setdefault(start, f"LocalVariableTable start_pc {start}")
                    if end != n:
                        must.setdefault(end, f"LocalVariableTable end {end}")
                else:
                    if slot >= self.max_locals:
                        raise _Fail(-1, f"LocalVariableTypeTable slot {slot} is outside max_locals {self.max_locals}")
                    if key in lvtt:
                        raise _Fail(-1, f"duplicate LocalVariableTypeTable entry for {pool.utf8(name_index)}")
                    lvtt.add(key)
        for key in lvtt - lvt:
            raise _Fail(
                -1,
                f"LocalVariableTypeTable entry for {pool.utf8(key[2])} at [{key[0]}, "
                f"{key[0] + key[1]}) slot {key[3]} matches no LocalVariableTable entry",
            )

    def _frames(self) -> None:
        """Read the StackMapTable (the bytes that will be written, or the frames just assembled)."""
        pool = self.pool
        tables = self.stack_map_tables
        raw_frames: list = []
        if len(tables) > 1:
            raise _Fail(-1, "more than one StackMapTable attribute")
        if tables:
            smt = tables[0]
            # Frames the assembler has just set are what will be encoded; taking them avoids
            # decoding (and re-encoding) a table that is still bytes.
            decoded = smt.frames_if_decoded if isinstance(smt, StackMapTable) else None
            if decoded is not None:
                raw_frames = decoded
            else:
                data = smt.data
                initial = initial_frame_locals(self.this, self.name, self.desc, self.is_static)
                try:
                    raw_frames = decode_stack_map_table(data, pool, initial, self.code_length)
                except JprewriteError as e:
                    raise _Fail(-1, f"StackMapTable: {e.message}") from None
        frames: dict[int, _Frame] = {}
        raw = self.raw
        n = self.code_length
        must = self.must_start
        max_locals, max_stack = self.max_locals, self.max_stack
        prev = -1
        for f in raw_frames:
            off = f.offset
            if off <= prev or off >= n:
                raise _Fail(
                    off, f"stack map frame at {off} does not come after the previous one ({prev}) inside the code"
                )
            locals_ = _expand(f.locals)
            stack = _expand(f.stack)
            for t in locals_ + stack:
                if type(t) is Uninitialized:
                    site = t.offset
                    if type(site) is not int or not 0 <= site < n or raw[site] != op.NEW:
                        raise _Fail(off, f"frame at {off}: uninitialized({site}) does not name a `new` instruction")
                    must.setdefault(site, f"uninitialized({site}) in the frame at {off}")
            if len(locals_) > max_locals:
                raise _Fail(off, f"frame at {off} has {len(locals_)} local slots, max_locals is {max_locals}")
            if len(stack) > max_stack:
                raise _Fail(off, f"frame at {off} has {len(stack)} stack slots, max_stack is {max_stack}")
            frames[off] = _Frame(off, locals_, stack, max_locals)
            prev = off
        self.frames = frames
        types = self.types
        for h in self.handlers:
            f = frames.get(h.pc)
            h.frame = f
            if f is None:
                h.problem = f"exception handler {h.pc} has no stack map frame"
            elif len(f.stack) != 1:
                h.problem = (
                    f"the frame of exception handler {h.pc} has {len(f.stack)} stack slots, "
                    f"the handler starts with 1 (the exception)"
                )
            elif not types.assignable(h.catch, f.stack[0]):
                h.problem = (
                    f"exception handler {h.pc}: the caught {h.catch.name} is not assignable "
                    f"to its frame's {_show(f.stack[0])}"
                )

    # ========================================================= type checking
    def _typecheck(self) -> None:
        """JVMS 4.10.1 / HotSpot verify_method: one pass over every instruction, with the frames."""
        marks: dict[int, object] = dict.fromkeys(self.must_start, _MUST_START)
        marks.update(self.frames)
        self.marks = marks
        self.markbits = self._bits(marks)
        self.unseen = set(marks)
        self.boundary = self._frame_boundary
        self.jump = self._jump_to_frame
        self.on_handlers = self._check_handlers
        self.flag = self.is_init and self.this != OBJECT
        locals_ = self.initial + [Top] * (self.max_locals - len(self.initial))
        end, length, no_cf = self._run(0, [], locals_)
        n = self.code_length
        if end != n:
            last = end - length
            raise _Fail(last, f"truncated {_name(self.raw[last])} instruction at the end of the code")
        if not no_cf:
            raise _Fail(n, "execution falls off the end of the code")
        if self.unseen:
            off = min(self.unseen)
            what = self.must_start.get(off) or f"stack map frame at {off}"
            raise _Fail(off if off in self.frames else -1, f"{what} is not at an instruction start")

    def _bits(self, marks: dict) -> bytearray:
        """One byte per code offset, 1 where ``marks`` has an entry (a cheaper test than a dict lookup)."""
        bits = bytearray(self.code_length)
        for off in marks:
            if 0 <= off < self.code_length:
                bits[off] = 1
        return bits

    def _frame_boundary(self, pc: int, m: Any, no_cf: bool, stack: list, locals_: list) -> bool:
        """An instruction with a frame (or one after no fall-through): match, then continue from the frame."""
        self.hver = -1  # the handlers covering this instruction may differ from the previous one's
        if m is None or m is _MUST_START:
            self.unseen.discard(pc)
            if no_cf:
                raise _Fail(
                    pc,
                    "no stack map frame after an instruction that does not fall through (goto, switch, return, athrow)",
                )
            return False
        self.unseen.discard(pc)
        f: _Frame = m
        if not no_cf:
            why = self._mismatch(f, stack, locals_)
            if why is not None:
                raise _Fail(pc, f"the state here does not match the stack map frame: {why}")
        locals_[:] = f.padded
        stack[:] = f.stack
        self.flag = f.flag
        self.lver += 1
        return False

    def _mismatch(self, f: _Frame, stack: list, locals_: list) -> str | None:
        """Why the state is not assignable to frame ``f`` (None if it is)."""
        fs = f.stack
        if len(stack) != len(fs):
            return f"stack has {len(stack)} slots, the frame {len(fs)}"
        assignable = self.types.assignable
        for i, t in f.checks:
            c = locals_[i]
            if c is not t and not assignable(c, t):
                return f"local {i} is {_show(c)}, the frame says {_show(t)}"
        for i, t in enumerate(fs):
            c = stack[i]
            if c is not t and not assignable(c, t):
                return f"stack entry {i} is {_show(c)}, the frame says {_show(t)}"
        if self.flag and not f.flag:
            return "this is uninitialized here but not in the frame (flagThisUninit)"
        return None

    def _jump_to_frame(self, target: int, stack: list, locals_: list) -> None:
        f = self.frames.get(target)
        if f is None:
            raise _Fail(_HERE, f"branch target {target} has no stack map frame")
        why = self._mismatch(f, stack, locals_)
        if why is not None:
            raise _Fail(_HERE, f"the state at the branch to {target} does not match its frame: {why}")

    def _check_handlers(self, pc: int, locals_: list, this_uninit: bool) -> None:
        """The locals (and flags) here must be assignable to the frame of every handler covering ``pc``.

        Called for every instruction in a try range: the locals rarely change between two
        instructions, so each handler remembers the state version it last accepted.
        """
        flag = self.flag or this_uninit
        key = (self.lver, flag)
        self.hver = self.lver
        assignable = self.types.assignable
        for h in self.handlers:
            if h.seen == key or not h.start <= pc < h.end:
                continue
            if h.problem is not None:
                raise _Fail(pc, h.problem)
            f = h.frame
            assert f is not None  # (a handler without a frame has a problem, raised above)
            for i, t in f.checks:
                c = locals_[i]
                if c is not t and not assignable(c, t):
                    raise _Fail(
                        pc, f"exception handler {h.pc}: local {i} is {_show(c)} here, its frame says {_show(t)}"
                    )
            if flag and not f.flag:
                raise _Fail(
                    pc,
                    f"exception handler {h.pc}: this is uninitialized here but not in the "
                    f"handler's frame (flagThisUninit)",
                )
            h.seen = key

    # ============================================================ the engine
    def _run(self, pc: int, stack: list, locals_: list) -> tuple[int, int, bool]:
        """Execute from ``pc`` until the end of the code (type checking) or until control flow
        stops or reaches a join point (inference). Returns (pc after the last instruction,
        that instruction's length, whether control does not fall through it).

        Stack underflow surfaces as IndexError from ``list.pop`` and is reported here (local
        indices are checked before use and operand reads never pass the padded code).
        """
        code = self.padded_code
        n = self.code_length
        marks_get = self.marks.get
        markbits = self.markbits
        KIND, ARG, LEN, ENDS, STORES = _KIND, _ARG, _LEN, _ENDS, _STORES
        max_stack, max_locals = self.max_stack, self.max_locals
        ex_min, ex_max = self.ex_min, self.ex_max
        types = self.types
        fields_get = types.fields.get
        ldc_get = types.ldc.get
        ref_assignable = types.ref_assignable
        jump = self.jump
        on_handlers = self.on_handlers
        boundary = self.boundary
        inference = self.inference
        bad = self._bad
        # (opcode and kind numbers as locals: LOAD_FAST is the cheapest load in this hot loop)
        o_DUP, o_GOTO, o_INVOKESPECIAL, o_LDC, o_LDC2_W = op.DUP, op.GOTO, op.INVOKESPECIAL, op.LDC, op.LDC2_W
        k_aload, k_astore, k_getfield, k_getstatic = K_ALOAD, K_ASTORE, K_GETFIELD, K_GETSTATIC
        k_goto, k_if, k_ifref, k_iinc, k_invoke = K_GOTO, K_IF, K_IFREF, K_IINC, K_INVOKE
        k_ldc, k_load, k_putfield, k_putstatic = K_LDC, K_LOAD, K_PUTFIELD, K_PUTSTATIC
        k_return, k_simple, k_store, k_vreturn = K_RETURN, K_SIMPLE, K_STORE, K_VRETURN
        append, pop, extend = stack.append, stack.pop, stack.extend  # (the stack list is never replaced)
        no_cf = False
        ln = 0
        self.run_start = pc
        try:
            while pc < n:
                o = code[pc]
                if markbits[pc] or no_cf:
                    if boundary(pc, marks_get(pc), no_cf, stack, locals_):
                        return pc, 0, False
                    no_cf = False
                k = KIND[o]
                ln = LEN[o]
                in_try = ex_min <= pc < ex_max
                if in_try:
                    if inference or o in STORES:
                        on_handlers(pc, locals_, False)
                    self.this_uninit = False
                if k == k_aload:
                    slot = ARG[o]
                    if slot < 0:
                        slot = code[pc + 1]
                    if slot >= max_locals:
                        self._bad_local(o, slot, "a reference", locals_)
                    v = locals_[slot]
                    tv = type(v)
                    if not (tv is Object or tv is Uninitialized or v is Null or v is UninitializedThis or v is _ANYREF):
                        self._bad_local(o, slot, "a reference", locals_)
                    append(v)
                    if len(stack) > max_stack:
                        self._overflow()
                elif k == k_simple:
                    pops, push = ARG[o]
                    for t in pops:
                        v = pop()
                        if v is not t:
                            bad(o, v, t)
                    if push:
                        extend(push)
                        if len(stack) > max_stack:
                            self._overflow()
                elif k == k_invoke:
                    self._invoke(o, pc, stack, locals_)
                elif k == k_getfield:
                    index = (code[pc + 1] << 8) | code[pc + 2]
                    f = fields_get(index) or self._field_info(o, index)
                    if f.owner[0] == "[":
                        raise _Fail(pc, f"getfield of a field of array type {f.owner}")
                    obj = pop()
                    if type(obj) is Object:
                        if obj.name != f.owner and not ref_assignable(obj.name, f.owner):
                            bad(o, obj, f.owner)
                    elif obj is not Null and obj is not _ANYREF:
                        bad(o, obj, f.owner)
                    if f.protected:
                        self._protected(o, f.owner, f.name, obj)
                    extend(f.push)
                    if len(stack) > max_stack:
                        self._overflow()
                elif k == k_ldc:
                    index = code[pc + 1] if o == o_LDC else (code[pc + 1] << 8) | code[pc + 2]
                    push = ldc_get(-index if o == o_LDC2_W else index)
                    if push is None:
                        push = self._ldc(o, index)
                    extend(push)
                    if len(stack) > max_stack:
                        self._overflow()
                elif o == o_DUP:
                    v = stack[-1]
                    if v is Top or v is Long or v is Double or v is _LONG2 or v is _DOUBLE2:
                        bad(o, v, "a one-slot value")
                    append(v)
                    if len(stack) > max_stack:
                        self._overflow()
                elif k == k_load:
                    t, slot, second = ARG[o]
                    if slot < 0:
                        slot = code[pc + 1]
                    if second is None:
                        if slot >= max_locals or locals_[slot] is not t:
                            self._bad_local(o, slot, _show(t), locals_)
                        append(t)
                    else:
                        if slot + 1 >= max_locals or locals_[slot] is not t or locals_[slot + 1] is not second:
                            self._bad_local(o, slot, _show(t), locals_)
                        append(t)
                        append(second)
                    if len(stack) > max_stack:
                        self._overflow()
                elif k == k_putfield:
                    index = (code[pc + 1] << 8) | code[pc + 2]
                    f = fields_get(index) or self._field_info(o, index)
                    if f.owner[0] == "[":
                        raise _Fail(pc, f"putfield of a field of array type {f.owner}")
                    self._pop_field_value(o, f, stack)
                    obj = pop()
                    if obj is UninitializedThis and f.owner == self.this and self._own_field(f.name, f.desc):
                        obj = self.this_type  # JVMS: a constructor may set its own fields before super()
                    if type(obj) is Object:
                        if obj.name != f.owner and not ref_assignable(obj.name, f.owner):
                            bad(o, obj, f.owner)
                    elif obj is not Null and obj is not _ANYREF:
                        bad(o, obj, f.owner)
                    if f.protected:
                        self._protected(o, f.owner, f.name, obj)
                elif k == k_getstatic:
                    index = (code[pc + 1] << 8) | code[pc + 2]
                    f = fields_get(index) or self._field_info(o, index)
                    extend(f.push)
                    if len(stack) > max_stack:
                        self._overflow()
                elif k == k_astore:
                    slot = ARG[o]
                    if slot < 0:
                        slot = code[pc + 1]
                    v = pop()
                    tv = type(v)
                    if not (
                        tv is Object
                        or tv is Uninitialized
                        or v is Null
                        or v is UninitializedThis
                        or v is _ANYREF
                        or tv is _ReturnAddress
                    ):
                        bad(o, v, "a reference")
                    self._store(o, slot, v, locals_)
                elif k == k_store:
                    t, slot, second = ARG[o]
                    if slot < 0:
                        slot = code[pc + 1]
                    v = pop()
                    if second is None:
                        if v is not t:
                            bad(o, v, t)
                    elif v is not second or pop() is not t:
                        bad(o, v, t)
                    self._store(o, slot, t, locals_)
                elif k == k_return:
                    self._return(o, stack)
                    no_cf = True
                elif k == k_if:
                    for t in ARG[o]:
                        v = pop()
                        if v is not t:
                            bad(o, v, t)
                    d = (code[pc + 1] << 8) | code[pc + 2]
                    jump(pc + (d - 0x10000 if d & 0x8000 else d), stack, locals_)
                elif k == k_ifref:
                    for _ in range(ARG[o]):
                        v = pop()
                        if not _is_ref_or_uninit(v):
                            bad(o, v, "a reference")
                    d = (code[pc + 1] << 8) | code[pc + 2]
                    jump(pc + (d - 0x10000 if d & 0x8000 else d), stack, locals_)
                elif k == k_vreturn:
                    if self.ret != "V":
                        raise _Fail(pc, f"return in a method that returns {self.ret}")
                    if self.is_init and self.flag:
                        raise _Fail(pc, "constructor returns before calling super() or this()")
                    no_cf = True
                elif k == k_goto:
                    if o == o_GOTO:
                        d = (code[pc + 1] << 8) | code[pc + 2]
                        jump(pc + (d - 0x10000 if d & 0x8000 else d), stack, locals_)
                    else:
                        jump(pc + int.from_bytes(code[pc + 1 : pc + 5], "big", signed=True), stack, locals_)
                    no_cf = True
                elif k == k_putstatic:
                    index = (code[pc + 1] << 8) | code[pc + 2]
                    f = fields_get(index) or self._field_info(o, index)
                    self._pop_field_value(o, f, stack)
                elif k == k_iinc:
                    slot = code[pc + 1]
                    if slot >= max_locals or locals_[slot] is not Integer:
                        self._bad_local(o, slot, "integer", locals_)
                else:
                    ln = self._rare(o, k, pc, stack, locals_) or ln
                    no_cf = ENDS[o] or (o == op.WIDE and code[pc + 1] == op.RET)  # wide ret: as ret
                if in_try:
                    if inference:
                        if o in STORES or o == o_INVOKESPECIAL:
                            on_handlers(pc, locals_, False)
                    elif o not in STORES and (self.lver != self.hver or self.this_uninit):
                        on_handlers(pc, locals_, self.this_uninit)
                pc += ln
                if no_cf and inference:
                    return pc, ln, True
        except IndexError:
            raise _Fail(pc, f"{_name(code[pc])}: stack underflow") from None
        except _Fail as e:
            if e.offset == _HERE:
                e.offset = pc
            raise
        return pc, ln, no_cf

    def _rare(self, o: int, k: int, pc: int, stack: list, locals_: list) -> int:
        """The less frequent instructions; returns the instruction's length if it is not fixed."""
        code = self.padded_code
        bad = self._bad
        if k == K_STACKOP:
            self._stack_op(o, stack)
        elif k == K_NEW:
            name = self._class_operand(o, (code[pc + 1] << 8) | code[pc + 2])
            if name[0] == "[":
                raise _Fail(pc, f"new of an array type {name}")
            self._push(stack, (Uninitialized(pc),))
        elif k == K_ARRLOAD:
            elems, push = _ARG[o]
            v = stack.pop()
            if v is not Integer:
                bad(o, v, Integer)
            self._check_array(o, stack.pop(), elems)
            self._push(stack, push)
        elif k == K_ARRSTORE:
            elems, value = _ARG[o]
            for t in value:
                v = stack.pop()
                if v is not t:
                    bad(o, v, t)
            v = stack.pop()
            if v is not Integer:
                bad(o, v, Integer)
            self._check_array(o, stack.pop(), elems)
        elif k == K_AALOAD:
            v = stack.pop()
            if v is not Integer:
                bad(o, v, Integer)
            a = stack.pop()
            if a is Null or a is _ANYREF:
                self._push(stack, (a,))
            elif type(a) is Object and a.name[0] == "[" and a.name[1] in "L[":
                comp = a.name[1:]
                self._push(stack, (Object(comp[1:-1] if comp[0] == "L" else comp),))
            else:
                bad(o, a, "an array of references")
        elif k == K_AASTORE:
            self._pop_value(o, _OBJECT, stack)
            v = stack.pop()
            if v is not Integer:
                bad(o, v, Integer)
            a = stack.pop()
            if not (a is Null or a is _ANYREF or (type(a) is Object and a.name[0] == "[" and a.name[1] in "L[")):
                bad(o, a, "an array of references")
        elif k == K_CHECKCAST:
            name = self._class_operand(o, (code[pc + 1] << 8) | code[pc + 2])
            self._pop_value(o, _OBJECT, stack)
            stack.append(Object(name))
        elif k == K_INSTANCEOF:
            self._class_operand(o, (code[pc + 1] << 8) | code[pc + 2])
            self._pop_value(o, _OBJECT, stack)
            stack.append(Integer)
        elif k == K_ATHROW:
            self._pop_value(o, _THROWABLE, stack)
        elif k == K_ARRAYLENGTH:
            a = stack.pop()
            if not (a is Null or a is _ANYREF or (type(a) is Object and a.name[0] == "[")):
                bad(o, a, "an array")
            stack.append(Integer)
        elif k == K_MONITOR:
            v = stack.pop()
            if not _is_ref_or_uninit(v):
                bad(o, v, "a reference")
        elif k == K_NEWARRAY:
            array = _NEWARRAY.get(code[pc + 1])
            if array is None:
                raise _Fail(pc, f"newarray: bad array type code {code[pc + 1]}")
            v = stack.pop()
            if v is not Integer:
                bad(o, v, Integer)
            stack.append(Object(array))
        elif k == K_ANEWARRAY:
            name = self._class_operand(o, (code[pc + 1] << 8) | code[pc + 2])
            if name.startswith("[" * 255):
                raise _Fail(pc, "anewarray: an array of more than 255 dimensions")
            v = stack.pop()
            if v is not Integer:
                bad(o, v, Integer)
            stack.append(Object(_array_of(name)))
        elif k == K_MULTI:
            name = self._class_operand(o, (code[pc + 1] << 8) | code[pc + 2])
            dims = code[pc + 3]
            if name[0] != "[":
                raise _Fail(pc, f"multianewarray of {name}, which is not an array type")
            if dims < 1 or len(name) - len(name.lstrip("[")) < dims:
                raise _Fail(pc, f"multianewarray: bad dimensions {dims} for {name}")
            for _ in range(dims):
                v = stack.pop()
                if v is not Integer:
                    bad(o, v, Integer)
            self._push(stack, (Object(name),))
        elif k == K_SWITCH:
            return self._switch(o, pc, stack, locals_)
        elif k == K_INVOKEDYNAMIC:
            self._invokedynamic(pc, stack)
        elif k == K_WIDE:
            return self._wide(pc, stack, locals_)
        elif k == K_SUBROUTINE:
            if o == op.RET:
                operand = code[pc + 1]  # the local holding the return address
            elif o == op.JSR:
                operand = pc + int.from_bytes(code[pc + 1 : pc + 3], "big", signed=True)  # the target
            else:
                operand = pc + int.from_bytes(code[pc + 1 : pc + 5], "big", signed=True)
            self._subroutine(o, pc, operand, stack, locals_)
        else:
            raise _Fail(pc, f"{_name(o)} is not a valid instruction")
        return 0

    def _subroutine(self, o: int, pc: int, operand: int, stack: list, locals_: list) -> None:
        """jsr/ret (``operand``: the jsr target or the ret slot)."""
        if not self.inference:
            if self.major >= 51:
                raise _Fail(pc, f"{_name(o)} is not allowed in class files of version 51 and later")
            raise _NeedsInference()
        self.on_subroutine(o, pc, operand, stack, locals_)

    def _wide(self, pc: int, stack: list, locals_: list) -> int:
        code = self.padded_code
        o = code[pc + 1]
        slot = (code[pc + 2] << 8) | code[pc + 3]
        k = _KIND[o]
        if o == op.IINC:
            if slot >= self.max_locals or locals_[slot] is not Integer:
                self._bad_local(o, slot, "integer", locals_)
            return 6
        if k == K_LOAD:
            t, _, second = _ARG[o]
            size = 1 if second is None else 2
            if (
                slot + size > self.max_locals
                or locals_[slot] is not t
                or (second is not None and locals_[slot + 1] is not second)
            ):
                self._bad_local(o, slot, _show(t), locals_)
            self._push(stack, (t,) if second is None else (t, second))
        elif k == K_ALOAD:
            if slot >= self.max_locals or not _is_ref_or_uninit(locals_[slot]):
                self._bad_local(o, slot, "a reference", locals_)
            self._push(stack, (locals_[slot],))
        elif k == K_STORE:
            t = _ARG[o][0]
            self._pop_value(o, t, stack)
            self._store(o, slot, t, locals_)
        elif k == K_ASTORE:
            v = stack.pop()
            if not (_is_ref_or_uninit(v) or type(v) is _ReturnAddress):
                self._bad(o, v, "a reference")
            self._store(o, slot, v, locals_)
        elif o == op.RET:
            self._subroutine(o, pc, slot, stack, locals_)
        else:
            raise _Fail(pc, f"wide before {_name(o)}, which has no wide form")
        return 4

    # ================================================== checks and effects
    def _bad(self, o: int, found: object, want: object) -> None:
        w = want if isinstance(want, str) else _show(want)
        raise _Fail(_HERE, f"{_name(o)}: expected {w} on the stack, found {_show(found)}")

    def _overflow(self) -> None:
        raise _Fail(_HERE, f"stack overflow (max_stack {self.max_stack})")

    def _bad_local(self, o: int, slot: int, want: str, locals_: list) -> None:
        what = _local_insn(o, slot)
        if slot >= self.max_locals or (want in ("long", "double") and slot + 1 >= self.max_locals):
            raise _Fail(_HERE, f"{what}: local {slot} is outside max_locals {self.max_locals}")
        raise _Fail(_HERE, f"{what}: local {slot} holds {_show(locals_[slot])}, not {want}")

    def _push(self, stack: list, entries: tuple) -> None:
        stack.extend(entries)
        if len(stack) > self.max_stack:
            self._overflow()

    def _pop_value(self, o: int, t: object, stack: list) -> object:
        """Pop one value assignable to ``t`` (a Long/Double takes its two slots)."""
        v = stack.pop()
        if t is Long or t is Double:
            if v is not _SECOND[t]:
                self._bad(o, v, t)
            v = stack.pop()
            if v is not t:
                self._bad(o, v, t)
            return v
        if v is t:
            return v
        if type(t) is Object and type(v) is Object:
            if v.name == t.name or self.types.ref_assignable(v.name, t.name):
                return v
        elif self.types.assignable(v, t):
            return v
        self._bad(o, v, t)
        return v  # (not reached)

    def _pop_field_value(self, o: int, f: _FieldInfo, stack: list) -> None:
        """Pop the value a putfield/putstatic stores (assignable to the field's type)."""
        pops = f.pops
        v = stack.pop()
        t = pops[0]
        if v is not t:
            if len(pops) == 2 or not self.types.assignable(v, t):
                self._bad(o, v, pops[-1])
        elif len(pops) == 2:
            v = stack.pop()
            if v is not pops[1]:
                self._bad(o, v, pops[1])

    def _store(self, o: int, slot: int, t: object, locals_: list) -> None:
        """Store ``t`` (one slot, or Long/Double with its half) as HotSpot's set_local(_2) does."""
        size = 2 if (t is Long or t is Double) else 1
        if slot + size > self.max_locals:
            raise _Fail(_HERE, f"{_local_insn(o, slot)}: local {slot} is outside max_locals {self.max_locals}")
        last = slot + size - 1
        after = locals_[last]
        mod = self.mod
        if after is Long or after is Double:  # overwriting the first half of a long/double
            locals_[last + 1] = Top
            if mod is not None:
                mod = mod | {last + 1}
        before = locals_[slot]
        if before is _LONG2 or before is _DOUBLE2:  # overwriting the second half
            locals_[slot - 1] = Top
            if mod is not None:
                mod = mod | {slot - 1}
        locals_[slot] = t
        if size == 2:
            locals_[slot + 1] = _SECOND[t]
        if mod is not None:
            self.mod = mod | ({slot, slot + 1} if size == 2 else {slot})
        self.lver += 1

    def _check_array(self, o: int, a: object, elems: str) -> None:
        if a is Null or a is _ANYREF:
            return
        if type(a) is Object and len(a.name) == 2 and a.name[0] == "[" and a.name[1] in elems:
            return
        self._bad(o, a, "an array " + " or ".join(f"[{e}" for e in elems))

    def _stack_op(self, o: int, stack: list) -> None:
        """pop/dup/swap families on slots (HotSpot's category checks)."""
        pop = stack.pop
        bad = self._bad

        def cat1() -> object:
            v = pop()
            if v is Top or v is Long or v is Double or v is _LONG2 or v is _DOUBLE2:
                bad(o, v, "a one-slot value")
            return v

        def pair() -> tuple:
            """Two slots: two one-slot values, or one long/double (as its two entries)."""
            a = pop()
            if a is _LONG2 or a is _DOUBLE2:
                b = pop()
                if not (b is Long or b is Double):
                    bad(o, b, "the first half of a long or double")
                return (b, a)
            if not _cat1(a):
                bad(o, a, "a one-slot value")
            return (cat1(), a)

        if o == op.DUP:
            a = cat1()
            self._push(stack, (a, a))
        elif o == op.POP:
            cat1()
        elif o == op.POP2:
            pair()
        elif o == op.DUP_X1:
            a = cat1()
            b = cat1()
            self._push(stack, (a, b, a))
        elif o == op.DUP_X2:
            a = cat1()
            bc = pair()
            self._push(stack, (a, *bc, a))
        elif o == op.DUP2:
            ab = pair()
            self._push(stack, ab + ab)
        elif o == op.DUP2_X1:
            ab = pair()
            c = cat1()
            self._push(stack, (*ab, c, *ab))
        elif o == op.DUP2_X2:
            ab = pair()
            cd = pair()
            self._push(stack, (*ab, *cd, *ab))
        else:  # swap
            a = cat1()
            b = cat1()
            self._push(stack, (a, b))

    def _class_operand(self, o: int, i: int) -> str:
        pool = self.pool
        if not 0 < i < len(pool) or pool.tag(i) != C.CLASS:
            raise _Fail(_HERE, f"{_name(o)}: constant #{i} is not a Class")
        return pool.class_name(i)

    def _ldc(self, o: int, i: int) -> tuple:
        """What ldc/ldc_w/ldc2_w of constant ``i`` pushes (checked, then cached for the class)."""
        pool = self.pool
        tag = pool.tag(i) if 0 < i < len(pool) else 0
        push = _LDC2_TYPES.get(tag) if o == op.LDC2_W else _LDC_TYPES.get(tag)
        if push is None and tag == C.DYNAMIC:
            _, desc = pool.name_and_type(pool[i].second)
            push = _field_shape(desc)[1]
            if (len(push) == 2) != (o == op.LDC2_W):
                raise _Fail(_HERE, f"{_name(o)} of a dynamic constant of type {desc}")
        if push is None:
            raise _Fail(
                _HERE, f"{_name(o)}: constant #{i} ({C.TAG_NAMES.get(tag, tag)}) cannot be loaded by this instruction"
            )
        self.types.ldc[-i if o == op.LDC2_W else i] = push
        return push

    def _switch(self, o: int, pc: int, stack: list, locals_: list) -> int:
        """tableswitch/lookupswitch; returns the instruction's length."""
        code = self.raw
        n = self.code_length
        p = pc + 1 + (3 - (pc & 3))
        if self.major < 51 and any(code[pc + 1 : p]):
            raise _Fail(pc, f"{_name(o)}: non-zero padding bytes (class file version < 51)")

        def s32(at: int) -> int:
            if at + 4 > n:
                raise _Fail(pc, f"truncated {_name(o)} instruction at the end of the code")
            return int.from_bytes(code[at : at + 4], "big", signed=True)

        default = pc + s32(p)
        if o == op.TABLESWITCH:
            low, high = s32(p + 4), s32(p + 8)
            if low > high:
                raise _Fail(pc, f"tableswitch low {low} > high {high}")
            count = high - low + 1
            end = p + 12 + 4 * count
            if end > n:
                raise _Fail(pc, f"truncated {_name(o)} instruction at the end of the code")
            targets = [pc + s32(p + 12 + 4 * i) for i in range(count)]
        else:
            npairs = s32(p + 4)
            if npairs < 0:
                raise _Fail(pc, f"lookupswitch npairs {npairs} < 0")
            end = p + 8 + 8 * npairs
            if end > n:
                raise _Fail(pc, f"truncated {_name(o)} instruction at the end of the code")
            keys = [s32(p + 8 + 8 * i) for i in range(npairs)]
            for a, b in pairwise(keys):
                if a >= b:
                    raise _Fail(pc, "lookupswitch keys are not sorted in increasing order")
            targets = [pc + s32(p + 12 + 8 * i) for i in range(npairs)]
        v = stack.pop()
        if v is not Integer:
            self._bad(o, v, Integer)
        self.jump(default, stack, locals_)
        for t in targets:
            self.jump(t, stack, locals_)
        return end - pc

    def _return(self, o: int, stack: list) -> None:
        ret = self.ret
        if ret == "V":
            raise _Fail(_HERE, f"{_name(o)} in a method that returns void")
        accepted = _ARG[o]
        if o == op.ARETURN:
            v = stack.pop()
            if not _is_ref_or_uninit(v):
                self._bad(o, v, "a reference")
            if ret[0] not in accepted or not self.types.assignable(v, self.ret_type):
                raise _Fail(_HERE, f"areturn of {_show(v)} in a method that returns {ret}")
            return
        if ret[0] not in accepted:
            raise _Fail(_HERE, f"{_name(o)} in a method that returns {ret}")
        self._pop_value(o, self.ret_type, stack)

    # --- fields
    def _member_ref(self, o: int, index: int) -> tuple[int, str, str, str]:
        pool = self.pool
        tag = pool.tag(index) if 0 < index < len(pool) else 0
        if tag not in _MEMBER_TAGS:
            raise _Fail(_HERE, f"{_name(o)}: constant #{index} is not a field or method reference")
        return (tag, *pool.member_ref(index))

    def _field_info(self, o: int, index: int) -> _FieldInfo:
        tag, owner, name, desc = self._member_ref(o, index)
        if tag != C.FIELDREF:
            raise _Fail(_HERE, f"{_name(o)}: constant #{index} is a {C.TAG_NAMES[tag]}, not a Fieldref")
        f = _FieldInfo(owner, name, desc, self.types.is_protected_elsewhere(owner, name, desc, False))
        self.types.fields[index] = f
        return f

    def _own_field(self, name: str, desc: str) -> bool:
        return any(f.name == name and f.descriptor == desc for f in self.cf.fields)

    def _protected(self, o: int, owner: str, name: str, obj: object) -> None:
        """JVMS 4.10.1.8: a protected member of a superclass in another package may be used only
        on objects of the current class (or its subclasses)."""
        if type(obj) is Object and obj.name == self.this:
            return
        if o == op.INVOKEVIRTUAL and owner == OBJECT and name == "clone" and type(obj) is Object and obj.name[0] == "[":
            return  # arrays pretend to implement a public clone()
        if not self.types.assignable(obj, self.this_type):
            raise _Fail(_HERE, f"{_name(o)}: protected {owner}.{name} used on {_show(obj)}, which is not a {self.this}")

    # --- invocations
    def _invokedynamic(self, pc: int, stack: list) -> None:
        pool = self.pool
        code = self.padded_code
        if self.major < 51:
            raise _Fail(pc, "invokedynamic in a class file older than version 51")
        i = (code[pc + 1] << 8) | code[pc + 2]
        if not 0 < i < len(pool) or pool.tag(i) != C.INVOKE_DYNAMIC:
            raise _Fail(pc, f"invokedynamic: constant #{i} is not an InvokeDynamic")
        if code[pc + 3] or code[pc + 4]:
            raise _Fail(pc, "invokedynamic: the third and fourth operand bytes must be zero")
        m = self.types.indy.get(i)
        if m is None:
            _, desc = pool.name_and_type(pool[i].second)
            m = self.types.indy[i] = _MethodInfo(C.INVOKE_DYNAMIC, OBJECT, "", desc, False)
        self._pop_args(op.INVOKEDYNAMIC, m, stack)
        if m.push:
            self._push(stack, m.push)

    def _pop_args(self, o: int, m: _MethodInfo, stack: list) -> None:
        ref_assignable = self.types.ref_assignable
        for t in m.args:
            v = stack.pop()
            if v is t:
                continue
            if type(t) is Object:
                if type(v) is Object:
                    if v.name == t.name or ref_assignable(v.name, t.name):
                        continue
                elif v is Null or v is _ANYREF:
                    continue
            self._bad(o, v, t)

    def _method_info(self, o: int, index: int) -> _MethodInfo:
        tag, owner, name, desc = self._member_ref(o, index)
        if tag == C.FIELDREF:
            raise _Fail(_HERE, f"{_name(o)}: constant #{index} is a Fieldref, not a method reference")
        protected = name[0] != "<" and self.types.is_protected_elsewhere(owner, name, desc, True)
        m = _MethodInfo(tag, owner, name, desc, protected)
        self.types.methods[index] = m
        return m

    def _invoke(self, o: int, pc: int, stack: list, locals_: list) -> None:
        code = self.padded_code
        index = (code[pc + 1] << 8) | code[pc + 2]
        m = self.types.methods.get(index) or self._method_info(o, index)
        tag = m.tag
        if o == op.INVOKEVIRTUAL:
            if tag != C.METHODREF:
                raise _Fail(pc, f"invokevirtual of an interface method {m.owner}.{m.name}")
        elif o == op.INVOKEINTERFACE:
            if tag != C.INTERFACE_METHODREF:
                raise _Fail(pc, f"invokeinterface of a class method {m.owner}.{m.name}")
            if code[pc + 3] != m.slots + 1:
                raise _Fail(pc, f"invokeinterface: count {code[pc + 3]} should be {m.slots + 1}")
            if code[pc + 4] != 0:
                raise _Fail(pc, "invokeinterface: the fourth operand byte must be zero")
        elif tag == C.INTERFACE_METHODREF and self.major < 52:
            raise _Fail(pc, f"{_name(o)} of an interface method needs class file version 52")
        name = m.name
        if name[0] == "<":
            if o != op.INVOKESPECIAL or name != "<init>":
                raise _Fail(pc, f"{_name(o)} of {name}: only invokespecial may call <init>")
        elif o == op.INVOKESPECIAL:
            owner = m.owner
            types = self.types
            if owner != self.this and owner not in types.interfaces and owner != types.super_name:
                if not types.ref_assignable(self.this, owner):
                    raise _Fail(pc, f"invokespecial of {owner}.{name}, which is not a superclass of {self.this}")
                if tag == C.INTERFACE_METHODREF:
                    raise _Fail(
                        pc, f"invokespecial of {owner}.{name}: an interface method of an indirect superinterface"
                    )
        self._pop_args(o, m, stack)
        if o != op.INVOKESTATIC:
            if name == "<init>":
                self._init(index, m.owner, stack, locals_, pc)
            elif o == op.INVOKESPECIAL:
                self._pop_value(o, self.this_type, stack)
            else:
                obj = self._pop_value(o, m.owner_type, stack)
                if m.protected and o == op.INVOKEVIRTUAL:
                    self._protected(o, m.owner, name, obj)
        push = m.push
        if push:
            if name == "<init>":
                raise _Fail(pc, "<init> must return void")
            stack.extend(push)
            if len(stack) > self.max_stack:
                self._overflow()

    def _init(self, index: int, owner: str, stack: list, locals_: list, pc: int) -> None:
        """invokespecial <init>: the receiver becomes initialized everywhere (HotSpot verify_invoke_init)."""
        obj = stack.pop()
        off = pc
        in_try = self.ex_min <= off < self.ex_max
        if obj is UninitializedThis:
            if owner != self.this and owner != self.types.super_name:
                raise _Fail(
                    off,
                    f"invokespecial {owner}.<init> on uninitializedThis: must be an <init> "
                    f"of {self.this} or of its superclass",
                )
            if in_try:
                for h in self.handlers:
                    if h.start <= off < h.end and not self._ends_in_athrow(h.pc):
                        raise _Fail(
                            off, f"super()/this() inside a try block whose handler {h.pc} does not end in athrow"
                        )
                self.on_handlers(off, locals_, True)
            new: object = self.this_type
            self.flag = False
            self.this_uninit = True
        elif type(obj) is Uninitialized:
            site = obj.offset
            raw = self.raw
            if not (type(site) is int and 0 <= site < self.code_length - 2 and raw[site] == op.NEW):
                raise _Fail(off, f"uninitialized({site}) does not name a `new` instruction")
            made = self._class_operand(op.NEW, (raw[site + 1] << 8) | raw[site + 2])
            if made != owner:
                raise _Fail(off, f"invokespecial {owner}.<init> on an object created as new {made}")
            if self.types.is_protected_elsewhere(
                owner, "<init>", self.pool.member_ref(index)[2], True
            ) and not self.types.ref_assignable(made, self.this):
                raise _Fail(off, f"protected {owner}.<init> called for a {made}")
            if in_try:
                self.on_handlers(off, locals_, self.this_uninit)
            new = Object(made)
        else:
            self._bad(op.INVOKESPECIAL, obj, "an uninitialized object")
        for seq in (locals_, stack):
            for k, t in enumerate(seq):
                if t is obj or (type(t) is Uninitialized and t == obj):
                    seq[k] = new
        self.lver += 1

    def _ends_in_athrow(self, start: int) -> bool:
        """HotSpot's ends_in_athrow: does every path from a handler end in athrow (or loop)?

        A handler that covers ``super()`` must not let a half-built object escape by returning.
        """
        insns = self.instructions()
        order = {insn.offset: k for k, insn in enumerate(insns)}
        if start not in order:
            return False
        n = self.code_length
        bci_stack: list[int] = []
        handler_stack: list[int] = []
        handler_list: list[int] = []
        visited: set[int] = set()

        def resume() -> int | None:
            if not bci_stack:
                if not handler_stack:
                    return None
                return order.get(handler_stack.pop())
            return order.get(bci_stack.pop())

        k: int | None = order[start]
        for _ in range(200_000):
            if k is None or k >= len(insns):
                return False
            insn = insns[k]
            bci = insn.offset
            for h in self.handlers:
                if h.start <= bci < h.end and h.pc not in handler_list:
                    if h.pc not in handler_stack:
                        handler_stack.append(h.pc)
                    handler_list.append(h.pc)
            o = insn.opcode
            if o in _CONDITIONAL:
                if bci in visited:
                    k = resume()
                    if k is None:
                        return True
                else:
                    target = insn.operand
                    if target > bci:
                        if target >= n:
                            return False
                        bci_stack.append(target)
                        k += 1
                    else:
                        if k + 1 < len(insns):
                            bci_stack.append(insns[k + 1].offset)
                        k = order.get(target)
                    visited.add(bci)
            elif o == op.GOTO or o == op.GOTO_W:
                if bci in visited:
                    k = resume()
                    if k is None:
                        return True
                else:
                    k = order.get(insn.operand)
                    visited.add(bci)
            elif o == op.TABLESWITCH or o == op.LOOKUPSWITCH:
                if k + 1 < len(insns):
                    bci_stack.append(insns[k + 1].offset)
                bci_stack.extend(insn.targets)
                k = order.get(insn.default)
            elif o == op.RETURN:
                return False
            elif o == op.ATHROW:
                k = resume()
                if k is None:
                    return True
            else:
                k += 1
        return True  # (pathological code: lenient)

    # ================================================================ inference
    def _infer(self) -> None:
        """JVMS 4.10.2: data flow over the reachable code, states merged at join points."""
        insns = self.instructions()
        n = len(insns)
        starts = {insn.offset for insn in insns}
        for off, what in sorted(self.must_start.items()):
            if off not in starts:
                raise _Fail(-1, f"{what} is not at an instruction start")
        for insn in insns:
            if _KIND[insn.opcode] == K_BAD:
                raise _Fail(insn.offset, f"{insn.name} is not a valid instruction")
        leaders = {0}
        callers: dict[int, list[int]] = {}  # subroutine offset -> offsets of the jsr calling it
        after: dict[int, int] = {}  # offset -> offset of the next instruction
        for k, insn in enumerate(insns):
            o = insn.opcode
            nxt = insns[k + 1].offset if k + 1 < n else self.code_length
            after[insn.offset] = nxt
            if o in op.BRANCH_OPCODES:
                leaders.add(insn.operand)
                if nxt < self.code_length:
                    leaders.add(nxt)
                if o in _JSR:
                    callers.setdefault(insn.operand, []).append(insn.offset)
            elif o == op.TABLESWITCH or o == op.LOOKUPSWITCH:
                leaders.add(insn.default)
                leaders.update(insn.targets)
            if o in op.UNCONDITIONAL_OPCODES and nxt < self.code_length:
                leaders.add(nxt)
        for h in self.handlers:
            leaders.add(h.pc)
        self.marks = dict.fromkeys(leaders, True)
        self.markbits = self._bits(self.marks)
        self.inference = True
        max_locals = self.max_locals
        states: dict[int, tuple] = {}  # offset -> (locals, stack, flag, mod)
        work: list[int] = []
        queued: set[int] = set()
        jsr_states: dict[int, tuple] = {}
        ret_states: dict[int, tuple] = {}

        def merge_into(target: int, locals_: list, stack: list, flag: bool, mod, why: str) -> None:
            old = states.get(target)
            new = (list(locals_), list(stack), flag, mod)
            if old is not None:
                merged = self._merge_states(old, new, target, why)
                if merged is None:
                    return
                new = merged
            states[target] = new
            if target not in queued:
                queued.add(target)
                work.append(target)

        def jump(target: int, stack: list, locals_: list) -> None:
            merge_into(target, locals_, stack, self.flag, self.mod, "a branch")

        def on_handlers(pc: int, locals_: list, this_uninit: bool) -> None:
            for h in self.handlers:
                if h.start <= pc < h.end:
                    if self.max_stack < 1:
                        raise _Fail(pc, f"stack overflow (max_stack {self.max_stack}) at exception handler {h.pc}")
                    merge_into(h.pc, locals_, [h.catch], self.flag, self.mod, f"exception handler for {pc}")

        def boundary(pc: int, m: object, no_cf: bool, stack: list, locals_: list) -> bool:
            if pc == self.run_start:
                return False
            merge_into(pc, locals_, stack, self.flag, self.mod, "falling through")
            return True

        def continuation(j: int, sub: int) -> None:
            nxt = after[j]
            if nxt >= self.code_length:
                raise _Fail(j, "execution falls off the end of the code after a subroutine returns")
            jl, _js, _jf, jm = jsr_states[j]
            rl, rs, rf, rm = ret_states[sub]
            rm = rm or frozenset()
            locals_ = [rl[i] if i in rm else jl[i] for i in range(max_locals)]
            merge_into(nxt, locals_, rs, rf, None if jm is None else jm | rm, f"return from subroutine {sub}")

        def on_subroutine(o: int, pc: int, operand: int, stack: list, locals_: list) -> None:
            if o == op.RET:
                slot = operand
                if slot >= max_locals:
                    raise _Fail(pc, f"ret {slot}: local {slot} is outside max_locals {max_locals}")
                ra = locals_[slot]
                if type(ra) is not _ReturnAddress:
                    raise _Fail(pc, f"ret {slot}: local {slot} holds {_show(ra)}, not a return address")
                sub = ra.target
                cur = (list(locals_), list(stack), self.flag, self.mod)
                old = ret_states.get(sub)
                if old is not None:
                    merged = self._merge_states(old, cur, pc, f"ret at {pc}")
                    if merged is None:
                        return
                    cur = merged
                ret_states[sub] = cur
                for j in callers.get(sub, ()):
                    if j in jsr_states:
                        continuation(j, sub)
                return
            target = operand
            cur = (list(locals_), list(stack), self.flag, self.mod)
            prev = jsr_states.get(pc)
            if prev is not None:
                merged = self._merge_states(prev, cur, pc, f"jsr at {pc}")
                cur = prev if merged is None else merged
            jsr_states[pc] = cur
            self._push(stack, (_ReturnAddress(target),))
            merge_into(target, locals_, stack, self.flag, frozenset(), f"jsr at {pc}")
            if target in ret_states:
                continuation(pc, target)

        self.jump = jump
        self.on_handlers = on_handlers
        self.boundary = boundary
        self.on_subroutine = on_subroutine
        init_locals = self.initial + [Top] * (max_locals - len(self.initial))
        merge_into(0, init_locals, [], self.is_init and self.this != OBJECT, None, "method entry")
        while work:
            off = work.pop()
            queued.discard(off)
            locals_, stack, flag, mod = states[off]
            self.flag, self.mod = flag, mod
            end, length, stopped = self._run(off, list(stack), list(locals_))
            if not stopped and end >= self.code_length:
                if end > self.code_length:
                    last = end - length
                    raise _Fail(last, f"truncated {_name(self.raw[last])} instruction at the end of the code")
                raise _Fail(self.code_length, "execution falls off the end of the code")

    def _merge_states(self, old: tuple, new: tuple, where: int, why: str) -> tuple | None:
        """Merge two (locals, stack, flag, mod) states; None when ``old`` already covers ``new``."""
        types = self.types
        ol, os_, of, om = old
        nl, ns, nf, nm = new
        changed = False
        locals_ = list(ol)
        for i, a in enumerate(ol):
            if a is Top:
                continue
            b = nl[i]
            if a is b or a == b:
                continue
            m = types.merge(a, b)
            if m is None:
                m = Top
            if m is not a and m != a:
                locals_[i] = m
                changed = True
        if len(os_) != len(ns):
            raise _Fail(where, f"stack heights {len(os_)} and {len(ns)} meet here ({why})")
        stack = list(os_)
        for i, (a, b) in enumerate(zip(os_, ns)):
            if a is b or a == b:
                continue
            m = types.merge(a, b)
            if m is None:
                raise _Fail(where, f"stack entry {i} is {_show(a)} on one path and {_show(b)} on another ({why})")
            if m is not a and m != a:
                stack[i] = m
                changed = True
        flag = of or nf
        mod = om if nm is None else (nm if om is None else om | nm)
        if not changed and flag == of and mod == om:
            return None
        return (locals_, stack, flag, mod)


# ---------------------------------------------------------------------- API
def _flags_problem(cf: ClassFile, method: Method, name: str) -> str | None:
    """Access flags the class-file parser rejects (JVMS 4.6), for the checks that matter to a
    rewriter that adds and changes methods; the JVM throws ClassFormatError for these."""
    acc = method.access
    if (acc & (ACC_PUBLIC | ACC_PRIVATE | ACC_PROTECTED)).bit_count() > 1:
        return "more than one of public, private and protected"
    if name == "<clinit>":
        if cf.major >= 51 and not acc & ACC_STATIC:
            return "<clinit> is not static"
        return None
    if cf.is_interface():
        if name == "<init>":
            return "an interface has an <init> method"
        if cf.major < 52:
            if acc & (ACC_PUBLIC | ACC_ABSTRACT) != ACC_PUBLIC | ACC_ABSTRACT:
                return "an interface method of a class file older than version 52 is not public abstract"
        elif acc & (ACC_PROTECTED | ACC_FINAL | ACC_SYNCHRONIZED | ACC_NATIVE):
            return "an interface method is protected, final, synchronized or native"
        elif not acc & (ACC_PUBLIC | ACC_PRIVATE):
            return "an interface method is neither public nor private"
        elif acc & ACC_ABSTRACT and acc & (ACC_PRIVATE | ACC_STATIC):
            return "an abstract interface method is private or static"
        return None
    if acc & ACC_ABSTRACT and (
        acc & (ACC_PRIVATE | ACC_STATIC | ACC_FINAL | ACC_NATIVE) or (cf.major >= 49 and acc & ACC_SYNCHRONIZED)
    ):
        return "an abstract method is also private, static, final, native or synchronized"
    if name == "<init>" and acc & (ACC_STATIC | ACC_FINAL | ACC_SYNCHRONIZED | ACC_NATIVE | ACC_ABSTRACT):
        return "<init> is static, final, synchronized, native or abstract"
    return None


def _verify(cf: ClassFile, method: Method, name: str, desc: str, types: _Types, duplicate: bool) -> list[VerifyProblem]:
    def problem(offset: int, reason: str) -> list[VerifyProblem]:
        return [VerifyProblem(f"{cf.name.replace('/', '.')}.{name}{desc}", offset, reason)]

    try:
        if duplicate:
            return problem(-1, "another method has the same name and descriptor")
        why = _flags_problem(cf, method, name)
        if why is not None:
            return problem(-1, why)
        code = method.code()
    except JprewriteError as e:
        return problem(-1, e.message)
    abstract_or_native = bool(method.access & (ACC_ABSTRACT | ACC_NATIVE))
    if code is None:
        if abstract_or_native:
            return []
        return problem(-1, "a method that is neither abstract nor native has no Code attribute")
    if abstract_or_native:
        return problem(-1, "an abstract or native method has a Code attribute")
    try:
        _Checker(cf, method, name, desc, code, types).run()
    except _Fail as f:
        return problem(f.offset, f.reason)
    except JprewriteError as e:  # a malformed constant or descriptor met on the way
        return problem(-1, e.message)
    except Exception as bug:  # noqa: BLE001 - a bug here must fail the method (the gate stays safe), not the run
        return problem(-1, f"internal verifier error: {type(bug).__name__}: {bug}")
    return []


def _duplicates(cf: ClassFile) -> set[tuple[str, str]]:
    seen: set[tuple[str, str]] = set()
    dups: set[tuple[str, str]] = set()
    for m in cf.methods:
        try:
            key = (m.name, m.descriptor)
        except JprewriteError:
            continue
        if key in seen:
            dups.add(key)
        seen.add(key)
    return dups


def verify_method(cf: ClassFile, method: Method, hierarchy: ClassHierarchy | None) -> list[VerifyProblem]:
    """Problems the JVM's verifier would find in ``method`` of ``cf`` (empty: it verifies).

    At most one problem is reported (the first, in the order HotSpot would meet it).
    """
    try:
        name, desc = method.name, method.descriptor
    except JprewriteError as e:
        return [VerifyProblem("<unreadable method>", -1, e.message)]
    return _verify(cf, method, name, desc, _Types(cf, hierarchy), (name, desc) in _duplicates(cf))


def verify_class(
    cf: ClassFile, hierarchy: ClassHierarchy | None, methods: set[tuple[str, str]] | None = None
) -> list[VerifyProblem]:
    """Problems of every method of ``cf`` (or of the ``(name, descriptor)`` pairs in ``methods``).

    Methods without code are checked only for having none legitimately. One
    hierarchy cache is shared by the class's methods.
    """
    types = _Types(cf, hierarchy)
    dups = _duplicates(cf)
    out: list[VerifyProblem] = []
    for m in cf.methods:
        try:
            key = (m.name, m.descriptor)
        except JprewriteError as e:
            out.append(VerifyProblem("<unreadable method>", -1, e.message))
            continue
        if methods is not None and key not in methods:
            continue
        out.extend(_verify(cf, m, key[0], key[1], types, key in dups))
    return out
