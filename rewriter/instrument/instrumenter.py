"""CCCP's rewriting of one class: which shape each method takes, then the class's own additions.

For every method the plan (:mod:`.plan`) gives an ESI method, the class gets one of the
shapes of ``docs/runtime-contract.md``, each built by its own module:

* ESI twin + N2B wrapper for a method with a body (:mod:`.shape_esi`, :mod:`.shape_n2b`);
* B2N for a native method (:mod:`.shape_b2n`);
* a delegating ESI for an abstract method or one kept as it was (:mod:`.shape_delegating`);
* OSI in place for constructors and ``<clinit>`` (:mod:`.shape_osi`);
* interface dispatchers and the MethodIds in the holder class (:mod:`.shape_holder`).

In sample mode none of these: bodies get yieldpoints in place (:mod:`.yieldpoints`).

The class's strategy (:class:`~.context.ClassStrategy`) is chosen once, before any method.
"""

from __future__ import annotations

from ..classfile import opcodes as op
from ..classfile.instructions import Instruction
from ..classfile.model import (
    ACC_ABSTRACT,
    ACC_MODULE,
    ACC_NATIVE,
    ACC_PRIVATE,
    ACC_PUBLIC,
    ACC_STATIC,
    ACC_SYNTHETIC,
    ClassFile,
    Field,
    Method,
)
from ..editor.body import CodeBody
from .context import AlreadyInstrumented, ClassContext, ClassReport
from .emit import add_method
from .options import InstrumentOptions
from .plan import CctPlan, raise_interface_flags
from .shape_b2n import add_b2n
from .shape_delegating import add_abstract_delegator, add_kept_delegator
from .shape_esi import add_esi_and_n2b
from .shape_holder import build_holder
from .shape_osi import instrument_in_place
from .shape_slot import add_slot_twin, leaf_slot_twin
from .shape_trampoline import add_trampolines
from .support import CLASS_METHOD, CLASS_METHOD_DESC, ESI_FLAGS, HOLDER_SUFFIX, MARKER_FIELD
from .yieldpoints import add_sample_yieldpoints

__all__ = ["instrument_class"]


def instrument_class(
    cf: ClassFile,
    plan: CctPlan,
    options: InstrumentOptions | None = None,
    *,
    contract_only: bool = False,
    keep: frozenset[tuple[str, str]] = frozenset(),
    keep_reason: str = "kept as it was",
) -> ClassReport:
    """Rewrite ``cf`` in place for CCT profiling. Raises :class:`AlreadyInstrumented` for a rewritten class.

    ``contract_only``: keep every body as it is and add only what callers rewritten under the same
    plan rely on (delegating ESI methods, dispatchers, the holder): the fallback for a class whose
    full rewrite failed after other classes were already rewritten against it (load time).
    ``keep``: (name, descriptor) of methods whose bodies stay as they are (reached through a
    delegating ESI; constructors and ``<clinit>`` not instrumented), reported with ``keep_reason``:
    what the verification gate asks for when an instrumented form failed (:mod:`.pipeline`).
    """
    if cf.access & ACC_MODULE:
        return ClassReport()
    if cf.name.endswith(HOLDER_SUFFIX) or any(m.name == CLASS_METHOD for m in cf.methods):
        raise AlreadyInstrumented(f"{cf.name} was already rewritten by jprewrite")
    options = options or InstrumentOptions()
    if options.mode != "sample" and plan.raises_interface_version(cf.name):
        # no code to verify, methods all public abstract (CctPlan.interface_takes_defaults)
        cf.major, cf.minor = 52, 0
        cf.access = raise_interface_flags(cf.access)
    ctx = ClassContext.create(cf, plan, options, contract_only)
    if ctx.options.mode == "sample":
        if not contract_only:
            add_sample_yieldpoints(ctx, keep, keep_reason)
        return ctx.report
    for m in list(cf.methods):
        _method(ctx, m, keep, keep_reason)
    if ctx.trampolines:
        add_trampolines(ctx)
    if not contract_only and ("<clinit>", "()V") not in keep:
        clinit = cf.method("<clinit>", "()V")
        if clinit is not None and clinit.code() is not None:
            instrument_in_place(ctx, clinit)
    mids = ctx.mids
    if mids.entries or mids.dispatchers or mids.init_flags or ctx.holder_dispatchers or ctx.caller_dispatchers:
        name, data = build_holder(ctx)
        ctx.report.extra_classes[name] = data
    if not ctx.strategy.is_interface and cf.major >= 49:
        _add_class_members(ctx)
    return ctx.report


