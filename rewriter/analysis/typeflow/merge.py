"""The merge of the type flow: joins of verification types and of states, and assignability.

Where two control-flow paths meet, the state there is the join of the states they bring
(ASM's ``Frame.merge``); a reference type joins to the least common superclass by a class
hierarchy (interfaces to ``java/lang/Object``, as the verifier treats them), mismatched
locals become Top, and a mismatch on the stack is an error. The same hierarchy answers
JVMS ``isAssignable`` for checking flow into a frame that is kept as it is.
"""

from __future__ import annotations

from ...classfile.descriptors import array_of
from ...classfile.frames import Double, Long, Null, Object, Top, VType
from .state import OBJECT, State, TypeflowError

__all__ = ["TypeMerger", "merge_states", "state_assignable"]


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
                    return array_of(self.lub(na, nb))
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
            name = self.lub(a.name, b.name)
            if name == a.name:
                return a
            if name == b.name:
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
                return self.ref_assignable(cs[1:-1] if cs[0] == "L" else cs, cd[1:-1] if cd[0] == "L" else cd)
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
                return self.ref_assignable(src.name, dst.name)
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
