"""The holder class ``C$$jpmids`` beside each rewritten class: its MethodIds and interface dispatchers.

MethodIds live in ``static final MethodId $jp$m<k>`` fields (or, for classes that would need too
many, ``static final MethodId[] $jp$mids``, filled in chunks), set by the holder's own
``<clinit>`` (:mod:`.method_ids`); not in the class itself, because code of a class can run before its
``<clinit>`` (a superclass's initialiser that instantiates the subclass), and the holder is
initialised on first use, whatever state its class is in. The holder is version 49: no
StackMapTable needed (inference verifier). It also holds the class's init flags
(``static boolean $jp$init<k>``, one per class whose initialisation the class may trigger: see
:func:`~.call_sites.init_publish`).

**Interface dispatchers** ``static R m(I self, args…, Node, int)``: how instrumented code calls
interface method ``m``. The receiver may be anything that implements the interface: a proxy
(which would hand an ESI method to its invocation handler), a lambda, a mock, an
uninstrumented class. Only receivers whose class chain is instrumented get the ESI call;
others get a boundary node and the original method. Callers call the copy in their *own*
holder (the interface their call site names): it is defined by the caller's loader beside the
caller, so whatever loader arrangement the program has (Clojure's per-form loaders with a
shared class cache, OSGi), the caller can see it; a static method in the interface is
impossible below version 52 anyway. The interface's own holder keeps a copy for callers
rewritten by older builds.
"""

from __future__ import annotations

from typing import Final

from ..classfile import opcodes as op
from ..classfile.constants import ConstantPool
from ..classfile.descriptors import parse_method_descriptor, type_size
from ..classfile.instructions import Instruction, InvokeInterface
from ..classfile.model import (
    ACC_FINAL,
    ACC_PRIVATE,
    ACC_PUBLIC,
    ACC_STATIC,
    ACC_SUPER,
    ACC_SYNTHETIC,
    ClassFile,
    Field,
    Method,
)
from ..editor import Label, write_body
from ..editor.body import CodeBody
from . import codegen as G
from .context import ClassContext
from .runtime_api import LocalSite, RuntimeCalls
from .support import (
    INIT_FLAG_PREFIX,
    KIND_UNINSTRUMENTED,
    MID,
    MID_DESC,
    MID_FIELD_PREFIX,
    MIDS_ARRAY,
    MIDS_FIELD,
    MIDS_PER_CHUNK,
    SEEN_FIELD,
    dispatcher_descriptor,
    esi_descriptor,
    esi_name,
)

__all__ = ["build_holder"]

_CLASS_ARRAY: Final = "[Ljava/lang/Class;"
_MID_FIELD_FLAGS: Final = ACC_STATIC | ACC_FINAL | ACC_SYNTHETIC


def build_holder(ctx: ClassContext) -> tuple[str, bytes]:
    """The holder class of ``ctx``'s class: (internal name, class file bytes)."""
    mids = ctx.mids
    holder = ClassFile()
    holder.major, holder.minor = 49, 0
    # public when it holds interface dispatchers: callers in other packages call them
    holder.access = ACC_FINAL | ACC_SUPER | ACC_SYNTHETIC | (ACC_PUBLIC if ctx.holder_dispatchers else 0)
    pool: ConstantPool = holder.pool  # (typed: compiled, its calls are then native)
    holder.this_class = pool.add_class(mids.holder)
    holder.super_class = pool.add_class("java/lang/Object")
    rt = RuntimeCalls(pool, mids)
    for iface, name, desc, declaring, publishing in _wanted_dispatchers(ctx):
        body = _dispatcher_body(ctx, rt, iface, name, desc, declaring, publishing)
        d = Method(
            ACC_PUBLIC | ACC_STATIC | ACC_SYNTHETIC,
            pool.add_utf8(name),
            pool.add_utf8(dispatcher_descriptor(iface, desc)),
            [],
            holder,
        )
        write_body(d, body)
        holder.methods.append(d)
    for k in range(len(mids.init_flags)):  # read and set by the class: package access
        flag = pool.add_utf8(f"{INIT_FLAG_PREFIX}{k}")
        holder.fields.append(Field(ACC_STATIC | ACC_SYNTHETIC, flag, pool.add_utf8("Z"), [], holder))
    _add_initialiser(ctx, holder)
    return mids.holder, holder.to_bytes()


