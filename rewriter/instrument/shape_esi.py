"""ESI twin + N2B wrapper: the shape of every instrumented method with a body.

* **ESI** twin ``m$jp(args…, Node caller, int site)``: the original body, instrumented; its
  first act (after the override check where one is needed) is ``caller = caller.enter(site,
  mid)``.
* **N2B** wrapper in place of the original body (original signature, so reflection, the JDK,
  native code and uninstrumented classes still find it): takes the parent from the thread's
  slot, calls the ESI twin, restores the slot (:mod:`.shape_n2b`).

A twin too large for 64 KB once instrumented has regions outlined into private static parts
(:mod:`.outline`), smaller regions tried in turn; if nothing fits, the method is kept as it was
behind a delegating ESI (:mod:`.shape_delegating`).
"""

from __future__ import annotations

from typing import Final

from ..classfile import opcodes as op
from ..classfile.descriptors import parse_method_descriptor
from ..classfile.frames import Integer, Object
from ..classfile.instructions import Fragment
from ..classfile.model import ACC_FINAL, ACC_PRIVATE, ACC_STATIC, ACC_VARARGS, Method
from ..editor import CodeTooLargeError, disassemble, peak_depth
from ..editor.body import CodeBody
from ..editor.params import insert_locals
from . import codegen as G
from .body_pass import instrument_body
from .context import ClassContext
from .emit import FrameNeeds, assemble, stack_bound
from .outline import outline_regions
from .override_check import override_check
from .parts import (
    JIT_SPLIT_BUDGETS,
    SPLIT_BUDGETS,
    code_length,
    jit_refuses,
    report_interpreted,
    split_attempts,
    write_parts,
)
from .runtime_api import NODE_ENTER, NODE_ENTER_SAMPLED
from .shape_delegating import add_kept_delegator
from .shape_n2b import make_n2b
from .support import ESI_FLAGS, KIND_INSTRUMENTED, NODE, esi_descriptor, esi_name

__all__ = ["add_esi_and_n2b"]

_TOO_LARGE: Final = (
    "too large once instrumented (64 KB) and no region could be split off; kept as it was, "
    "reached through a delegating ESI (not counted)"
)


def add_esi_and_n2b(ctx: ClassContext, m: Method) -> None:
    """Give ``m`` (a method with a body) its ESI twin and turn ``m`` into the N2B wrapper."""
    md = parse_method_descriptor(m.descriptor)
    node_slot = (0 if m.access & ACC_STATIC else 1) + md.param_slots
    twin, body = _esi_twin(ctx, m, node_slot)
    sites = G.count_call_sites(body.items)
    self_mid = ctx.mids.ref(ctx.name, m.name, m.descriptor, KIND_INSTRUMENTED, sites)
    parts: list[Method] = []
    try:
        _write_twin(ctx, m, twin, body, node_slot, self_mid)
        if jit_refuses(code_length(m), [twin]):
            # the JIT compiles the original but would not compile the twin: split it so that it
            # does; when nothing fits, the whole twin stays (correct, only interpreted)
            split = _split_esi(ctx, m, node_slot, self_mid, JIT_SPLIT_BUDGETS, jit=True)
            if split is not None:
                twin, parts = split
                ctx.report.split += 1
            else:  # written whole again: the attempts changed what the first write set (leaf slots)
                twin, body = _esi_twin(ctx, m, node_slot)
                _write_twin(ctx, m, twin, body, node_slot, self_mid)
                report_interpreted(ctx, m, code_length(twin))
    except CodeTooLargeError:
        split = _split_esi(ctx, m, node_slot, self_mid)
        if split is None:
            ctx.not_instrumented(m, _TOO_LARGE)
            add_kept_delegator(ctx, m)
            return
        twin, parts = split
        ctx.report.split += 1
    ctx.cf.methods.append(twin)
    ctx.cf.methods.extend(parts)
    ctx.emitted((twin, *parts, m), (m.name, m.descriptor))
    ctx.report.esi += 1
    make_n2b(ctx, m, self_mid)
    ctx.report.n2b += 1


