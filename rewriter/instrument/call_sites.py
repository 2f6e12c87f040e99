"""The code around one call site of an instrumented body, by its :class:`~.plan.CallAction`.

Call sites are numbered in code order (dead ones included); the number indexes the caller
node's child cache. What each action emits is the contract's "Call sites" list
(``docs/runtime-contract.md``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..classfile import opcodes as op
from ..classfile.descriptors import parse_method_descriptor, type_size
from ..classfile.instructions import Instruction, InvokeInterface
from . import codegen as G
from .context import ClassContext
from .plan import CallAction
from .support import KIND_JDK, UNKNOWN_SITE, dispatcher_descriptor, esi_descriptor, esi_name

__all__ = ["SiteCode", "call_site_code", "pending_temps"]


@dataclass
class SiteCode:
    """What replaces one invoke: code before, the call, code after, and for a pending call the
    code its catch-all handler runs before rethrowing (None otherwise)."""

    pre: list
    call: Instruction
    post: list = field(default_factory=list)
    pending: list | None = None

    # (written out, not generated: compiled by mypyc, a dataclass's generated __init__ runs interpreted)
    def __init__(self, pre: list, call: Instruction, post: list | None = None, pending: list | None = None) -> None:
        self.pre = pre
        self.call = call
        self.post = [] if post is None else post
        self.pending = pending


def call_site_code(ctx: ClassContext, insn: Instruction, node: int, site: int, temps: int) -> SiteCode:
    """The code for invoke ``insn``, call site number ``site``, the node in local ``node``.

    ``temps``: the first local a pending call may use to hold its receiver and arguments.
    """
    pool, plan, rt = ctx.pool, ctx.plan, ctx.rt
    if insn.opcode == op.INVOKEDYNAMIC:
        const: Any = pool[insn.operand]  # (an InvokeDynamic)
        name, desc = pool.name_and_type(const.name_and_type_index)
        mid = ctx.mids.ref("invokedynamic", name, desc, KIND_JDK)
        ctx.report.call_sites[CallAction.BOUNDARY.value] += 1
        return SiteCode(rt.boundary(node, site, mid), insn)
    owner, name, desc = pool.member_ref(insn.operand)
    interface = pool.tag(insn.operand) == 11
    decision = plan.call_site(insn.opcode, owner, name, desc, interface)
    pre: list = []
    if insn.opcode == op.INVOKESTATIC and decision.resolved and plan.needs_init_publish(decision.owner, ctx.name):
        pre += rt.publish(node)
    action = decision.action
    ctx.report.call_sites[action.value] += 1
    if action is CallAction.PLAIN:
        return SiteCode(pre, insn)
    if action is CallAction.PUBLISH:
        return SiteCode(pre + rt.publish_call(node, site), insn)
    if action is CallAction.PASS_INTERFACE:
        return _pass_interface(ctx, pre, node, site, owner if interface else decision.owner, decision.owner, name, desc)
    if action is CallAction.PASS:
        return _pass(ctx, insn, pre, node, site, owner, name, desc, decision.owner, interface)
    mid = ctx.mids.ref(decision.owner, decision.name, decision.descriptor, decision.kind)
    if action is CallAction.BOUNDARY:
        return SiteCode(pre + rt.boundary(node, site, mid), insn)
    assert action is CallAction.PENDING
    end_pending = rt.end_pending(node, site, mid)
    return SiteCode(pre + _spill_for_pending(ctx, node, site, mid, desc, temps), insn, end_pending, end_pending)


def _pass_interface(
    ctx: ClassContext, pre: list, node: int, site: int, iface: str, declaring: str, name: str, desc: str
) -> SiteCode:
    """Through the dispatcher in the caller's own holder; ``iface`` is the interface the call
    site names (accessible to this class), else the declaring one."""
    ctx.caller_dispatchers.setdefault(
        (iface, name, desc), (declaring, ctx.plan.publishing_dispatcher(declaring, name, desc))
    )
    ref = ctx.pool.add_methodref(ctx.mids.holder, name, dispatcher_descriptor(iface, desc), interface=False)
    return SiteCode(
        pre + [Instruction(-1, op.ALOAD, node), G.push_int(ctx.pool, site)], Instruction(-1, op.INVOKESTATIC, ref)
    )


def _pass(
    ctx: ClassContext,
    insn: Instruction,
    pre: list,
    node: int,
    site: int,
    owner: str,
    name: str,
    desc: str,
    resolved_owner: str,
    interface: bool,
) -> SiteCode:
    """Call the ESI with the node and the site."""
    pool = ctx.pool
    site_push = G.push_int(pool, site)
    if insn.opcode == op.INVOKESPECIAL and name != "<init>" and resolved_owner != ctx.name:
        site_push = G.push_int(pool, UNKNOWN_SITE)  # a super call selected its method: no override check
    ref = pool.add_methodref(owner, esi_name(name), esi_descriptor(desc), interface=interface)
    call: Instruction
    if isinstance(insn, InvokeInterface):
        call = InvokeInterface(-1, ref, insn.count + 2)
    else:
        call = Instruction(-1, insn.opcode, ref)
    return SiteCode(pre + [Instruction(-1, op.ALOAD, node), site_push], call)


def _spill_for_pending(ctx: ClassContext, node: int, site: int, mid: int, desc: str, base: int) -> list:
    """Store the arguments in temporaries, hand the receiver to ``ThreadRoot.pending``, reload."""
    params = parse_method_descriptor(desc).params
    slots = []
    slot = base + 1
    for p in params:
        slots.append(slot)
        slot += type_size(p)
    out = [Instruction(-1, G.store_opcode(p), s) for p, s in reversed(list(zip(params, slots)))]
    out += [Instruction(-1, op.DUP), Instruction(-1, op.ASTORE, base), *ctx.rt.pending(node, site, mid, base)]
    out += [Instruction(-1, G.load_opcode(p), s) for p, s in zip(params, slots)]
    return out


def pending_temps(insn: Instruction, pool) -> int:
    """Local slots a pending call site needs: the receiver and every argument."""
    _, _, desc = pool.member_ref(insn.operand)
    return 1 + parse_method_descriptor(desc).param_slots
