"""JDK methods that cannot run application code: calls to them need a node but no publish.

A call into uninstrumented code is a boundary call: its node is entered and *published*
(``ThreadRoot.published``), because the callee may call back into instrumented code (an
override of ``toString``, a ``Comparator``, a class initialiser, a class loader), and the
callback must attach beneath it. The publish is a reference store into the thread's root, an
old object after a few collections: G1's write barrier then costs a memory fence per call.
The methods listed here provably never call back: static methods of final JDK classes and
instance methods of final JDK classes whose arguments are all primitives, primitive arrays or
``String``s (nothing whose methods the program could override), minus the few that read system
properties, load charsets or use reflection (any of which may reach application code). Their
calls enter the callee's node exactly as a boundary call does (the profile is the same) and
skip the publish (``LEAF`` in :mod:`.plan`).
"""

from __future__ import annotations

from functools import cache

from ..classfile.descriptors import parse_method_descriptor

__all__ = ["is_leaf_call"]

#: final classes of java.base whose methods (static and instance) never call application code,
#: given arguments of the types in _SAFE_PARAMS, except those named in the set
_FINAL_CLASSES: dict[str, frozenset[str]] = {
    "java/lang/Math": frozenset(),
    "java/lang/StrictMath": frozenset(),
    "java/lang/Integer": frozenset({"getInteger"}),  # reads system properties
    "java/lang/Long": frozenset({"getLong"}),
    "java/lang/Boolean": frozenset({"getBoolean"}),
    "java/lang/Short": frozenset(),
    "java/lang/Byte": frozenset(),
    "java/lang/Character": frozenset({"getName"}),  # loads a resource
    "java/lang/Float": frozenset(),
    "java/lang/Double": frozenset(),
    "java/lang/String": frozenset({"getBytes", "<init>", "describeConstable", "resolveConstantDesc"}),
    "java/lang/StringBuilder": frozenset(),
    "java/lang/StringBuffer": frozenset(),
}
#: constructors of the final classes above that take only safe arguments (``String(byte[], String)``
#: looks up a charset by name: providers may be application classes)
_CONSTRUCTORS: frozenset[str] = frozenset(
    {
        "java/lang/String",  # only the ones _SAFE_STRING_INIT admits
        "java/lang/StringBuilder",
        "java/lang/StringBuffer",
    }
)
_SAFE_STRING_INIT = frozenset({"()V", "([C)V", "([CII)V", "(Ljava/lang/String;)V", "([III)V", "([B)V", "([BII)V"})
#: argument types that carry no application code (final JDK classes, primitives, their arrays)
_SAFE_REFS = frozenset(
    {
        "Ljava/lang/String;",
        "Ljava/lang/Integer;",
        "Ljava/lang/Long;",
        "Ljava/lang/Short;",
        "Ljava/lang/Byte;",
        "Ljava/lang/Character;",
        "Ljava/lang/Boolean;",
        "Ljava/lang/Float;",
        "Ljava/lang/Double;",
    }
)
#: methods taking ``Object`` whose implementation is known not to call it back (``equals`` of the
#: final value classes only tests ``instanceof``; ``getClass`` is final in ``Object``)
_OBJECT_ARGUMENTS: dict[tuple[str, str], frozenset[str]] = {
    ("java/lang/System", "arraycopy"): frozenset({"(Ljava/lang/Object;ILjava/lang/Object;II)V"}),
    ("java/lang/System", "identityHashCode"): frozenset({"(Ljava/lang/Object;)I"}),
    ("java/lang/Object", "getClass"): frozenset({"()Ljava/lang/Class;"}),
    ("java/util/Objects", "requireNonNull"): frozenset(
        {"(Ljava/lang/Object;)Ljava/lang/Object;", "(Ljava/lang/Object;Ljava/lang/String;)Ljava/lang/Object;"}
    ),
    ("java/util/Arrays", "fill"): frozenset(
        {"([Ljava/lang/Object;Ljava/lang/Object;)V", "([Ljava/lang/Object;IILjava/lang/Object;)V"}
    ),
    ("java/util/Arrays", "copyOf"): frozenset({"([Ljava/lang/Object;I)[Ljava/lang/Object;"}),
    ("java/util/Arrays", "copyOfRange"): frozenset({"([Ljava/lang/Object;II)[Ljava/lang/Object;"}),
    **{
        (c, "equals"): frozenset({"(Ljava/lang/Object;)Z"})
        for c in (
            "java/lang/String",
            "java/lang/Integer",
            "java/lang/Long",
            "java/lang/Short",
            "java/lang/Byte",
            "java/lang/Character",
            "java/lang/Boolean",
            "java/lang/Float",
            "java/lang/Double",
        )
    },
}
#: static methods with only safe arguments in classes that are not listed whole
_STATIC_METHODS: dict[str, frozenset[str]] = {
    "java/lang/System": frozenset({"nanoTime", "currentTimeMillis"}),
    "java/lang/Thread": frozenset({"currentThread"}),
    "java/util/Arrays": frozenset(
        {"fill", "copyOf", "copyOfRange", "equals", "hashCode", "sort", "binarySearch", "toString"}
    ),
}


@cache
def _safe_params(descriptor: str) -> bool:
    """Are all parameters primitives, primitive arrays or final JDK value types?"""
    for p in parse_method_descriptor(descriptor).params:
        if len(p) == 1 or (p.startswith("[") and len(p) == 2) or p in _SAFE_REFS:
            continue
        return False
    return True


def is_leaf_call(ref_owner: str, owner: str, name: str, descriptor: str, static: bool) -> bool:
    """Can a call through reference ``ref_owner`` that resolved to ``owner.name descriptor`` not
    run application code? False when it may (or when unsure).

    ``ref_owner`` is the class the call site names: for an instance method it must be one of the
    final classes (dispatch cannot select an override); ``owner`` is the class that declares the
    resolved method (``AbstractStringBuilder`` for ``StringBuilder.length()``).
    """
    fixed = static or ref_owner in _FINAL_CLASSES  # the method that runs is the resolved one
    allowed = _OBJECT_ARGUMENTS.get((owner, name))
    if allowed is not None and descriptor in allowed:
        return fixed or owner == "java/lang/Object"  # getClass() is final in Object
    if not _safe_params(descriptor):
        return False
    if name == "<init>":
        if owner not in _CONSTRUCTORS:
            return False
        return owner != "java/lang/String" or descriptor in _SAFE_STRING_INIT
    if static and name in _STATIC_METHODS.get(owner, ()):
        return True
    excluded = _FINAL_CLASSES.get(ref_owner)
    if excluded is None or name in excluded or name.startswith("<"):
        return False
    return owner.startswith("java/lang/") and fixed
