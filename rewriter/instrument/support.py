"""Every name the instrumentation injects into a program, in one place (JaCoCo's ``InstrSupport``).

Rewritten classes and the Java runtime meet only through these names: the runtime's types,
the suffixes of added methods and classes, the synthetic members of each rewritten class and
its holder. A reader who wants to know what jprewrite adds to a program reads this module and
:mod:`.runtime_api` (the runtime's entry points); nothing else in the package spells a name
of its own.
"""

from __future__ import annotations

from typing import Final

from ..classfile.model import ACC_SYNTHETIC

__all__ = [
    "RUNTIME_PACKAGE",
    "LEAF_NODE",
    "LEAF_NODE_DESC",
    "NODE",
    "NODE_DESC",
    "ROOT",
    "ROOT_DESC",
    "SAMPLING",
    "TRACES",
    "TEXTS",
    "WALKS",
    "MEMBERS",
    "MID",
    "MID_DESC",
    "MIDS_ARRAY",
    "HOLDER_SUFFIX",
    "MIDS_FIELD",
    "MID_FIELD_PREFIX",
    "SEEN_FIELD",
    "INIT_FLAG_PREFIX",
    "MIDS_PER_CHUNK",
    "CLASS_METHOD",
    "CLASS_METHOD_DESC",
    "MARKER_FIELD",
    "ESI_FLAGS",
    "ESI_NAME_SUFFIX",
    "ENTERED",
    "UNKNOWN_SITE",
    "KIND_INSTRUMENTED",
    "KIND_JDK",
    "KIND_UNINSTRUMENTED",
    "KIND_NATIVE",
    "esi_name",
    "renamed_from",
    "TRAMPOLINE_FLAGS",
    "trampoline_descriptor",
    "esi_descriptor",
    "slot_descriptor",
    "dispatcher_descriptor",
]

RUNTIME_PACKAGE: Final = "jprewrite/runtime/"
NODE: Final = "jprewrite/runtime/Node"
NODE_DESC: Final = "L" + NODE + ";"
LEAF_NODE: Final = "jprewrite/runtime/LeafNode"
ROOT: Final = "jprewrite/runtime/ThreadRoot"
ROOT_DESC: Final = "L" + ROOT + ";"
SAMPLING: Final = "jprewrite/runtime/Sampling"
TRACES: Final = "jprewrite/runtime/Traces"
TEXTS: Final = "jprewrite/runtime/Texts"
WALKS: Final = "jprewrite/runtime/Walks"
MEMBERS: Final = "jprewrite/runtime/Members"
MID: Final = "jprewrite/runtime/MethodId"
MID_DESC: Final = "L" + MID + ";"
MIDS_ARRAY: Final = "[" + MID_DESC

#: the synthetic class beside each rewritten class: its MethodIds, its interface dispatchers
HOLDER_SUFFIX: Final = "$$jpmids"
MIDS_FIELD: Final = "$jp$mids"  #: ``static final MethodId[]`` of the holder
MID_FIELD_PREFIX: Final = "$jp$m"  #: ``static final MethodId $jp$m<k>``: the holder's MethodIds as fields
SEEN_FIELD: Final = "$jp$seen"  #: ``static final Class[]``: the dispatchers' inline caches
#: ``static boolean $jp$init<k>`` of the holder: set once class ``k`` (a class with a static
#: initialiser this class touches) has been touched, so later touches skip the init publish
INIT_FLAG_PREFIX: Final = "$jp$init"
MIDS_PER_CHUNK: Final = 600  #: MethodIds filled per holder method (keeps each far below 64 KB)

#: ``public synthetic Class $jprewrite$class()``: the class literal, for the fast override check
CLASS_METHOD: Final = "$jprewrite$class"
CLASS_METHOD_DESC: Final = "()Ljava/lang/Class;"
#: a private static synthetic boolean in every rewritten class: how the runtime recognises one
MARKER_FIELD: Final = "$jprewrite$instrumented"

#: Flags of every method the rewriting adds to a class: synthetic (reflection-driven runtimes skip
#: synthetic methods: Spring, Jackson, ByteBuddy, Mockito). Not bridge, as once: cglib (in Guice and
#: Spring too) reads the class file of every class with bridge methods to find what they bridge
#: to, with an ASM of its own that may not read the class's version (Guice 4.2 and Java 17 classes:
#: the injector failed). Names of their own (``m$jp``) keep them out of lookups by name (Groovy's
#: closures look for ``doCall``).
ESI_FLAGS: Final = ACC_SYNTHETIC
ESI_NAME_SUFFIX: Final = "$jp"