def _method(ctx: ClassContext, m: Method, keep: frozenset[tuple[str, str]], keep_reason: str) -> None:
    """Give method ``m`` its shape."""
    strategy, plan, name = ctx.strategy, ctx.plan, ctx.name
    kept = (m.name, m.descriptor) in keep
    if kept:
        ctx.not_instrumented(m, keep_reason)
    if m.name == "<init>":
        if m.code() is not None and not strategy.contract_only and not kept:
            instrument_in_place(ctx, m)
        return
    if strategy.publishing and plan.publishing_dispatcher(name, m.name, m.descriptor):
        ctx.holder_dispatchers.append(m)  # no ESI declaration: see shape_holder
        return
    if m.name == "<clinit>" or not plan.has_esi(name, m.name, m.descriptor):
        if m.name != "<clinit>" and (m.code() is not None or m.access & ACC_NATIVE):
            ctx.not_instrumented(m, "no ESI method possible (parameter slots or interface rules)")
        return
    slot = plan.has_slot_twin(name, m.name, m.descriptor)
    if m.access & ACC_ABSTRACT:
        add_abstract_delegator(ctx, m)
    elif (strategy.contract_only or kept) and (m.access & ACC_NATIVE or m.code() is not None):
        add_kept_delegator(ctx, m)
        if slot:
            add_slot_twin(ctx, m, None)
    elif m.access & ACC_NATIVE:
        add_b2n(ctx, m)
    elif m.code() is not None:
        leaf = leaf_slot_twin(ctx, m) if slot else None  # (from the original code, before the N2B wrapper)
        add_esi_and_n2b(ctx, m)
        if slot:
            add_slot_twin(ctx, m, leaf)
    if strategy.is_interface and not m.access & (ACC_STATIC | ACC_PRIVATE):
        ctx.holder_dispatchers.append(m)  # see shape_holder


def _add_class_members(ctx: ClassContext) -> None:
    """``$jprewrite$class()``: the class literal, or null when no ESI may trust the fast override
    check (a class with an uninstrumented application superclass, whose methods may override
    ours); and the marker field the runtime recognises an instrumented class by: a field, which
    subclasses that generators make at run time (cglib's Enhancer overrides every visible
    method, ``$jprewrite$class`` included) do not copy."""
    pool, cf = ctx.pool, ctx.cf
    if _uninstrumented_superclass(ctx):
        value = Instruction(-1, op.ACONST_NULL)
    else:
        value = Instruction(-1, op.LDC_W, pool.add_class(cf.name))
    body = CodeBody(items=[value, Instruction(-1, op.ARETURN)], max_locals=1)
    add_method(ctx, ACC_PUBLIC | ESI_FLAGS, CLASS_METHOD, CLASS_METHOD_DESC, body)
    ctx.report.emitted[(CLASS_METHOD, CLASS_METHOD_DESC)] = None
    cf.fields.append(
        Field(ACC_PRIVATE | ACC_STATIC | ACC_SYNTHETIC, pool.add_utf8(MARKER_FIELD), pool.add_utf8("Z"), [], cf)
    )


def _uninstrumented_superclass(ctx: ClassContext) -> bool:
    """Does an application superclass stay uninstrumented (its methods may override ours)?"""
    chain = list(ctx.hierarchy.superclasses(ctx.name))[1:]
    if not chain or chain[-1].name != "java/lang/Object":
        return True  # a superclass is missing: assume the worst
    return any(not info.from_jdk and not ctx.plan.is_instrumented(info.name) for info in chain)