def _wanted_dispatchers(ctx: ClassContext) -> list[tuple[str, str, str, str, bool]]:
    """(interface, name, descriptor, declaring interface, publishing) of each dispatcher, once."""
    cf = ctx.cf
    wanted = [(cf.name, m.name, m.descriptor, cf.name, ctx.strategy.publishing) for m in ctx.holder_dispatchers]
    own = {(w[0], w[1], w[2]) for w in wanted}
    wanted += [
        (iface, name, desc, declaring, publishing)
        for (iface, name, desc), (declaring, publishing) in ctx.caller_dispatchers.items()
        if (iface, name, desc) not in own
    ]
    return wanted


def _add_initialiser(ctx: ClassContext, holder: ClassFile) -> None:
    """``<clinit>``: the inline-cache array, then the MethodIds: each in its own field, or in the
    array filled by ``fillN`` methods of at most :data:`MIDS_PER_CHUNK` entries each.

    Straight-line code, written as bytes (:class:`~.codegen.StraightCode`): a holder's
    initialiser has about seven instructions per MethodId, more than all its class's wrappers."""
    mids = ctx.mids
    pool: ConstantPool = holder.pool
    n = len(mids.entries)
    code = G.StraightCode()
    if mids.dispatchers:
        holder.fields.append(
            Field(
                ACC_STATIC | ACC_FINAL | ACC_SYNTHETIC,
                pool.add_utf8(SEEN_FIELD),
                pool.add_utf8(_CLASS_ARRAY),
                [],
                holder,
            )
        )
        code.push_int(pool, 2 * mids.dispatchers)  # two classes per dispatcher
        code.with_index(op.ANEWARRAY, pool.add_class("java/lang/Class"), 1, 1)
        code.with_index(op.PUTSTATIC, pool.add_fieldref(mids.holder, SEEN_FIELD, _CLASS_ARRAY), 1, 0)
    if mids.fields:  # one constant field per MethodId, set here (see method_ids)
        for k in range(n):
            name_index = pool.add_utf8(f"{MID_FIELD_PREFIX}{k}")
            holder.fields.append(Field(_MID_FIELD_FLAGS, name_index, pool.add_utf8(MID_DESC), [], holder))
        mids.fill_fields(pool, code)
    else:
        holder.fields.append(Field(_MID_FIELD_FLAGS, pool.add_utf8(MIDS_FIELD), pool.add_utf8(MIDS_ARRAY), [], holder))
        code.push_int(pool, n)
        code.with_index(op.ANEWARRAY, pool.add_class(MID), 1, 1)
        for k, start in enumerate(range(0, n, MIDS_PER_CHUNK)):
            end = min(n, start + MIDS_PER_CHUNK)
            name = f"fill{k}"
            desc = "(" + MIDS_ARRAY + ")" + MIDS_ARRAY
            m = Method(ACC_PRIVATE | ACC_STATIC, pool.add_utf8(name), pool.add_utf8(desc), [], holder)
            fill = G.StraightCode()
            fill.simple(op.ALOAD_0, 0, 1)
            mids.fill(pool, start, end, fill)
            fill.simple(op.ARETURN, 1, 0)
            m.attributes.append(fill.attribute(pool, 1))
            holder.methods.append(m)
            code.with_index(op.INVOKESTATIC, pool.add_methodref(mids.holder, name, desc), 1, 1)
        code.with_index(op.PUTSTATIC, pool.add_fieldref(mids.holder, MIDS_FIELD, MIDS_ARRAY), 1, 0)
    mids.wire_leaves(pool, code)
    code.simple(op.RETURN, 0, 0)
    clinit = Method(ACC_STATIC, pool.add_utf8("<clinit>"), pool.add_utf8("()V"), [], holder)
    clinit.attributes.append(code.attribute(pool, 0))
    holder.methods.append(clinit)