ENTERED: Final = -2  #: the site an N2B passes: the node it hands over is the callee's own (Node.ENTERED)
UNKNOWN_SITE: Final = -1  #: a site the callee cannot use (a super call: no override check)

#: MethodId kinds (``MethodId.get``'s ``kind``)
KIND_INSTRUMENTED: Final = 0
KIND_JDK: Final = 1
KIND_UNINSTRUMENTED: Final = 2
KIND_NATIVE: Final = 3


def esi_name(name: str) -> str:
    """The name of a method's ESI twin: ``m`` -> ``m$jp``.

    A name of its own, not an overload: code that looks methods up by name through reflection
    (Groovy's compiler picks its runtime helpers with ``getMethods()`` by name, then emits calls
    with the descriptor it found) must never get an ESI method. Overriding still pairs ESI
    methods exactly as it pairs the originals.
    """
    return name + ESI_NAME_SUFFIX


def renamed_from(name: str) -> str | None:
    """The method name that ``name`` holds the body of: a twin's (``m$jp``) or an outlined part's
    (``m$jp$N``) is ``m``; None for a method of the original name (a constructor, ``<clinit>``)."""
    if name.endswith(ESI_NAME_SUFFIX) and len(name) > len(ESI_NAME_SUFFIX):
        return name[: -len(ESI_NAME_SUFFIX)]
    at = name.rfind(ESI_NAME_SUFFIX + "$")
    if at > 0 and name[at + len(ESI_NAME_SUFFIX) + 1 :].isdigit():
        return name[:at]
    return None


#: A logging trampoline (:mod:`.shape_trampoline`): ``private static synthetic`` (an instance method
#: for a ``super`` call), named as the method whose twin calls it, its descriptor the call's own
#: (the receiver first) with a last ``Traces`` parameter that no program method can have (always
#: null): the JDK's logging names the caller after this frame, and ``Members`` leaves it out
TRAMPOLINE_FLAGS: Final = ACC_SYNTHETIC


def trampoline_descriptor(receiver: str | None, descriptor: str) -> str:
    """``(args)R`` called on ``receiver`` (None: a ``super`` call, on ``this``) ->
    ``(Lreceiver; args LTraces;)R``."""
    close = descriptor.rindex(")")
    head = "(" if receiver is None else "(" + (receiver if receiver.startswith("[") else "L" + receiver + ";")
    return head + descriptor[1:close] + "L" + TRACES + ";" + descriptor[close:]


_ESI_DESCRIPTORS: Final[dict[str, str]] = {}


def esi_descriptor(descriptor: str) -> str:
    """``(args)R`` -> ``(args Ljprewrite/runtime/Node; I)R``.

    Remembered (a method's twin, wrapper and override check, and every call site passing the
    node, ask for the same few descriptors; a long-lived agent forgets them past 50,000)."""
    found = _ESI_DESCRIPTORS.get(descriptor)
    if found is None:
        if len(_ESI_DESCRIPTORS) >= 50_000:
            _ESI_DESCRIPTORS.clear()
        close = descriptor.rindex(")")
        found = _ESI_DESCRIPTORS[descriptor] = descriptor[:close] + NODE_DESC + "I" + descriptor[close:]
    return found


LEAF_NODE_DESC: Final = "L" + LEAF_NODE + ";"


def slot_descriptor(descriptor: str) -> str:
    """``(args)R`` -> ``(args Ljprewrite/runtime/LeafNode; I)R``: a slot twin's (:mod:`.shape_slot`),
    which counts into two slots of its caller's context instead of entering a node of its own."""
    close = descriptor.rindex(")")
    return descriptor[:close] + LEAF_NODE_DESC + "I" + descriptor[close:]


def dispatcher_descriptor(interface: str, descriptor: str) -> str:
    """``(args)R`` of interface ``I`` -> ``(LI; args Ljprewrite/runtime/Node; I)R`` (the static dispatcher)."""
    return "(L" + interface + ";" + esi_descriptor(descriptor)[1:]
