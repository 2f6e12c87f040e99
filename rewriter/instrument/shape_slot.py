"""Slot twins: ``m$jp(args…, LeafNode caller, int slot)`` beside the ESI of every statically bound method.

A call of an application *leaf* (:mod:`jprewrite.analysis.leaves`: a short body that can neither
call nor start other code) needs no context of its own: its calls and bytecodes can be counted
in two slots of the caller's node, ``caller.leafCalls[slot]`` and ``[slot + 1]``, which readers
show as the callee's child context (``LeafNode``). So the call leaves no ``Node.enter`` in the
caller's compiled code, and no context to find, create, collect and write.

* A **leaf's** slot twin is the original body with its block counters adding to
  ``leafCalls[slot + 1]`` and ``leafCalls[slot]++`` first (``slot`` then indexes the bytecodes).
* **Any other** statically bound method's slot twin delegates to its ESI method with an unknown
  site (``m$jp(args…, caller, -1)``): the callee's context is entered as from any call.

Callers choose the slot twin from the callee's class summary (:attr:`~.plan.CallSite.leaf`); the
callee writes one whether or not it is a leaf (:meth:`~.plan.CctPlan.has_slot_twin`), so caller and
callee never need to agree on the code, only on the signature, as for ESI methods.
"""

from __future__ import annotations

from ..analysis.leaves import is_leaf_code
from ..classfile import opcodes as op
from ..classfile.descriptors import parse_method_descriptor
from ..classfile.frames import Integer, Object
from ..classfile.model import ACC_ABSTRACT, ACC_NATIVE, ACC_STATIC, ACC_VARARGS, Method
from ..editor import disassemble, peak_depth
from ..editor.params import insert_locals
from . import codegen as G
from .body_pass import instrument_body
from .context import ClassContext
from .emit import assemble, stack_bound
from .options import leaf_bodies
from .support import ESI_FLAGS, LEAF_NODE, UNKNOWN_SITE, esi_descriptor, esi_name, slot_descriptor

__all__ = ["add_slot_twin", "leaf_slot_twin"]


def leaf_slot_twin(ctx: ClassContext, m: Method) -> Method | None:
    """The slot twin of ``m`` counting into its caller's slots, built from ``m``'s original code
    (before the N2B wrapper replaces it), or None when ``m`` is not a leaf under these options."""
    code = m.code()
    if code is None or ctx.strategy.contract_only or not leaf_bodies(ctx.options):
        return None
    if not is_leaf_code(code.code, ctx.pool, ctx.name, ctx.static_fields()):
        return None
    pool = ctx.pool
    md = parse_method_descriptor(m.descriptor)
    node = (0 if m.access & ACC_STATIC else 1) + md.param_slots
    twin = Method(m.access & ~ACC_VARARGS | ESI_FLAGS, m.name_index, m.descriptor_index, [], ctx.cf)
    twin.attributes = [G.copied_code(code)]
    twin.attributes += [a for a in m.attributes if pool.utf8(a.name_index) == "Exceptions"]
    body = disassemble(twin)
    original = body.max_stack
    insert_locals(body, node, [(Object(LEAF_NODE), 1), (Integer, 1)], pool)
    twin.name_index = pool.add_utf8(esi_name(m.name))
    twin.descriptor_index = pool.add_utf8(slot_descriptor(m.descriptor))
    result = instrument_body(ctx, twin, body, node, slot_counts=True)
    entry = ctx.rt.slot_entry(node)
    body.insert(0, entry)
    assemble(
        ctx, twin, body, result.needs, stack_bound(original, result.rise, max(result.own, peak_depth(entry, pool)))
    )
    return twin


def add_slot_twin(ctx: ClassContext, m: Method, leaf: Method | None) -> None:
    """Give ``m`` (statically bound, with an ESI method already) its slot twin: ``leaf`` (from
    :func:`leaf_slot_twin`) or, without one, a delegator to the ESI method."""
    if leaf is not None:
        ctx.cf.methods.append(leaf)
        ctx.emitted((leaf,), (m.name, m.descriptor))
        ctx.report.leaf_twins += 1
        return
    # a delegator's shape is fixed (the arguments, the caller, the unknown site, the call, the
    # return): written as bytes, as the N2B wrapper is, since statically bound methods are many
    # (h2: 5,566 delegators; through instruction objects and the assembler they cost 3 % of a rewrite)
    pool = ctx.pool
    static = bool(m.access & ACC_STATIC)
    md = parse_method_descriptor(m.descriptor)
    caller = (0 if static else 1) + md.param_slots
    ref = pool.add_methodref(ctx.name, esi_name(m.name), esi_descriptor(m.descriptor), interface=False)
    c = G.StraightCode()
    c.load_arguments(m.descriptor, static)
    c.local(op.ALOAD, caller)
    c.push_int(pool, UNKNOWN_SITE)
    c.with_index(op.INVOKESTATIC if static else op.INVOKESPECIAL, ref, caller + 2, md.return_slots)
    c.simple(G.return_opcode(md.return_type), md.return_slots, 0)
    access = m.access & ~(ACC_ABSTRACT | ACC_VARARGS | ACC_NATIVE) | ESI_FLAGS
    name = esi_name(m.name)
    descriptor = slot_descriptor(m.descriptor)
    twin = Method(access, pool.add_utf8(name), pool.add_utf8(descriptor), [c.attribute(pool, caller + 2)], ctx.cf)
    ctx.cf.methods.append(twin)
    ctx.report.emitted[(name, descriptor)] = None
