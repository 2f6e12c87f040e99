"""OSI: constructors and ``<clinit>`` instrumented in place (no wrapper frame is possible).

* **Constructors**: no ESI twin: a second public constructor would change what reflection sees
  (containers that inject through "the" public constructor, as Kotlin's and Spring's do).
  Callers publish their node and call site (``PUBLISH`` sites); the prologue enters beneath
  them (``ThreadRoot.ctorEnter``), and the slot is left as found on the normal path (no handler
  may cover ``super(...)``).
* **``<clinit>``**: the JVM runs a static initialiser from wherever the class is first used
  (often just before ``main``): the slot must not keep a node of the initialiser's own calls,
  so a catch-all handler restores it on exceptions too.

A body too large for 64 KB once instrumented has regions outlined (:mod:`.outline`), the
prologue kept in the method itself.
"""

from __future__ import annotations

from typing import Final

from ..classfile import opcodes as op
from ..classfile.frames import Frame, Object, Top
from ..classfile.instructions import Fragment, Instruction
from ..classfile.model import Method
from ..editor import CodeTooLargeError, Handler, Label, disassemble, peak_depth
from ..editor.body import CodeBody
from . import codegen as G
from .body_pass import instrument_body
from .context import ClassContext
from .emit import THROWABLE, assemble, stack_bound
from .outline import outline_regions
from .parts import (
    JIT_SPLIT_BUDGETS,
    SPLIT_BUDGETS,
    code_length,
    jit_refuses,
    report_interpreted,
    split_attempts,
    write_parts,
)
from .support import KIND_INSTRUMENTED, NODE

__all__ = ["instrument_in_place"]

_TOO_LARGE: Final = "too large once instrumented (64 KB) and no region could be split off; kept as it was"


def instrument_in_place(ctx: ClassContext, m: Method) -> None:
    """Write OSI method ``m``; split it when it would pass 64 KB, or (a constructor) when the JIT
    would no longer compile it (see :mod:`.parts`)."""
    original = list(m.attributes)
    length = code_length(m)
    for budget, switches in ((None, False), *split_attempts(SPLIT_BUDGETS)):
        try:
            parts = _osi_write(ctx, m, budget, switches)
        except CodeTooLargeError:
            continue  # (m is as it was: a write that does not fit changes nothing)
        if parts is None:
            if budget is None:
                break
            continue
        if budget is None and m.name != "<clinit>" and jit_refuses(length, [m]):
            parts = _jit_split(ctx, m, original, length)
        ctx.cf.methods.extend(parts)
        ctx.emitted((m, *parts), (m.name, m.descriptor))
        ctx.report.osi += 1
        ctx.report.split += bool(parts)
        return
    ctx.not_instrumented(m, _TOO_LARGE)


def _jit_split(ctx: ClassContext, m: Method, original: list, length: int) -> list[Method]:
    """``m`` (written whole, past the JIT's limit) written again with regions outlined, if some
    split puts it and every part within the limit; else written whole again. Returns the parts.
    (A static initialiser runs once: being interpreted costs it nothing, and it is never split for this.)"""
    for budget, switches in split_attempts(JIT_SPLIT_BUDGETS):
        m.attributes = list(original)
        try:
            parts = _osi_write(ctx, m, budget, switches)
        except CodeTooLargeError:
            continue
        if parts is None:
            continue
        if not jit_refuses(length, [m, *parts]):
            return parts
    m.attributes = list(original)
    _osi_write(ctx, m, None)  # as the first time: the split attempts changed what it set (leaf slots)
    report_interpreted(ctx, m, code_length(m))
    return []


def _osi_body(ctx: ClassContext, m: Method) -> tuple[CodeBody, int, int, int]:
    """An OSI method's body with two new locals (its node, the saved slot) and its MID."""
    body = disassemble(m)
    node = body.new_local()
    saved_slot = body.new_local()
    if ctx.strategy.frames:
        G.define_local_in_frames(body, node, Object(NODE))
        G.define_local_in_frames(body, saved_slot, Object(NODE))
    sites = G.count_call_sites(body.items)
    return body, node, saved_slot, ctx.mids.ref(ctx.name, m.name, m.descriptor, KIND_INSTRUMENTED, sites)


