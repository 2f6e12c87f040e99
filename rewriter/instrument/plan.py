"""Which methods get which CCCP shape, and what each call site must do: decided once, the same for caller and callee.

A caller rewritten in one class and its callee rewritten in another (perhaps
in another jar of the same run) must agree on whether the callee has an ESI
method; otherwise the call would fail with ``NoSuchMethodError``. Both sides
therefore ask :meth:`CctPlan.has_esi`, which looks only at facts that the
rewriting cannot change: the callee's class summary in the hierarchy and the
set of instrumented classes.

Call sites (CCCP Fig. 4, adapted to an uninstrumented JDK, see
``docs/runtime-contract.md``):

* ``PASS`` -- the reference resolves to a method with an ESI: pass the node.
* ``PASS_INTERFACE`` -- the same for an interface method: through the interface's static
  dispatcher, which calls the ESI only on receivers whose classes are instrumented.
* ``BOUNDARY`` -- the code that runs is not instrumented: create the callee's
  node at the call site and publish it for callbacks.
* ``PUBLISH`` -- a constructor of an instrumented class: constructors are instrumented in place
  (OSI, no ESI twin: a second public constructor would change what reflection-driven code sees,
  e.g. dependency-injection containers that use "the" public constructor), so the caller
  publishes its node and the call site, and the constructor's prologue enters beneath them.
* ``PLAIN`` -- ``java.lang.Object.<init>()``: left as it is, no node. It runs no code (a
  ``return``), cannot call back, and every allocation calls it: a boundary node there cost more
  than half of the profiling overhead of allocation-heavy code.
* ``LEAF`` -- a JDK method that cannot run application code (:mod:`.leaf_calls`: ``Math.sqrt``,
  ``String.charAt``, ``StringBuilder.append(int)``...): its node is entered as for ``BOUNDARY``
  but not published (nothing can call back beneath it), which saves a reference store into the
  thread's root per call.
* ``PENDING`` -- not instrumented as resolved, but dispatch may select an
  instrumented override (an application class overriding ``toString``,
  implementing ``Comparator.compare``...): the N2B wrapper decides at run time.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from enum import Enum
from fnmatch import fnmatchcase
from typing import Final

from ..analysis.hierarchy import ClassHierarchy, ClassInfo, MemberInfo
from ..analysis.leaves import ACC_JP_LEAF, statically_bound
from ..classfile import opcodes as op
from ..classfile.descriptors import parse_method_descriptor
from ..classfile.model import (
    ACC_ABSTRACT,
    ACC_ANNOTATION,
    ACC_ENUM,
    ACC_FINAL,
    ACC_NATIVE,
    ACC_PRIVATE,
    ACC_PROTECTED,
    ACC_PUBLIC,
    ACC_STATIC,
    ACC_STRICT,
    ACC_SUPER,
    ACC_SYNCHRONIZED,
)
from .leaf_calls import is_leaf_call
from .support import (
    CLASS_METHOD,
    CLASS_METHOD_DESC,
    ESI_NAME_SUFFIX,
    HOLDER_SUFFIX,
    KIND_INSTRUMENTED,
    KIND_JDK,
    KIND_UNINSTRUMENTED,
    NODE_DESC,
    RUNTIME_PACKAGE,
)

__all__ = ["CallAction", "CallSite", "ClassPatterns", "CctPlan", "NODE_PASSING", "raise_interface_flags"]

_JDK_PREFIXES = ("java/", "javax/", "jdk/", "sun/", "com/sun/")
_ESI_PARAMETERS = NODE_DESC + "I)"  #: how an ESI method's descriptor ends (esi_descriptor)
# the method flags an interface below version 52 may raise to 52 with (JVMS 4.6: what both allow)
_ABSTRACT_PUBLIC = ACC_ABSTRACT | ACC_PUBLIC
_OLD_INTERFACE_FLAGS = _ABSTRACT_PUBLIC | ACC_PRIVATE | ACC_PROTECTED | ACC_STATIC | ACC_FINAL
_OLD_INTERFACE_FLAGS |= ACC_SYNCHRONIZED | ACC_NATIVE | ACC_STRICT


class CallAction(Enum):
    """What a call site in instrumented code does (the module docstring says why each exists).

    The values name the actions in reports (``jprewrite rewrite``'s summary counts them).
    """

    PASS = "pass"
    PASS_INTERFACE = "pass-interface"
    BOUNDARY = "boundary"
    PENDING = "pending"
    PLAIN = "plain"
    PUBLISH = "publish"
    LEAF = "leaf"


@dataclass(frozen=True, slots=True)
class CallSite:
    """A call site's action and the method it names (its node's MethodId)."""

    action: CallAction
    owner: str  #: class (internal name) that names the callee's node; the declaring
    #: interface for PASS_INTERFACE
    name: str
    descriptor: str
    kind: int  #: MID kind for boundary nodes
    resolved: bool = True  #: False when the reference did not resolve (owner is then the referenced class)
    label: str = ""  #: ``action.value``, what reports count (read per call site: an enum's value is a Python property)
    #: PASS to an application leaf (:mod:`~jprewrite.analysis.leaves`), whose slot twin
    #: (:meth:`CctPlan.has_slot_twin`) may count into the caller's node
    leaf: bool = False

    # (written out, not generated: compiled by mypyc, a dataclass's generated __init__ runs interpreted)
    def __init__(
        self,
        action: CallAction,
        owner: str,
        name: str,
        descriptor: str,
        kind: int,
        resolved: bool = True,
        leaf: bool = False,
    ) -> None:
        object.__setattr__(self, "action", action)
        object.__setattr__(self, "owner", owner)
        object.__setattr__(self, "name", name)
        object.__setattr__(self, "descriptor", descriptor)
        object.__setattr__(self, "kind", kind)
        object.__setattr__(self, "resolved", resolved)
        object.__setattr__(self, "label", action.value)
        object.__setattr__(self, "leaf", leaf)


class ClassPatterns:
    """``--includes``/``--excludes``: class-name globs (``com.acme.*``, ``*Test``) on binary names."""

    def __init__(self, includes: Iterable[str] = (), excludes: Iterable[str] = ()) -> None:
        self.includes = [p.strip() for p in includes if p.strip()]
        self.excludes = [p.strip() for p in excludes if p.strip()]

    def __call__(self, internal_name: str) -> bool:
        dotted = internal_name.replace("/", ".")
        if self.includes and not any(fnmatchcase(dotted, p) for p in self.includes):
            return False
        return not any(fnmatchcase(dotted, p) for p in self.excludes)


class CctPlan:
    """The rewriting decisions for one run: ``instrumented(name)`` says which classes are rewritten."""

    def __init__(self, hierarchy: ClassHierarchy, instrumented: Callable[[str], bool]) -> None:
        self.hierarchy = hierarchy
        self._instrumented = instrumented
        self._esi_cache: dict[tuple[str, str, str], bool] = {}
        # is_instrumented's answers: every call site asks about its owner; forget() drops a name
        self._instrumented_cache: dict[str, bool] = {}
        self._clinit_cache: dict[str, bool] = {}
        self._overriders: dict[tuple[str, str], list[str]] | None = None
        # call_site's answers: a pure function of its arguments until the world or the hierarchy
        # changes (set_world, add_to_world, forget clear it); a class calls the same few methods
        # from many sites (StringBuilder.append, its own getters), and each answer resolves the
        # method through the hierarchy
        self._call_sites: dict[tuple[int, str, str, str, bool], CallSite] = {}
        self.world: list[str] = []  # every instrumented class, for the PENDING rule
        self._world_set: set[str] = set()
        # plans of the other views (multi-release jars) in which the classes rewritten with this
        # plan are loaded too: call sites must be valid in each (see also_valid_in)
        self._other_views: list[CctPlan] = []

    def also_valid_in(self, others: Iterable[CctPlan]) -> None:
        """Plan call sites that stay valid when the classes they call are the copies ``others`` see.

        A class of a multi-release jar run (or a class beside one) is loaded by JVMs of several
        releases, and one with ``-Djdk.util.jar.enableMultiRelease=false``; each of them may load
        another copy of a class it calls. Where the copies disagree on whether the call reaches an
        ESI method (a release-9 copy overrides a method that the base copy inherits from the JDK),
        passing the node would be a ``NoSuchMethodError`` on the JVM that loaded the other copy.
        Such a site calls the original method as a pending call instead: the N2B wrapper consumes
        it where the callee is instrumented, ``endPending`` makes the boundary node where it is
        not, so the profile is exact on every JVM and the program runs on all of them.
        """
        self._other_views = list(others)
        self._call_sites.clear()

    def set_world(self, names: Iterable[str]) -> None:
        self._instrumented_cache.clear()
        self.world = sorted(n for n in names if self.is_instrumented(n))
        self._world_set = set(self.world)
        self._overriders = None
        self._call_sites.clear()

    def add_to_world(self, name: str) -> None:
        """A class that appeared at run time (load time): its overrides count for later PENDING decisions."""
        if name in self._world_set or not self.is_instrumented(name):
            return
        self.world.append(name)
        self._world_set.add(name)
        self._call_sites.clear()  # its overrides may turn a boundary call into a pending one
        if self._overriders is not None:
            self._index_overrides(name, self._overriders)

    def forget(self, name: str) -> None:
        """Drop decisions about ``name`` (load time: a class not found earlier has appeared, or failed)."""
        self._esi_cache = {k: v for k, v in self._esi_cache.items() if k[0] != name}
        self._instrumented_cache.pop(name, None)
        self._clinit_cache.clear()
        self._call_sites.clear()  # any answer may have resolved through ``name``

    def warm_up(self) -> None:
        """Build the lazily computed indexes now (before worker processes are forked, so they share them)."""
        self._overriders_of("", "")

    # ----------------------------------------------------------- classes
    def is_instrumented(self, name: str) -> bool:
        found = self._instrumented_cache.get(name)
        if found is None:
            found = self._instrumented_cache[name] = self._decide_instrumented(name)
        return found

    def _decide_instrumented(self, name: str) -> bool:
        if name.startswith("[") or name.startswith(RUNTIME_PACKAGE):
            return False
        if not self._instrumented(name):
            return False
        info = self.hierarchy.info(name)
        if info is None or name.endswith(HOLDER_SUFFIX) or info.declared_method(CLASS_METHOD, CLASS_METHOD_DESC):
            # a class that declares our class method is left as it is (``AlreadyInstrumented``):
            # rewritten before, or a subclass that a generator made at run time by overriding every
            # visible method (cglib's Enhancer); callers must not expect ESI methods of its own
            return False
        if any(m.name.endswith(ESI_NAME_SUFFIX) and _ESI_PARAMETERS in m.descriptor for m in info.methods):
            # a method named and typed as an ESI method: one a generator copied while
            # implementing every method of a rewritten type (ByteBuddy's JavaDispatcher implements
            # its Invoker interface, ``invoke$jp`` too, at run time); its own ESI methods would be
            # declared twice (ClassFormatError at definition). Left as it is, callers reach it
            # through its original methods, as any class the plan does not instrument
            return False
        # annotation interfaces: their methods are only implemented by the JDK's proxies, and
        # readers list them reflectively (Kotlin's reflection invokes every declared method of an
        # annotation type without arguments): they get no ESI methods, calls to them are boundaries
        return info is not None and not info.from_jdk and not info.access & ACC_ANNOTATION

    def interface_takes_defaults(self, info: ClassInfo) -> bool:
        """May ESI default methods be added to interface ``info``?

        Not when that would change when the interface is initialised: JVMS 5.5 initialises the
        superinterfaces that declare non-abstract instance methods along with a class, so an
        interface with a static initialiser and no such method of its own must stay without
        them. Below version 52 (no default methods) only an interface without any code: a static
        initialiser is its only possible code, and every method must be as version 52 allows
        (``public abstract``, nothing else); the rewriting raises such an interface to version
        52 (:func:`raises_interface_version`), so calls through it pass the node like calls
        through any newer interface instead of publishing it for an N2B wrapper, provided nothing
        of it means something else, or is illegal, at version 52 (:func:`_may_raise_to_52`).
        Never an interface that declares a single abstract method: code finds "its" method by
        reflection (:func:`_declares_one_abstract_method`).
        """
        if _declares_one_abstract_method(info):
            return False
        has_clinit = info.declared_method("<clinit>", "()V") is not None
        if info.major < 52:
            return _may_raise_to_52(info)
        if not has_clinit:
            return True
        return any(not m.is_static and not m.is_abstract and m.name != "<clinit>" for m in info.methods)

    def raises_interface_version(self, name: str) -> bool:
        """Is ``name`` an instrumented interface below version 52 that the rewriting makes version 52?"""
        info = self.hierarchy.info(name)
        return (
            info is not None
            and info.is_interface
            and info.major < 52
            and self.is_instrumented(name)
            and self.interface_takes_defaults(info)
        )

    # ----------------------------------------------------------- methods
    def has_esi(self, owner: str, name: str, descriptor: str) -> bool:
        """Does method ``owner.name descriptor`` (as declared) get an ESI method (twin, B2N or delegator)?"""
        key = (owner, name, descriptor)
        found = self._esi_cache.get(key)
        if found is None:
            found = self._esi_cache[key] = self._decide_esi(owner, name, descriptor)
        return found

    def _decide_esi(self, owner: str, name: str, descriptor: str) -> bool:
        if name in ("<clinit>", "<init>") or not self.is_instrumented(owner):
            return False  # initialisers are instrumented in place (OSI)
        info = self.hierarchy.info(owner)
        if info is None:
            return False
        m = info.declared_method(name, descriptor)
        if m is None:
            return False
        try:
            md = parse_method_descriptor(descriptor)
        except Exception:
            return False
        if md.param_slots + (0 if m.is_static else 1) + 2 > 255:
            return False
        if info.is_interface:
            if m.is_static:
                return info.major >= 52
            # default ESI methods where allowed; otherwise no ESI at all: callers go through a
            # publishing dispatcher (see publishing_dispatcher)
            return self.interface_takes_defaults(info)
        return True

    def has_slot_twin(self, owner: str, name: str, descriptor: str) -> bool:
        """Does method ``owner.name descriptor`` (as declared) get a slot twin
        ``m$jp(args…, LeafNode caller, int slot)`` beside its ESI method?

        Every statically bound method with an ESI does (:func:`~jprewrite.analysis.leaves.statically_bound`),
        whatever its code: a leaf's counts into the caller's slots, any other's delegates to the ESI
        method. So the answer depends only on what ``has_esi`` depends on and on access flags, and
        a caller that takes the callee for a leaf (its summary, :meth:`CallSite.leaf`) always finds
        the method, even where the callee's code has changed since.
        """
        if not self.has_esi(owner, name, descriptor):
            return False
        info = self.hierarchy.info(owner)
        if info is None:
            return False
        m = info.declared_method(name, descriptor)
        return m is not None and statically_bound(info.access, m.access, name)

    def publishing_interface(self, owner: str) -> bool:
        """An instrumented interface that may not take default ESI methods (see :meth:`interface_takes_defaults`).

        Its methods get no ESI declaration at all (an abstract one would be a method to implement
        for every compiler that runs inside the program, e.g. Groovy's): its holder's dispatcher
        publishes the caller's node and call site and calls the original method, whose N2B wrapper
        in the implementing class enters beneath them.
        """
        info = self.hierarchy.info(owner)
        return info is not None and info.is_interface and not self.interface_takes_defaults(info)

    def publishing_dispatcher(self, owner: str, name: str, descriptor: str) -> bool:
        """Has instance method ``owner.name descriptor`` of a publishing interface a dispatcher?"""
        if not self.is_instrumented(owner) or not self.publishing_interface(owner):
            return False
        info = self.hierarchy.info(owner)
        m = info.declared_method(name, descriptor) if info is not None else None
        if m is None or m.access & (ACC_STATIC | ACC_PRIVATE) or name.startswith("<"):
            return False
        try:
            return 1 + parse_method_descriptor(descriptor).param_slots + 2 <= 255
        except Exception:
            return False

    # ----------------------------------------------------------- call sites
    def call_site(self, opcode: int, owner: str, name: str, descriptor: str, interface: bool) -> CallSite:
        """What the call ``opcode owner.name descriptor`` in instrumented code must do."""
        key = (opcode, owner, name, descriptor, interface)
        found = self._call_sites.get(key)
        if found is None:
            found = self._decide_call_site(opcode, owner, name, descriptor, interface)
            if self._other_views:
                found = self._valid_in_every_view(found, opcode, owner, name, descriptor, interface)
            self._call_sites[key] = found
        return found

    def _valid_in_every_view(
        self, mine: CallSite, opcode: int, owner: str, name: str, descriptor: str, interface: bool
    ) -> CallSite:
        """``mine``, or an action valid with the copies every other view loads."""
        answers = [mine]
        for other in self._other_views:
            answers.append(other.call_site(opcode, owner, name, descriptor, interface))
        same = all(a.action is mine.action and (a.action is CallAction.PASS or a.owner == mine.owner) for a in answers)
        if same and mine.leaf and not all(a.leaf for a in answers):
            # a slot twin only where every copy has one
            return CallSite(mine.action, mine.owner, mine.name, mine.descriptor, mine.kind, resolved=mine.resolved)
        if same or name == "<init>":
            return mine  # (a constructor is the named class's own: every copy is instrumented alike)
        plain = [a for a in answers if a.action not in NODE_PASSING]
        plain.sort(key=lambda a: _SAFEST_FIRST.index(a.action))
        if len(plain) == len(answers):
            return plain[0]  # no node passed anywhere: the action that holds in the most views
        # some view passes the node, another cannot: a pending call, named by the method that is
        # not instrumented (the boundary node of the JVMs that load that copy)
        if plain:
            a = plain[0]
            return CallSite(CallAction.PENDING, a.owner, a.name, a.descriptor, a.kind, resolved=a.resolved)
        return CallSite(CallAction.PENDING, owner, name, descriptor, self._kind_of(owner), resolved=False)

    def _decide_call_site(self, opcode: int, owner: str, name: str, descriptor: str, interface: bool) -> CallSite:
        h = self.hierarchy
        target: MemberInfo | None
        if owner.startswith("["):
            target = h.resolve_method("java/lang/Object", name, descriptor)  # clone() and friends
        else:
            target = h.resolve_any_method(owner, name, descriptor, interface)
        if target is None:
            return CallSite(CallAction.BOUNDARY, owner, name, descriptor, self._kind_of(owner), resolved=False)
        if target.owner == "java/lang/Object" and target.name == "<init>":
            return CallSite(CallAction.PLAIN, target.owner, target.name, target.descriptor, KIND_JDK)
        if target.name == "<init>" and self.is_instrumented(target.owner):
            return CallSite(CallAction.PUBLISH, target.owner, target.name, target.descriptor, KIND_INSTRUMENTED)
        if opcode in (op.INVOKEVIRTUAL, op.INVOKEINTERFACE) and self.publishing_dispatcher(
            target.owner, target.name, target.descriptor
        ):
            return CallSite(CallAction.PASS_INTERFACE, target.owner, target.name, target.descriptor, KIND_INSTRUMENTED)
        if self.has_esi(target.owner, target.name, target.descriptor):
            if opcode in (op.INVOKEVIRTUAL, op.INVOKEINTERFACE) and not target.access & (ACC_STATIC | ACC_PRIVATE):
                owner_info = h.info(target.owner)
                if owner_info is not None and owner_info.is_interface:
                    return CallSite(
                        CallAction.PASS_INTERFACE, target.owner, target.name, target.descriptor, KIND_INSTRUMENTED
                    )
            leaf = bool(target.access & ACC_JP_LEAF) and self.has_slot_twin(
                target.owner, target.name, target.descriptor
            )
            return CallSite(CallAction.PASS, target.owner, target.name, target.descriptor, KIND_INSTRUMENTED, leaf=leaf)
        kind = self._kind_of(target.owner)
        if opcode in (op.INVOKEVIRTUAL, op.INVOKEINTERFACE) and self._may_dispatch_to_instrumented(owner, target):
            return CallSite(CallAction.PENDING, target.owner, target.name, target.descriptor, kind)
        static = opcode == op.INVOKESTATIC
        if kind == KIND_JDK and is_leaf_call(owner, target.owner, target.name, target.descriptor, static):
            return CallSite(CallAction.LEAF, target.owner, target.name, target.descriptor, kind)
        return CallSite(CallAction.BOUNDARY, target.owner, target.name, target.descriptor, kind)

    def _kind_of(self, owner: str) -> int:
        info = self.hierarchy.info(owner) if not owner.startswith("[") else None
        if owner.startswith("["):
            return KIND_JDK
        if info is not None and info.from_jdk:
            return KIND_JDK
        if info is None and owner.startswith(_JDK_PREFIXES):
            return KIND_JDK
        return KIND_UNINSTRUMENTED

    def _may_dispatch_to_instrumented(self, ref_owner: str, target: MemberInfo) -> bool:
        if target.access & (ACC_STATIC | ACC_PRIVATE | ACC_FINAL) or target.name == "<init>":
            return False
        info = self.hierarchy.info(target.owner)
        if info is not None and info.access & ACC_FINAL and not info.is_interface:
            return False
        for cls in self._overriders_of(target.name, target.descriptor):
            sub = self.hierarchy.is_subtype(cls, ref_owner if not ref_owner.startswith("[") else "java/lang/Object")
            if sub is None or sub:
                return True
        return False

    def _overriders_of(self, name: str, descriptor: str) -> list[str]:
        if self._overriders is None:
            index: dict[tuple[str, str], list[str]] = {}
            for cname in self.world:
                self._index_overrides(cname, index)
            self._overriders = index
        return self._overriders.get((name, descriptor), [])

    def _index_overrides(self, cname: str, index: dict[tuple[str, str], list[str]]) -> None:
        info = self.hierarchy.info(cname)
        if info is None:
            return
        for m in info.methods:
            if m.access & (ACC_STATIC | ACC_PRIVATE | ACC_ABSTRACT) or m.name.startswith("<"):
                continue
            index.setdefault((m.name, m.descriptor), []).append(cname)

    # ----------------------------------------------------------- class initialisation
    def needs_init_publish(self, target_class: str, current: str) -> bool:
        """Can touching ``target_class`` from ``current`` run an instrumented ``<clinit>``?

        Then the caller publishes its node first, so the static initialiser's
        OSI node lands beneath the code that triggered it. A superclass of
        ``current`` is initialised already.
        """
        if target_class == current or not self.is_instrumented(target_class):
            return False
        if not self._has_clinit_chain(target_class):
            return False
        for sup in self.hierarchy.superclasses(current):
            if sup.name == target_class:
                return False
        return True

    def _has_clinit_chain(self, name: str) -> bool:
        found = self._clinit_cache.get(name)
        if found is None:
            found = False
            for cls in self.hierarchy.superclasses(name):
                if cls.from_jdk:
                    break
                if self.is_instrumented(cls.name) and cls.declared_method("<clinit>", "()V") is not None:
                    found = True
                    break
            self._clinit_cache[name] = found
        return found


#: actions that call an ESI method or a dispatcher that may: valid only where the callee has one
NODE_PASSING: Final = frozenset({CallAction.PASS, CallAction.PASS_INTERFACE})
#: actions that pass no node, from the one valid in most situations: a pending call handles an
#: instrumented override and a callback, a boundary call a callback, a leaf call neither
_SAFEST_FIRST = [CallAction.PENDING, CallAction.BOUNDARY, CallAction.LEAF, CallAction.PLAIN, CallAction.PUBLISH]


def _declares_one_abstract_method(info: ClassInfo) -> bool:
    """Does interface ``info`` declare exactly one method, an abstract one (``<clinit>`` aside)?

    Such an interface is found by reflection as "the interface with one method": cglib's
    ``KeyFactory`` (in Spring, Guice and cglib itself) refuses a key interface whose
    ``getDeclaredMethods()`` are not exactly one, and callback frameworks take ``[0]``. A default
    ESI method would be a second declared method (Guice's injector failed to start under the
    agent); the interface publishes instead, as old interfaces do (its implementations' N2B
    wrappers enter beneath the published node). A single default method keeps its ESI method: its
    body is counted only there.
    """
    methods = [m for m in info.methods if m.name != "<clinit>"]
    return len(methods) == 1 and methods[0].is_abstract


def _may_raise_to_52(info: ClassInfo) -> bool:
    """May interface ``info`` (below version 52, instrumented) be given version 52?

    Only when the raise keeps its meaning and its legality (HotSpot's format checks,
    ``classFileParser.cpp``, and JVMS 4.1, 4.5, 4.6): no code at all (no ``<clinit>`` of any
    descriptor: at version 51+ one with arguments is a format error, below it a method of no
    consequence), every method ``public abstract`` and nothing else, no ``ACC_ENUM`` on the
    interface or its fields (below version 49 a bit without meaning, from 49 on illegal on an
    interface). The interface's own flags are made legal by :func:`raise_interface_flags`.
    """
    if info.access & ACC_ENUM or any(f.access & ACC_ENUM for f in info.fields):
        return False
    return all(m.name != "<clinit>" and m.access & _OLD_INTERFACE_FLAGS == _ABSTRACT_PUBLIC for m in info.methods)


def raise_interface_flags(access: int) -> int:
    """An interface's access flags as version 52 needs them, meaning the same as below version 50.

    Below version 50 HotSpot treats every interface as ``ACC_ABSTRACT`` whether the bit is set or
    not (old compilers, and javac for ``package-info``, left it out), and older compilers set
    ``ACC_SUPER``; from version 50 a missing ``ACC_ABSTRACT`` and from 49 an ``ACC_SUPER`` on an
    interface are format errors.
    """
    return (access | ACC_ABSTRACT) & ~ACC_SUPER