def _write_twin(
    ctx: ClassContext,
    m: Method,
    twin: Method,
    body: CodeBody,
    node_slot: int,
    self_mid: int,
    *,
    added: set[int] | frozenset = frozenset(),
    part_calls: dict[int, int] | None = None,
) -> None:
    """Instrument the twin's body, put the prologue in front, assemble (may raise CodeTooLargeError).

    ``max_stack`` is the original's with the inserted code's rise (:func:`~.emit.stack_bound`)
    where nothing was outlined (outlined parts' calls and stores are not the original code)."""
    original = body.max_stack
    whole = not part_calls and ctx.mids.leaf_slots_open()
    result = instrument_body(
        ctx, twin, body, node_slot, added=added, part_calls=part_calls, entry="prologue", twin=True, leaf_slots=whole
    )
    if result.leaves:
        ctx.mids.set_leaves(self_mid, result.leaves)
    else:
        ctx.mids.drop_leaves(self_mid)  # (an earlier, whole write of this twin may have had some)
    prologue, needs = _esi_prologue(ctx, m, node_slot, self_mid, sampled=result.entry_yieldpoint)
    body.insert(0, prologue)
    result.needs.update(needs)
    bound = -1 if added else stack_bound(original, result.rise, max(result.own, peak_depth(prologue, ctx.pool)))
    assemble(ctx, twin, body, result.needs, bound)


def _esi_twin(ctx: ClassContext, m: Method, node_slot: int) -> tuple[Method, CodeBody]:
    """A fresh ESI twin of ``m`` (not yet in the class) and its body with the node and site parameters."""
    pool = ctx.pool
    code = m.code()
    assert code is not None
    twin = Method(m.access & ~ACC_VARARGS | ESI_FLAGS, m.name_index, m.descriptor_index, [], ctx.cf)
    twin.attributes = [G.copied_code(code)]
    twin.attributes += [a for a in m.attributes if pool.utf8(a.name_index) == "Exceptions"]
    body = disassemble(twin)
    insert_locals(body, node_slot, [(Object(NODE), 1), (Integer, 1)], pool)
    twin.name_index = pool.add_utf8(esi_name(m.name))
    twin.descriptor_index = pool.add_utf8(esi_descriptor(m.descriptor))
    return twin, body


def _esi_prologue(
    ctx: ClassContext, m: Method, node_slot: int, self_mid: int, *, sampled: bool = False
) -> tuple[list, FrameNeeds]:
    """The override check where one is needed, then ``caller = caller.enter(site, mid)``
    (``enterSampled`` when ``sampled``: hybrid mode's entry yieldpoint)."""
    prologue: list = []
    needs = FrameNeeds()
    if ctx.strategy.check_overrides and not m.access & (ACC_STATIC | ACC_PRIVATE | ACC_FINAL) and m.name != "<init>":
        prologue, needs = override_check(ctx, m.name, m.descriptor, node_slot, self_mid)
    # caller = caller.enter(site, mid): neutral (the node's slot keeps its type), and in every
    # twin, so written as bytes and placed as one fragment
    c = G.StraightCode()
    c.local(op.ALOAD, node_slot)
    c.local(op.ILOAD, node_slot + 1)
    ctx.mids.write(self_mid, c)
    c.with_index(op.INVOKEVIRTUAL, ctx.rt.method_ref(NODE_ENTER_SAMPLED if sampled else NODE_ENTER), 3, 1)
    c.local(op.ASTORE, node_slot)
    return [*prologue, Fragment(c.bytes(), c.max_stack, node_slot + 2)], needs


def _split_esi(
    ctx: ClassContext,
    m: Method,
    node_slot: int,
    self_mid: int,
    budgets: tuple[int, ...] = SPLIT_BUDGETS,
    *,
    jit: bool = False,
) -> tuple[Method, list[Method]] | None:
    """The ESI twin of a method too large once instrumented, with regions outlined (see :mod:`.outline`).

    Tries smaller regions until the method and every part fit (in 64 KB; with ``jit``, also within
    the JIT's limit, :data:`~.parts.JIT_HUGE_METHOD_LIMIT`); None when nothing can be split off or
    nothing fits.
    """
    is_static = bool(m.access & ACC_STATIC)
    for budget, switches in split_attempts(budgets):
        twin, body = _esi_twin(ctx, m, node_slot)
        prefix = esi_name(m.name) + "$"
        parts = outline_regions(
            body,
            ctx.pool,
            ctx.name,
            esi_name(m.name),
            esi_descriptor(m.descriptor),
            is_static,
            ctx.hierarchy,
            budget=budget,
            name_prefix=prefix,
            interface=ctx.strategy.is_interface,
            first_index=ctx.taken(prefix),
            final_fields=ctx.final_fields(),
            switches=switches,
        )
        if not parts:
            continue
        try:
            methods = write_parts(ctx, parts, node_slot)
            _write_twin(
                ctx,
                m,
                twin,
                body,
                node_slot,
                self_mid,
                added=set().union(*(p.synthetic for p in parts)),
                part_calls={id(p.call): p.sites for p in parts},
            )
        except CodeTooLargeError:
            continue
        if jit and jit_refuses(code_length(m), [twin, *methods]):
            continue
        return twin, methods
    return None