def _osi_prologue(
    ctx: ClassContext, m: Method, node: int, saved_slot: int, self_mid: int, *, sampled: bool = False
) -> list:
    """Enter the OSI method's node (beneath what the caller published) and save the slot;
    ``sampled``: a constructor's entry takes hybrid mode's entry yieldpoint (``ctorEnterSampled``)."""
    if m.name == "<clinit>":
        enter = ctx.rt.clinit_enter(self_mid)
    else:
        enter = ctx.rt.ctor_enter(self_mid, sampled=sampled)
    return [*enter, Instruction(-1, op.ASTORE, node), *ctx.rt.save_slot(node, saved_slot)]


def _osi_write(ctx: ClassContext, m: Method, budget: int | None, switches: bool = False) -> list[Method] | None:
    """Instrument OSI method ``m`` in place; with ``budget``, regions outlined first (``switches``: runs
    of big switches' cases too, :mod:`.outline_switches`).

    Returns the outlined parts ([] without ``budget``), None when nothing can be split off;
    raises CodeTooLargeError when the result does not fit.
    """
    clinit = m.name == "<clinit>"
    body, node, saved_slot, self_mid = _osi_body(ctx, m)
    original = body.max_stack
    # a constructor written in one piece takes its entry yieldpoint in ctorEnterSampled (hybrid mode)
    # (exact mode builds the prologue first, as ever: the order the pool grows in is part of the output)
    prologue_entry = budget is None and not clinit and ctx.options.mode == "hybrid"
    prologue = [] if prologue_entry else _osi_prologue(ctx, m, node, saved_slot, self_mid)
    parts: list[Method] = []
    added: set[int] = set()
    part_calls: dict[int, int] = {}
    if budget is not None:
        if ctx.strategy.is_interface and ctx.cf.major < 52:
            return None  # no private static methods in such an interface
        body.insert(0, prologue)
        added = {id(x) for x in prologue}
        prefix = ("clinit" if clinit else "init") + "$jp$"
        outlined = outline_regions(
            body,
            ctx.pool,
            ctx.name,
            m.name,
            m.descriptor,
            clinit,
            ctx.hierarchy,
            budget=budget,
            name_prefix=prefix,
            interface=ctx.strategy.is_interface,
            fixed=added,
            first_index=ctx.taken(prefix),
            final_fields=ctx.final_fields(),
            switches=switches,
        )
        if not outlined:
            return None
        parts = write_parts(ctx, outlined, node)
        added |= set().union(*(p.synthetic for p in outlined))
        part_calls = {id(p.call): p.sites for p in outlined}
    result = instrument_body(
        ctx,
        m,
        body,
        node,
        added=added,
        part_calls=part_calls,
        entry="prologue" if prologue_entry else True,
        leaf_slots=not part_calls and ctx.mids.leaf_slots_open(),
    )
    if result.leaves:
        ctx.mids.set_leaves(self_mid, result.leaves)
    else:
        ctx.mids.drop_leaves(self_mid)  # (an earlier, whole write of this method may have had some)
    if prologue_entry:
        prologue = _osi_prologue(ctx, m, node, saved_slot, self_mid, sampled=result.entry_yieldpoint)
    restore = ctx.rt.restore_slot(node, saved_slot)
    items = _restoring_before_returns(body.items, restore, result.dead_returns)
    head: list = []
    if budget is not None:  # the prologue is in place already: the handler starts after it
        last = next(i for i, x in enumerate(items) if x is prologue[-1])
        head, items = items[: last + 1], items[last + 1 :]
    if clinit:
        start, end, handler = Label("osi_start"), Label("osi_end"), Label("osi_handler")
        items = [start, *items, end, handler, *restore, Instruction(-1, op.ATHROW)]
        body.handlers.append(Handler(start, end, handler, 0))  # last: original handlers come first
        result.needs.known[handler] = Frame(-1, [Top] * node + [Object(NODE), Object(NODE)], [THROWABLE])
    body.items = head + items
    bound = -1
    if budget is None:
        body.insert(0, prologue)
        # the restores go before returns and (in <clinit>) in the handler, on its exception
        restoring = peak_depth(restore, ctx.pool)
        on_exception = 1 + restoring if clinit else 0
        own = max(result.own, peak_depth(prologue, ctx.pool), on_exception)
        bound = stack_bound(original, max(result.rise, restoring), own)
    assemble(ctx, m, body, result.needs, bound)
    return parts


def _restoring_before_returns(items: list, restore: list, dead: set[int]) -> list:
    """``items`` with ``restore`` (a fragment: each place gets its own copy) before every live ``return``."""
    out: list = []
    for x in items:
        if not isinstance(x, Label) and x.opcode == op.RETURN and id(x) not in dead:
            f = restore[0]
            out.append(Fragment(f.code, f.peak, f.max_locals))
        out.append(x)
    return out