def _dispatcher_body(
    ctx: ClassContext, rt: RuntimeCalls, iface: str, name: str, descriptor: str, declaring: str, publishing: bool
) -> CodeBody:
    """``static R m(I self, args…, Node, int)``, with an inline cache of two classes: the last
    receiver classes found capable skip the runtime's ClassValue lookup (call sites that see two
    implementations stay hits)."""
    pool, mids = rt.pool, ctx.mids
    md = parse_method_descriptor(descriptor)
    slot = 1
    args = []
    for p in md.params:
        args.append(Instruction(-1, G.load_opcode(p), slot))
        slot += type_size(p)
    node, site, cls = slot, slot + 1, slot + 2
    mid = mids.ref(declaring, name, descriptor, KIND_UNINSTRUMENTED)
    other, esi = Label("not_instrumented"), Label("esi")
    k = mids.dispatchers
    mids.dispatchers += 1
    seen = pool.add_fieldref(mids.holder, SEEN_FIELD, _CLASS_ARRAY)
    get_class = pool.add_methodref("java/lang/Object", "getClass", "()Ljava/lang/Class;")
    ret = G.return_opcode(md.return_type)

    def seen_slot(i: int) -> list:
        return [Instruction(-1, op.GETSTATIC, seen), G.push_int(pool, i)]

    items = [
        Instruction(-1, op.ALOAD, 0),
        Instruction(-1, op.INVOKEVIRTUAL, get_class),
        Instruction(-1, op.ASTORE, cls),
        *seen_slot(2 * k),
        Instruction(-1, op.AALOAD),
        Instruction(-1, op.ALOAD, cls),
        Instruction(-1, op.IF_ACMPEQ, esi),
        *seen_slot(2 * k + 1),
        Instruction(-1, op.AALOAD),
        Instruction(-1, op.ALOAD, cls),
        Instruction(-1, op.IF_ACMPEQ, esi),
        *rt.esi_capable(0),
        Instruction(-1, op.IFEQ, other),
        *seen_slot(2 * k + 1),  # the newest class first, the previous one second
        *seen_slot(2 * k),
        Instruction(-1, op.AALOAD),
        Instruction(-1, op.AASTORE),
        *seen_slot(2 * k),
        Instruction(-1, op.ALOAD, cls),
        Instruction(-1, op.AASTORE),
        esi,
        *_capable_call(rt, iface, name, descriptor, publishing, args, node, site),
        Instruction(-1, ret),
        other,
        *rt.boundary(node, LocalSite(site), mid),
        Instruction(-1, op.ALOAD, 0),
        *[Instruction(-1, x.opcode, x.operand) for x in args],
        InvokeInterface(-1, pool.add_methodref(iface, name, descriptor, interface=True), 1 + md.param_slots),
        Instruction(-1, ret),
    ]
    return CodeBody(items=items, max_locals=cls + 1)


def _capable_call(
    rt: RuntimeCalls, iface: str, name: str, descriptor: str, publishing: bool, args: list, node: int, site: int
) -> list:
    """The dispatcher's call on an instrumented receiver: its ESI method, or (publishing
    interfaces, which have none) the original method after publishing the caller's node and
    site, which the implementation's N2B wrapper enters beneath."""
    pool = rt.pool
    slots = parse_method_descriptor(descriptor).param_slots
    receiver_and_args = [Instruction(-1, op.ALOAD, 0), *[Instruction(-1, x.opcode, x.operand) for x in args]]
    if publishing:
        return [
            *rt.publish_call(node, LocalSite(site)),
            *receiver_and_args,
            InvokeInterface(-1, pool.add_methodref(iface, name, descriptor, interface=True), 1 + slots),
        ]
    return [
        *receiver_and_args,
        Instruction(-1, op.ALOAD, node),
        Instruction(-1, op.ILOAD, site),
        InvokeInterface(
            -1, pool.add_methodref(iface, esi_name(name), esi_descriptor(descriptor), interface=True), 1 + slots + 2
        ),
    ]
