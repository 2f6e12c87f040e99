"""What every builder of one class shares: the class, its plan, its strategy, its tables, its report.

The builders (``shape_*`` modules) are functions of a :class:`ClassContext`; they hand each
other nothing through attributes. The context holds only what is the class's own for the whole
rewriting: the constant pool, the MethodId table, the interface dispatchers its call sites
need, and the report. The :class:`ClassStrategy` is chosen once per class (JaCoCo chooses its
probe-array strategy the same way) and says which shapes the class may take.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from enum import Enum
from typing import Final, cast

from ..analysis.hierarchy import ClassHierarchy
from ..analysis.leaves import declared_statics
from ..classfile.constants import ConstantPool
from ..classfile.model import ACC_FINAL, ClassFile, Method
from .method_ids import MidTable, mid_fields_fit
from .options import InstrumentOptions
from .plan import CallSite, CctPlan
from .pool_cache import CachingPool
from .runtime_api import RuntimeCalls

__all__ = ["AlreadyInstrumented", "ClassReport", "ClassKind", "ClassStrategy", "ClassContext"]

# True when this module runs compiled by mypyc (see ClassContext.create)
_COMPILED: Final = __file__.endswith((".so", ".pyd"))


class AlreadyInstrumented(Exception):
    """The class was rewritten by jprewrite before (it has the MID table)."""


@dataclass
class ClassReport:
    """What happened to one class (summed over a run by the jar layer)."""

    esi: int = 0  #: ESI twins of methods with a body
    n2b: int = 0  #: N2B wrappers (one per ESI twin)
    b2n: int = 0  #: B2N methods of native methods
    osi: int = 0  #: constructors and static initialisers instrumented in place
    delegators: int = 0  #: delegating ESIs (abstract methods, methods kept as they were)
    split: int = 0  #: methods split into outlined parts to fit in 64 KB
    blocks: int = 0  #: basic blocks that got a counter
    sampled: int = 0  #: methods given yieldpoints in place (sample mode)
    yieldpoints: int = 0  #: yieldpoints written (hybrid and sample modes)
    leaf_twins: int = 0  #: slot twins that count into their callers' slots (application leaves)
    call_sites: Counter = field(default_factory=Counter)
    not_instrumented: list[str] = field(default_factory=list)  #: "Class.m(desc): why"
    #: "Class.m(desc): why" of methods instrumented past the JIT's limit: they run interpreted
    past_jit_limit: list[str] = field(default_factory=list)
    extra_classes: dict[str, bytes] = field(default_factory=dict)  #: new classes to write beside it
    #: (name, descriptor) of each method the rewriting wrote -> the original method it came from
    #: (None: the class's own additions, e.g. ``$jprewrite$class``); what the verification gate checks
    emitted: dict[tuple[str, str], tuple[str, str] | None] = field(default_factory=dict)

    def add(self, other: ClassReport) -> None:
        for name in (
            "esi",
            "n2b",
            "b2n",
            "osi",
            "delegators",
            "split",
            "blocks",
            "sampled",
            "yieldpoints",
            "leaf_twins",
        ):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.call_sites.update(other.call_sites)
        self.not_instrumented += other.not_instrumented
        self.past_jit_limit += other.past_jit_limit


class ClassKind(Enum):
    CLASS = "class"
    INTERFACE = "interface"
    #: an interface that may not take default methods (version < 52, or JVMS 5.5 initialisation
    #: order): no ESI methods at all; its dispatchers publish the caller's node instead
    PUBLISHING_INTERFACE = "publishing interface"


@dataclass(frozen=True)
class ClassStrategy:
    """How a class is rewritten, chosen once before any method is."""

    kind: ClassKind
    contract_only: bool  #: bodies kept; only what other rewritten classes rely on is added
    frames: bool  #: version 50+: StackMapTable frames for every added label
    check_overrides: bool  #: ESIs start with the override check (non-final class, version 49+)

    @property
    def is_interface(self) -> bool:
        return self.kind is not ClassKind.CLASS

    @property
    def publishing(self) -> bool:
        return self.kind is ClassKind.PUBLISHING_INTERFACE


def choose_strategy(cf: ClassFile, plan: CctPlan, contract_only: bool) -> ClassStrategy:
    if not cf.is_interface():
        kind = ClassKind.CLASS
    elif plan.publishing_interface(cf.name):
        kind = ClassKind.PUBLISHING_INTERFACE
    else:
        kind = ClassKind.INTERFACE
    # interface ESIs are only called through the static dispatchers: no override check there
    check = kind is ClassKind.CLASS and cf.major >= 49 and not cf.access & ACC_FINAL
    return ClassStrategy(kind, contract_only, cf.major >= 50, check)


@dataclass
class ClassContext:
    """One class being rewritten, and the tables its builders fill."""

    cf: ClassFile
    plan: CctPlan
    options: InstrumentOptions
    strategy: ClassStrategy
    #: the class's pool; interpreted, wrapped in a :class:`CachingPool` (which answers like one)
    pool: ConstantPool
    mids: MidTable
    rt: RuntimeCalls
    report: ClassReport = field(default_factory=ClassReport)
    #: interface methods of this very interface that get a dispatcher in its own holder
    holder_dispatchers: list[Method] = field(default_factory=list)
    #: dispatchers this class's call sites use, in its own holder: (interface named at the call
    #: site, name, descriptor) -> (declaring interface, publishing)
    caller_dispatchers: dict[tuple[str, str, str], tuple[str, bool]] = field(default_factory=dict)
    #: call sites' references decided so far: (pool index << 8) | opcode -> (owner, name,
    #: descriptor, interface, decision); a class calls the same few methods from many sites
    site_decisions: dict[int, tuple[str, str, str, bool, CallSite]] = field(default_factory=dict)
    #: the same key -> the pool index of the ESI reference a passing call site calls instead
    esi_refs: dict[int, int] = field(default_factory=dict)
    #: logging trampolines to add (:mod:`.shape_trampoline`): (name, the call's opcode, the pool
    #: index of the method it calls) -> (descriptor with one marker, its markers, the called descriptor)
    trampolines: dict[tuple[str, int, int], tuple[str, int, str]] = field(default_factory=dict)
    #: the class's internal name (asked for at every call site and block: kept)
    name: str = field(init=False)
    #: :meth:`static_fields`, made on first ask
    _statics: frozenset[tuple[str, str]] | None = field(init=False)

    def __post_init__(self) -> None:
        self.name = self.cf.name
        self._statics = None  # (set here: a compiled dataclass leaves an init=False default unset)

    def static_fields(self) -> frozenset[tuple[str, str]]:
        """(name, descriptor) of every static field the class declares: what a leaf's code may
        touch (:func:`~jprewrite.analysis.leaves.is_leaf_code`), asked for each statically bound
        method, made once per class."""
        s = self._statics
        if s is None:
            s = declared_statics(self.cf.fields)
            self._statics = s
        return s

    def final_fields(self) -> frozenset[tuple[str, str]]:
        """(name, descriptor) of every final field the class declares: code that writes one may not
        be outlined out of ``<init>`` or ``<clinit>`` (the JVM refuses the write from any other method)."""
        return frozenset((f.name, f.descriptor) for f in self.cf.fields if f.access & ACC_FINAL)

    @classmethod
    def create(cls, cf: ClassFile, plan: CctPlan, options: InstrumentOptions, contract_only: bool) -> ClassContext:
        # compiled by mypyc, calls on the pool itself are direct calls already; the wrapper would
        # turn them back into Python calls
        pool = cf.pool if _COMPILED else cast(ConstantPool, CachingPool(cf.pool))
        mids = MidTable(cf, pool, fields=not contract_only and mid_fields_fit(cf))
        return cls(cf, plan, options, choose_strategy(cf, plan, contract_only), pool, mids, RuntimeCalls(pool, mids))

    @property
    def hierarchy(self) -> ClassHierarchy:
        return self.plan.hierarchy

    def where(self, m: Method) -> str:
        """``com.acme.Foo.m(desc)``: how reports name a method."""
        return f"{self.cf.name.replace('/', '.')}.{m.name}{m.descriptor}"

    def not_instrumented(self, m: Method, why: str) -> None:
        self.report.not_instrumented.append(f"{self.where(m)}: {why}")

    def emitted(self, methods, origin: tuple[str, str] | None) -> None:
        """Record methods the rewriting wrote, and the original they came from (for the gate)."""
        for m in methods:
            self.report.emitted[(m.name, m.descriptor)] = origin

    def taken(self, prefix: str) -> int:
        """How many methods of the class are named ``prefix<N>`` already (overloads are split apart)."""
        return sum(1 for x in self.cf.methods if x.name.startswith(prefix) and x.name[len(prefix) :].isdigit())
