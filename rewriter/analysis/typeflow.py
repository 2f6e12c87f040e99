"""Verification types flowing through a method body, by the rules of the type-checking verifier.

This is the JVMS 4.10.1 view of a method: what the *verifier* believes is in
each local and on the operand stack, not what the interpreter holds. It gives
a rewriter the frames (StackMapTable entries) its edited code needs, in two
ways:

* :func:`flow_to` -- LOCAL: start from the nearest frame before a position
  (an existing frame at a label, or the implicit frame at method entry) and
  execute straight-line code forward. Cheap and exact when nothing jumps into
  the stretch in between; what a rewriter uses after inserting code.
* :func:`infer_frames` -- FULL: data flow over the whole control-flow graph
  (entry, branches, switches, exception handlers) merging states at join
  points, like ASM's ``COMPUTE_FRAMES``. Needs a class hierarchy to merge
  reference types.

State representation
--------------------
:class:`State` is the verifier's *slot-level* view:

* ``locals`` has ONE entry PER SLOT. A ``Long``/``Double`` occupies its slot
  and the next slot holds ``Top``. Slots past the end of the list are ``Top``.
* ``stack`` has ONE entry PER VALUE. A ``Long``/``Double`` is a single entry;
  its size (two slots) is implied by the type (:func:`type_size`). ``dup2``
  and friends take as many entries as make up two slots, exactly as the JVMS
  forms of those instructions do, and fail on a split category-2 value.

A :class:`~jprewrite.classfile.frames.Frame` (one entry per verification
type, as in the class file) converts with :func:`state_from_frame` and
:func:`frame_from_state`.

``Uninitialized`` types hold their ``new`` *instruction object* (as everywhere
in symbolic bodies), so nothing here inserts labels or shifts item indices.

Subroutines (``jsr``/``ret``) have no frame representation (a return address
type cannot be written in a StackMapTable): they raise
:class:`SubroutineError`. Class files that use them are older than version 50
and need no frames at all.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable, Mapping

from ..classfile import constants as C
from ..classfile import opcodes as op
from ..classfile.descriptors import parse_method_descriptor
from ..classfile.frames import (Double, Float, Frame, Integer, Long, Null, Object, Top, Uninitialized,
                                UninitializedThis, VType, initial_frame_locals, vtype_of_descriptor)
from ..classfile.instructions import Instruction
from ..errors import JprewriteError

__all__ = [
    "State", "TypeflowError", "FrameUnknown", "SubroutineError", "InferenceReport",
    "type_size", "state_from_frame", "frame_from_state", "initial_state", "execute",
    "flow_to", "infer_frames", "infer_states",
    "merge_states", "TypeMerger", "is_assignable", "state_assignable",
]

OBJECT = "java/lang/Object"
THROWABLE = "java/lang/Throwable"


# ----------------------------------------------------------------------- errors
class TypeflowError(JprewriteError):
    """The code does not type-check the way the verifier would need (or cannot be analysed)."""


class FrameUnknown(TypeflowError):
    """:func:`flow_to` cannot reach the position by straight-line flow from a known frame."""


class SubroutineError(TypeflowError):
    """``jsr``/``ret``: a return-address type cannot be expressed in a frame (class files < 50)."""


# ------------------------------------------------------------------------ state
def type_size(t: VType) -> int:
    """Slots a value of verification type ``t`` takes (2 for Long/Double, else 1)."""
    return 2 if t is Long or t is Double else 1


@dataclass(slots=True)
class State:
    """The verifier's state before (or after) an instruction; see the module docstring.

    ``locals``: one entry per slot, a Long/Double followed by Top; missing slots are Top.
    ``stack``: one entry per value (bottom first), a Long/Double being one entry of size 2.
    """

    locals: list
    stack: list = field(default_factory=list)

    def copy(self) -> "State":
        return State(list(self.locals), list(self.stack))

    def local(self, slot: int) -> VType:
        return self.locals[slot] if slot < len(self.locals) else Top

    @property
    def stack_slots(self) -> int:
        return sum(2 if t is Long or t is Double else 1 for t in self.stack)

    def trimmed_locals(self) -> list:
        """``locals`` without trailing Tops (two states that differ only there are the same)."""
        n = len(self.locals)
        while n and self.locals[n - 1] is Top:
            n -= 1
        return self.locals[:n]

    def same(self, other: "State") -> bool:
        return self.stack == other.stack and self.trimmed_locals() == other.trimmed_locals()


def state_from_frame(frame: Frame) -> State:
    """Slot-level state of a frame: each Long/Double entry expands to itself and a Top."""
    locals_: list = []
    for t in frame.locals:
        locals_.append(t)
        if t is Long or t is Double:
            locals_.append(Top)
    return State(locals_, list(frame.stack))


def frame_from_state(state: State, offset: int = -1) -> Frame:
    """The frame (one entry per type) of a state: trailing Tops trimmed, Long/Double + Top collapsed.

    The frame has no ``kind``, so the encoder picks the most compact one.
    """
    src = state.locals
    n = len(src)
    while n and src[n - 1] is Top:
        n -= 1
    out = []
    i = 0
    while i < n:
        t = src[i]
        out.append(t)
        i += 2 if (t is Long or t is Double) else 1
    return Frame(offset, out, list(state.stack))


def initial_state(this_class: str, method_name: str, descriptor: str, is_static: bool) -> State:
    """The implicit frame at method entry (JVMS 4.10.1.6), slot-level."""
    return state_from_frame(Frame(0, initial_frame_locals(this_class, method_name, descriptor, is_static)))


# ----------------------------------------------------------- instruction tables
_SHORT: dict[int, tuple[int, int]] = {}
for _base, _first in ((op.ILOAD, op.ILOAD_0), (op.ISTORE, op.ISTORE_0)):
    for _kind in range(5):
        for _slot in range(4):
            _SHORT[_first + 4 * _kind + _slot] = (_base + _kind, _slot)

_CONST: dict[int, VType] = {op.ACONST_NULL: Null, op.BIPUSH: Integer, op.SIPUSH: Integer,
                            op.LCONST_0: Long, op.LCONST_1: Long, op.DCONST_0: Double,
                            op.DCONST_1: Double, op.FCONST_0: Float, op.FCONST_1: Float,
                            op.FCONST_2: Float}
for _o in range(op.ICONST_M1, op.ICONST_5 + 1):
    _CONST[_o] = Integer

_LOAD_TYPE = {op.ILOAD: Integer, op.LLOAD: Long, op.FLOAD: Float, op.DLOAD: Double}
_STORE_TYPE = {op.ISTORE: Integer, op.LSTORE: Long, op.FSTORE: Float, op.DSTORE: Double}

# opcode -> (values popped, type pushed or None): instructions whose effect is fixed
_SIMPLE: dict[int, tuple[int, VType | None]] = {}


def _simple(ops: Iterable[int], pops: int, push: VType | None) -> None:
    for o in ops:
        _SIMPLE[o] = (pops, push)


_simple([op.NOP, op.GOTO, op.GOTO_W, op.RETURN], 0, None)
_simple([op.IALOAD, op.BALOAD, op.CALOAD, op.SALOAD], 2, Integer)
_simple([op.LALOAD], 2, Long)
_simple([op.FALOAD], 2, Float)
_simple([op.DALOAD], 2, Double)
_simple([op.IASTORE, op.LASTORE, op.FASTORE, op.DASTORE, op.AASTORE, op.BASTORE, op.CASTORE,
         op.SASTORE], 3, None)
_simple([op.IADD, op.ISUB, op.IMUL, op.IDIV, op.IREM, op.ISHL, op.ISHR, op.IUSHR, op.IAND, op.IOR,
         op.IXOR], 2, Integer)
_simple([op.LADD, op.LSUB, op.LMUL, op.LDIV, op.LREM, op.LAND, op.LOR, op.LXOR, op.LSHL, op.LSHR,
         op.LUSHR], 2, Long)
_simple([op.FADD, op.FSUB, op.FMUL, op.FDIV, op.FREM], 2, Float)
_simple([op.DADD, op.DSUB, op.DMUL, op.DDIV, op.DREM], 2, Double)
_simple([op.INEG, op.L2I, op.F2I, op.D2I, op.I2B, op.I2C, op.I2S], 1, Integer)
_simple([op.LNEG, op.I2L, op.F2L, op.D2L], 1, Long)
_simple([op.FNEG, op.I2F, op.L2F, op.D2F], 1, Float)
_simple([op.DNEG, op.I2D, op.L2D, op.F2D], 1, Double)
_simple([op.LCMP, op.FCMPL, op.FCMPG, op.DCMPL, op.DCMPG], 2, Integer)
_simple([op.IFEQ, op.IFNE, op.IFLT, op.IFGE, op.IFGT, op.IFLE, op.IFNULL, op.IFNONNULL,
         op.TABLESWITCH, op.LOOKUPSWITCH, op.IRETURN, op.LRETURN, op.FRETURN, op.DRETURN,
         op.ARETURN, op.ATHROW, op.MONITORENTER, op.MONITOREXIT, op.PUTSTATIC], 1, None)
_simple([op.IF_ICMPEQ, op.IF_ICMPNE, op.IF_ICMPLT, op.IF_ICMPGE, op.IF_ICMPGT, op.IF_ICMPLE,
         op.IF_ACMPEQ, op.IF_ACMPNE], 2, None)
_simple([op.ARRAYLENGTH, op.INSTANCEOF], 1, Integer)
_simple([op.IINC], 0, None)

_NEWARRAY = {op.T_BOOLEAN: "[Z", op.T_CHAR: "[C", op.T_FLOAT: "[F", op.T_DOUBLE: "[D",
             op.T_BYTE: "[B", op.T_SHORT: "[S", op.T_INT: "[I", op.T_LONG: "[J"}

# (slots duplicated, slots skipped below them) for the dup family
_DUPS = {op.DUP: (1, 0), op.DUP_X1: (1, 1), op.DUP_X2: (1, 2),
         op.DUP2: (2, 0), op.DUP2_X1: (2, 1), op.DUP2_X2: (2, 2)}

#: instructions after which control does not fall through (jsr/ret are refused anyway)
ENDS_FLOW = frozenset((op.GOTO, op.GOTO_W, op.TABLESWITCH, op.LOOKUPSWITCH, op.IRETURN, op.LRETURN,
                       op.FRETURN, op.DRETURN, op.ARETURN, op.RETURN, op.ATHROW, op.RET))
_SUBROUTINE = frozenset((op.JSR, op.JSR_W, op.RET))
_STORES = frozenset((op.ISTORE, op.LSTORE, op.FSTORE, op.DSTORE, op.ASTORE,
                     *range(op.ISTORE_0, op.ASTORE_3 + 1)))
_CONDITIONAL = frozenset((*range(op.IFEQ, op.IF_ACMPNE + 1), op.IFNULL, op.IFNONNULL))

_OBJECT_STRING = Object("java/lang/String")
_LDC_TYPES = {C.INTEGER: Integer, C.FLOAT: Float, C.LONG: Long, C.DOUBLE: Double,
              C.STRING: _OBJECT_STRING, C.CLASS: Object("java/lang/Class"),
              C.METHOD_TYPE: Object("java/lang/invoke/MethodType"),
              C.METHOD_HANDLE: Object("java/lang/invoke/MethodHandle")}


def _name(insn: Instruction) -> str:
    return op.opcode_name(insn.opcode)


def _pop(stack: list, insn: Instruction) -> VType:
    if not stack:
        raise TypeflowError(f"{_name(insn)}: operand stack underflow")
    return stack.pop()


def _pop_n(stack: list, n: int, insn: Instruction) -> None:
    if n:
        if len(stack) < n:
            raise TypeflowError(f"{_name(insn)}: operand stack underflow "
                                f"(needs {n} values, has {len(stack)})")
        del stack[-n:]


def _take_slots(stack: list, end: int, slots: int, insn: Instruction) -> int:
    """Index ``i`` such that ``stack[i:end]`` is exactly ``slots`` slots (no category-2 split)."""
    i = end
    got = 0
    while got < slots:
        if i == 0:
            raise TypeflowError(f"{_name(insn)}: operand stack underflow")
        i -= 1
        t = stack[i]
        got += 2 if (t is Long or t is Double) else 1
    if got != slots:
        raise TypeflowError(f"{_name(insn)} would split a long or double on the stack")
    return i


def _store(locals_: list, slot: int, t: VType) -> None:
    """Store ``t`` at ``slot`` as the verifier does (a long/double split by it is invalidated)."""
    size = 2 if (t is Long or t is Double) else 1
    need = slot + size
    if len(locals_) < need:
        locals_.extend([Top] * (need - len(locals_)))
    if slot > 0:
        prev = locals_[slot - 1]
        if prev is Long or prev is Double:
            locals_[slot - 1] = Top
    locals_[slot] = t
    if size == 2:
        locals_[slot + 1] = Top


def _is_reference(t: VType) -> bool:
    return t is Null or type(t) is Object or type(t) is Uninitialized or t is UninitializedThis


def component_type(t: VType, insn: Instruction | None = None) -> VType:
    """What ``aaload`` pushes for an array of type ``t`` (Null stays Null)."""
    if t is Null:
        return Null
    if type(t) is Object and t.name.startswith("["):  # type: ignore[attr-defined]
        comp = t.name[1:]  # type: ignore[attr-defined]
        if comp[0] == "L":
            return Object(comp[1:-1])
        if comp[0] == "[":
            return Object(comp)
    where = f"{_name(insn)}: " if insn is not None else ""
    raise TypeflowError(f"{where}{t!r} is not an array of references")


def _array_of(name: str) -> str:
    return "[" + name if name.startswith("[") else f"[L{name};"


def _step(locals_: list, stack: list, insn: Instruction, pool, this_class: str,
          new_label=None) -> None:
    """Execute ``insn`` on (``locals_``, ``stack``) in place."""
    o = insn.opcode
    simple = _SIMPLE.get(o)
    if simple is not None:
        pops, push = simple
        if pops:
            _pop_n(stack, pops, insn)
        if push is not None:
            stack.append(push)
        return
    if o in _SHORT:
        o, slot = _SHORT[o]
    else:
        slot = insn.operand
    if o == op.ALOAD:
        t = locals_[slot] if slot < len(locals_) else Top  # type: ignore[operator,index]
        if not _is_reference(t):
            raise TypeflowError(f"aload {slot}: local holds {t!r}, not a reference")
        stack.append(t)
        return
    if o in _LOAD_TYPE:
        stack.append(_LOAD_TYPE[o])
        return
    if o == op.ASTORE:
        t = _pop(stack, insn)
        if not _is_reference(t):
            raise TypeflowError(f"astore {slot}: {t!r} is not a reference")
        _store(locals_, slot, t)  # type: ignore[arg-type]
        return
    if o in _STORE_TYPE:
        _pop(stack, insn)
        _store(locals_, slot, _STORE_TYPE[o])  # type: ignore[arg-type]
        return
    if o in _CONST:
        stack.append(_CONST[o])
        return
    if o in (op.LDC, op.LDC_W, op.LDC2_W):
        stack.append(_ldc_type(pool, insn.operand))  # type: ignore[arg-type]
        return
    if o == op.AALOAD:
        _pop(stack, insn)
        stack.append(component_type(_pop(stack, insn), insn))
        return
    if o in _DUPS:
        slots, skip = _DUPS[o]
        n = len(stack)
        i = _take_slots(stack, n, slots, insn)
        j = _take_slots(stack, i, skip, insn) if skip else i
        stack[j:j] = stack[i:n]
        return
    if o == op.POP:
        t = _pop(stack, insn)
        if t is Long or t is Double:
            raise TypeflowError("pop of a long or double")
        return
    if o == op.POP2:
        del stack[_take_slots(stack, len(stack), 2, insn):]
        return
    if o == op.SWAP:
        if len(stack) < 2:
            raise TypeflowError("swap: operand stack underflow")
        a, b = stack[-2], stack[-1]
        if type_size(a) == 2 or type_size(b) == 2:
            raise TypeflowError("swap of a long or double")
        stack[-2], stack[-1] = b, a
        return
    if o in (op.GETSTATIC, op.GETFIELD, op.PUTFIELD):
        _, _, desc = pool.member_ref(insn.operand)
        if o == op.PUTFIELD:
            _pop_n(stack, 2, insn)
            return
        if o == op.GETFIELD:
            _pop(stack, insn)
        stack.append(vtype_of_descriptor(desc))
        return
    if o in (op.INVOKEVIRTUAL, op.INVOKESPECIAL, op.INVOKESTATIC, op.INVOKEINTERFACE):
        owner, name, desc = pool.member_ref(insn.operand)
        md = parse_method_descriptor(desc)
        _pop_n(stack, len(md.params), insn)
        if o != op.INVOKESTATIC:
            receiver = _pop(stack, insn)
            if o == op.INVOKESPECIAL and name == "<init>":
                if receiver is UninitializedThis:
                    done = Object(this_class)
                elif type(receiver) is Uninitialized:
                    done = Object(owner)
                else:
                    raise TypeflowError(f"invokespecial {owner}.<init> on {receiver!r}, "
                                        "which is not an uninitialized object")
                for k, t in enumerate(locals_):
                    if t == receiver:
                        locals_[k] = done
                for k, t in enumerate(stack):
                    if t == receiver:
                        stack[k] = done
        if md.return_type != "V":
            stack.append(vtype_of_descriptor(md.return_type))
        return
    if o == op.INVOKEDYNAMIC:
        c = pool.get(insn.operand, C.INVOKE_DYNAMIC)
        _, desc = pool.name_and_type(c.second)  # type: ignore[attr-defined]
        md = parse_method_descriptor(desc)
        _pop_n(stack, len(md.params), insn)
        if md.return_type != "V":
            stack.append(vtype_of_descriptor(md.return_type))
        return
    if o == op.NEW:
        if new_label is None:
            raise TypeflowError("new: the object naming this new site is needed "
                                "(in symbolic bodies: the new instruction itself)")
        stack.append(Uninitialized(new_label))
        return
    if o == op.NEWARRAY:
        _pop(stack, insn)
        try:
            stack.append(Object(_NEWARRAY[insn.operand]))  # type: ignore[index]
        except KeyError:
            raise TypeflowError(f"newarray: bad array type code {insn.operand}") from None
        return
    if o == op.ANEWARRAY:
        _pop(stack, insn)
        stack.append(Object(_array_of(pool.class_name(insn.operand))))
        return
    if o == op.MULTIANEWARRAY:
        _pop_n(stack, insn.dims, insn)  # type: ignore[attr-defined]
        stack.append(Object(pool.class_name(insn.operand)))
        return
    if o == op.CHECKCAST:
        _pop(stack, insn)
        stack.append(Object(pool.class_name(insn.operand)))
        return
    if o == op.PUTSTATIC:  # pragma: no cover - in _SIMPLE
        _pop(stack, insn)
        return
    if o in _SUBROUTINE:
        raise SubroutineError(f"{_name(insn)}: subroutines (jsr/ret) have no frame representation; "
                              "class files that use them (version < 50) need no frames")
    raise TypeflowError(f"cannot execute {_name(insn)}")


def _ldc_type(pool, index: int) -> VType:
    tag = pool.tag(index)
    t = _LDC_TYPES.get(tag)
    if t is not None:
        return t
    if tag == C.DYNAMIC:
        _, desc = pool.name_and_type(pool[index].second)
        return vtype_of_descriptor(desc)
    raise TypeflowError(f"ldc of constant #{index}, a {C.TAG_NAMES.get(tag, tag)}")


def execute(state: State, insn: Instruction, pool, this_class: str, *, new_label=None) -> State:
    """The state after ``insn`` (a new State; ``state`` is not changed).

    ``new_label`` is required for ``new``: what its ``Uninitialized`` type names
    (in symbolic bodies, the ``new`` instruction object itself). For a branch the result is the state on both
    edges (operands popped); after ``goto``/returns/``athrow``/switches it is
    the state with the operands popped (nothing falls through). ``jsr`` and
    ``ret`` raise :class:`SubroutineError`.
    """
    locals_ = list(state.locals)
    stack = list(state.stack)
    _step(locals_, stack, insn, pool, this_class, new_label)
    return State(locals_, stack)


# ------------------------------------------------------------------ items
def _is_label(item) -> bool:
    return not isinstance(item, Instruction)


# ---------------------------------------------------------------------- flow_to
def flow_to(body, target_index: int, pool, this_class: str, method_descriptor: str, is_static: bool,
            method_name: str) -> State:
    """The state before ``body.items[target_index]``, by straight-line flow from the nearest frame.

    The start is the closest preceding label that has a frame in ``body.frames``
    or, if there is none, the method entry (implicit initial frame). Raises
    :class:`FrameUnknown` if an instruction that does not fall through (goto,
    return, athrow, switch) lies in between: the position is then reached only
    by jumps and its state is not a matter of straight-line flow. Labels without
    frames in between are passed over (this is the caller's contract: they are
    not join points whose state differs).

    Never changes the body (a ``new`` site is named by its instruction object).
    """
    items = body.items
    frames = body.frames
    start = target_index - 1
    state: State | None = None
    while start >= 0:
        item = items[start]
        if _is_label(item):
            frame = frames.get(item)
            if frame is not None:
                state = state_from_frame(frame)
                break
        elif item.opcode in ENDS_FLOW:
            raise FrameUnknown(f"{_name(item)} at item {start} ends straight-line flow before "
                               f"item {target_index}")
        start -= 1
    if state is None:
        state = initial_state(this_class, method_name, method_descriptor, is_static)
    locals_, stack = state.locals, state.stack
    for k in range(start + 1, target_index):
        item = items[k]
        if not _is_label(item):
            _step(locals_, stack, item, pool, this_class, item)
    return state


# ----------------------------------------------------------------------- merging
class TypeMerger:
    """Merges and compares verification types with a class hierarchy, as the verifier does.

    ``hierarchy`` needs ``info(name)`` (with ``.is_interface`` and ``.super_name``)
    and ``superclasses(name)``; :class:`jprewrite.analysis.hierarchy.ClassHierarchy`
    fits. Classes it cannot find are recorded in :attr:`missing`; a merge that
    needed one falls back to ``java/lang/Object``.
    """

    def __init__(self, hierarchy) -> None:
        self.hierarchy = hierarchy
        self.missing: set[str] = set()
        self._lub: dict[tuple[str, str], str] = {}
        self._chains: dict[str, tuple[list[str], bool]] = {}

    # --- hierarchy questions
    def _is_interface(self, name: str) -> bool:
        if self.hierarchy is None:
            return False
        info = self.hierarchy.info(name)
        return info is not None and info.is_interface

    def _chain(self, name: str) -> tuple[list[str], bool]:
        """``name`` and its superclasses upwards; False if the chain is cut by a missing class."""
        cached = self._chains.get(name)
        if cached is not None:
            return cached
        names: list[str] = []
        last = None
        if self.hierarchy is not None:
            for info in self.hierarchy.superclasses(name):
                names.append(info.name)
                last = info
        if last is None:
            result = ([name], False)
        elif last.super_name is not None:
            names.append(last.super_name)
            result = (names, False)
        else:
            result = (names, True)
        self._chains[name] = result
        return result

    def lub(self, a: str, b: str) -> str:
        """Least common superclass of two reference type names (arrays as descriptors)."""
        if a == b:
            return a
        key = (a, b) if a < b else (b, a)
        r = self._lub.get(key)
        if r is None:
            r = self._lub[key] = self._compute_lub(a, b)
        return r

    def _compute_lub(self, a: str, b: str) -> str:
        if a == OBJECT or b == OBJECT:
            return OBJECT
        if a[0] == "[" or b[0] == "[":
            if a[0] == "[" and b[0] == "[":
                ca, cb = a[1:], b[1:]
                if ca[0] in "L[" and cb[0] in "L[":
                    na = ca[1:-1] if ca[0] == "L" else ca
                    nb = cb[1:-1] if cb[0] == "L" else cb
                    return _array_of(self.lub(na, nb))
            return OBJECT
        if self._is_interface(a) or self._is_interface(b):
            return OBJECT
        chain_a, complete_a = self._chain(a)
        chain_b, complete_b = self._chain(b)
        in_b = set(chain_b)
        for n in chain_a:
            if n in in_b:
                return n
        if not complete_a:
            self.missing.add(chain_a[-1])
        if not complete_b:
            self.missing.add(chain_b[-1])
        return OBJECT

    def merge_value(self, a: VType, b: VType) -> VType | None:
        """The merged type, or None when the two cannot merge (primitive/uninitialized mismatch)."""
        if a is b or a == b:
            return a
        if a is Null:
            return b if type(b) is Object else None
        if b is Null:
            return a if type(a) is Object else None
        if type(a) is Object and type(b) is Object:
            name = self.lub(a.name, b.name)  # type: ignore[attr-defined]
            if name == a.name:  # type: ignore[attr-defined]
                return a
            if name == b.name:  # type: ignore[attr-defined]
                return b
            return Object(name)
        return None

    # --- assignability (JVMS isAssignable, verifier view)
    def is_subclass(self, sub: str, sup: str) -> bool:
        chain, _ = self._chain(sub)
        return sup in chain

    def ref_assignable(self, src: str, dst: str) -> bool:
        if src == dst or dst == OBJECT:
            return True
        if dst[0] == "[":
            if src[0] != "[":
                return False
            cs, cd = src[1:], dst[1:]
            if cs[0] in "L[" and cd[0] in "L[":
                return self.ref_assignable(cs[1:-1] if cs[0] == "L" else cs,
                                           cd[1:-1] if cd[0] == "L" else cd)
            return cs == cd
        if self._is_interface(dst):
            return True
        if src[0] == "[":
            return dst in ("java/lang/Cloneable", "java/io/Serializable")
        return self.is_subclass(src, dst)

    def assignable(self, src: VType, dst: VType) -> bool:
        if dst is Top or src is dst or src == dst:
            return True
        if type(dst) is Object:
            if src is Null:
                return True
            if type(src) is Object:
                return self.ref_assignable(src.name, dst.name)  # type: ignore[attr-defined]
        return False


def merge_states(merger: TypeMerger, old: State, new: State, *, where: str = "") -> State | None:
    """``old`` merged with ``new``, or None if that is ``old`` itself (nothing changed).

    Locals that do not merge become Top; stacks must have the same shape and
    mergeable entries, else :class:`TypeflowError`.
    """
    changed = False
    ol, nl = old.locals, new.locals
    n = max(len(ol), len(nl))
    locals_ = list(ol)
    if len(locals_) < n:
        locals_.extend([Top] * (n - len(locals_)))
    for i in range(n):
        a = locals_[i]
        if a is Top:
            continue
        b = nl[i] if i < len(nl) else Top
        if a is b:
            continue
        m = merger.merge_value(a, b) if b is not Top else None
        if m is None:
            m = Top
        if m is not a:
            if m == a:
                continue
            locals_[i] = m
            changed = True
    os_, ns = old.stack, new.stack
    if len(os_) != len(ns):
        raise TypeflowError(f"stack height mismatch at a join{where}: {os_} vs {ns}")
    stack = os_
    for i, (a, b) in enumerate(zip(os_, ns)):
        if a is b or a == b:
            continue
        m = merger.merge_value(a, b)
        if m is None:
            raise TypeflowError(f"stack mismatch at a join{where}: {a!r} vs {b!r} (entry {i})")
        if m != a:
            if stack is os_:
                stack = list(os_)
            stack[i] = m
            changed = True
    if not changed:
        return None
    # a Long/Double whose second half was lost is no longer a long/double
    for i, t in enumerate(locals_):
        if (t is Long or t is Double) and i + 1 < len(locals_) and locals_[i + 1] is not Top:
            locals_[i] = Top  # pragma: no cover - cannot arise from well-formed states
    return State(locals_, stack if stack is not os_ else list(os_))


def is_assignable(merger: TypeMerger, src: VType, dst: VType) -> bool:
    return merger.assignable(src, dst)


def state_assignable(merger: TypeMerger, src: State, dst: State, *, stack: bool = True) -> bool:
    """Whether ``src`` may flow into a position whose frame is ``dst`` (JVMS frameIsAssignable)."""
    for i, t in enumerate(dst.locals):
        if t is Top:
            continue
        if not merger.assignable(src.local(i), t):
            return False
    if not stack:
        return True
    if len(src.stack) != len(dst.stack):
        return False
    return all(merger.assignable(a, b) for a, b in zip(src.stack, dst.stack))


# ---------------------------------------------------------------- full inference
@dataclass
class InferenceReport:
    """What :func:`infer_frames` noticed besides the frames."""

    missing_classes: set = field(default_factory=set)  # merges that fell back to java/lang/Object
    unreachable: list = field(default_factory=list)  # labels needing a frame that no flow reaches
    not_assignable: list = field(default_factory=list)  # (item index, incoming State) into a fixed frame
    blocks: int = 0
    iterations: int = 0


class _Cfg:
    """Positions, leaders, successors and handler coverage of a body."""

    def __init__(self, body, pool, fixed: Mapping | None) -> None:
        items = body.items
        self.items = items
        n = len(items)
        self.n = n
        pos: dict = {}
        next_insn = [n] * (n + 1)
        nxt = n
        for i in range(n - 1, -1, -1):
            item = items[i]
            if _is_label(item):
                pos[item] = i
            else:
                nxt = i
            next_insn[i] = nxt
        self.pos = pos
        self.next_insn = next_insn

        def at(label) -> int:
            try:
                k = next_insn[pos[label]]
            except KeyError:
                raise TypeflowError(f"label {label!r} is not in the code") from None
            if k >= n:
                raise TypeflowError(f"label {label!r} is at the end of the code (no instruction)")
            return k

        self.at = at
        first = next_insn[0]
        if first >= n:
            raise TypeflowError("the method has no instructions")
        self.first = first
        leaders = {first}
        for i, item in enumerate(items):
            if _is_label(item):
                continue
            o = item.opcode
            if o in _SUBROUTINE:
                raise SubroutineError(f"{_name(item)}: subroutines (jsr/ret) have no frame "
                                      "representation; class files that use them need no frames")
            if o in op.BRANCH_OPCODES:
                leaders.add(at(item.operand))
                if next_insn[i + 1] < n:
                    leaders.add(next_insn[i + 1])
            elif o == op.TABLESWITCH or o == op.LOOKUPSWITCH:
                leaders.add(at(item.default))
                for t in item.targets:
                    leaders.add(at(t))
                if next_insn[i + 1] < n:
                    leaders.add(next_insn[i + 1])
            elif o in ENDS_FLOW and next_insn[i + 1] < n:
                leaders.add(next_insn[i + 1])
        # handlers grouped by entry: one merged state each; rows that share an entry
        # (multi-catch) put the least common superclass of their catch types on the stack
        self.handler_entries: list[int] = []
        self.handler_types: list[list[VType]] = []
        covering: dict[int, list[int]] = {}
        group_of: dict[int, int] = {}
        for h in body.handlers:
            s, e = pos.get(h.start), pos.get(h.end)
            if s is None or e is None:
                raise TypeflowError("an exception handler's range refers to a label not in the code")
            covered = [k for k in range(s + 1, e) if not _is_label(items[k])]
            if not covered:
                continue  # an empty range is dropped by the assembler
            entry = at(h.handler)
            leaders.add(entry)
            exc = Object(pool.class_name(h.catch_type)) if h.catch_type else Object(THROWABLE)
            idx = group_of.get(entry)
            if idx is None:
                idx = group_of[entry] = len(self.handler_entries)
                self.handler_entries.append(entry)
                self.handler_types.append([])
            if exc not in self.handler_types[idx]:
                self.handler_types[idx].append(exc)
            for k in covered:
                lst = covering.get(k)
                if lst is None:
                    covering[k] = [idx]
                elif idx not in lst:
                    lst.append(idx)
        self.covering = covering
        self.fixed_at: dict[int, object] = {}
        if fixed:
            for label, frame in fixed.items():
                if label in pos and next_insn[pos[label]] < n:
                    k = next_insn[pos[label]]
                    leaders.add(k)
                    self.fixed_at.setdefault(k, frame)
        self.leaders = leaders


def infer_states(body, pool, hierarchy, this_class: str, method_name: str, descriptor: str,
                 is_static: bool, *, fixed: Mapping | None = None,
                 report: InferenceReport | None = None, merger: TypeMerger | None = None):
    """Data-flow fixpoint: ``(cfg, states)`` with the state before every reached leader instruction.

    Used by :func:`infer_frames`; exposed for callers that need the state at
    arbitrary instructions (run straight-line from the leader before them).
    """
    cfg = _Cfg(body, pool, fixed)
    merger = merger or TypeMerger(hierarchy)
    report = report if report is not None else InferenceReport()
    items, n, next_insn, leaders = cfg.items, cfg.n, cfg.next_insn, cfg.leaders
    fixed_states = {k: state_from_frame(f) for k, f in cfg.fixed_at.items()}
    handler_exc: list[VType] = []
    for types in cfg.handler_types:
        t = types[0]
        for u in types[1:]:
            t = merger.merge_value(t, u) or Object(THROWABLE)
        handler_exc.append(t)

    states: dict[int, State] = {}
    work: list[int] = []
    queued: set[int] = set()

    def flow_into(k: int, state: State, where: str) -> None:
        fs = fixed_states.get(k)
        if fs is not None:
            if not state_assignable(merger, state, fs):
                report.not_assignable.append((k, state.copy()))
            if k not in states:
                states[k] = fs
                work.append(k)
                queued.add(k)
            return
        old = states.get(k)
        if old is None:
            states[k] = State(list(state.locals), list(state.stack))
        else:
            merged = merge_states(merger, old, state, where=where)
            if merged is None:
                return
            states[k] = merged
        if k not in queued:
            queued.add(k)
            work.append(k)

    def into_handlers(k: int, locals_: list) -> None:
        for idx in cfg.covering[k]:
            flow_into(cfg.handler_entries[idx], State(locals_, [handler_exc[idx]]), f" (handler of item {k})")

    start = cfg.first
    init = initial_state(this_class, method_name, descriptor, is_static)
    flow_into(start, init, " (method entry)")
    covering = cfg.covering
    iterations = 0
    while work:
        k = work.pop()
        queued.discard(k)
        iterations += 1
        st = states[k]
        locals_, stack = list(st.locals), list(st.stack)
        i = k
        while True:
            insn = items[i]
            o = insn.opcode
            cov = i in covering
            if cov:
                into_handlers(i, locals_)
            try:
                _step(locals_, stack, insn, pool, this_class, insn)
            except TypeflowError as e:
                raise type(e)(f"item {i}: {e.message}") from None
            if cov and (o in _STORES or o == op.INVOKESPECIAL):
                into_handlers(i, locals_)
            nxt = next_insn[i + 1]
            if o in op.BRANCH_OPCODES:
                flow_into(cfg.at(insn.operand), State(locals_, stack), f" (branch at item {i})")
                if o == op.GOTO or o == op.GOTO_W:
                    break
            elif o == op.TABLESWITCH or o == op.LOOKUPSWITCH:
                for t in (insn.default, *insn.targets):
                    flow_into(cfg.at(t), State(locals_, stack), f" (switch at item {i})")
                break
            elif o in ENDS_FLOW:
                break
            if nxt >= n:
                raise TypeflowError(f"execution falls off the end of the code after item {i}")
            if nxt in leaders:
                flow_into(nxt, State(locals_, stack), f" (item {nxt})")
                break
            i = nxt
    report.iterations += iterations
    report.blocks += len(leaders)
    report.missing_classes |= merger.missing
    return cfg, states


def labels_needing_frames(body) -> set:
    """Labels whose position needs a frame: branch/switch targets, handler entries, and the
    instruction after one that does not fall through (goto, returns, athrow, switches).

    One label per position: of several labels at the same place, one that
    already has a frame in ``body.frames`` is chosen, else the first of them.
    Positions with no instruction after them (the end of the code) never need one.
    """
    items = body.items
    n = len(items)
    run_of: dict = {}  # label -> index of the first label of its run
    runs: dict[int, list] = {}
    start = -1
    for i, item in enumerate(items):
        if _is_label(item):
            if start < 0:
                start = i
                runs[i] = []
            runs[start].append(item)
            run_of[item] = start
        else:
            start = -1
    needed: set[int] = set()

    def want(label) -> None:
        r = run_of.get(label)
        if r is not None:
            needed.add(r)

    for i, item in enumerate(items):
        if _is_label(item):
            continue
        o = item.opcode
        if o in op.BRANCH_OPCODES:
            want(item.operand)
        elif o == op.TABLESWITCH or o == op.LOOKUPSWITCH:
            want(item.default)
            for t in item.targets:
                want(t)
        if o in ENDS_FLOW and i + 1 < n and _is_label(items[i + 1]):
            needed.add(i + 1)
    for h in body.handlers:
        want(h.handler)
    frames = body.frames
    out = set()
    for r in needed:
        labels = runs[r]
        if r + len(labels) >= n:
            continue  # nothing after: end of code
        chosen = next((lab for lab in labels if lab in frames), labels[0])
        out.add(chosen)
    return out


def infer_frames(body, pool, hierarchy, this_class: str, method_name: str, descriptor: str,
                 is_static: bool, *, fixed: Mapping | None = None,
                 report: InferenceReport | None = None) -> dict:
    """FULL frame inference (like ASM's COMPUTE_FRAMES) for every label that needs a frame.

    Data flow from the method entry and every exception handler to a fixpoint;
    states merge at join points (references to their least common superclass
    by ``hierarchy``, interfaces as java/lang/Object; mismatched locals become
    Top; a mismatch on the stack raises :class:`TypeflowError`). A handler's
    state has the locals of every instruction in its range merged (before each
    instruction, and after each store or constructor call) and the caught type
    (java/lang/Throwable for catch-all) as its stack.

    ``body.frames`` is ignored unless passed as ``fixed``: frames that are kept
    as they are (flow into them is checked, not merged; problems go to
    ``report.not_assignable``). Labels that need a frame but are unreachable
    get none (``report.unreachable``). Raises SubroutineError for jsr/ret.
    """
    report = report if report is not None else InferenceReport()
    cfg, states = infer_states(body, pool, hierarchy, this_class, method_name, descriptor,
                               is_static, fixed=fixed, report=report)
    out = {}
    for label in labels_needing_frames(body):
        k = cfg.next_insn[cfg.pos[label]]
        st = states.get(k)
        if st is None:
            report.unreachable.append(label)
            continue
        out[label] = frame_from_state(st)
    return out
