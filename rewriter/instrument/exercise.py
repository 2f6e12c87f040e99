"""The editor's exercise: every kind of edit instrumentation makes, applied to every method.

This transformation exists to prove the code editor on real bytecode before
the profiler relies on it (tests run it over the JDK and Debian jars and hand
the result to two verifiers; the benchmark times it). It is behaviour-
preserving, so rewritten programs must print exactly what they printed before:

(a) **a parameter**: each method with code gets a synthetic *twin* with one more
    parameter (``Ljava/lang/Object;``, last) holding the original body; the
    original becomes a delegator passing ``null`` (the shape of JP/CCCP's N2B
    wrapper around an ESI method). Instance methods delegate with
    ``invokespecial`` so the twin of the class that was dispatched to runs.
(b) **a counter update at the start of every basic block**: ``iinc C, size``
    on a new int local ``C`` that is live everywhere (so every frame gets it).
(c) **a conditional call with a new branch target** at method entry and at every
    loop header: ``iload C; iconst_m1; if_icmpne skip; invokestatic
    Thread.onSpinWait(); skip:`` -- ``skip`` needs a frame.
(d) **a catch-all handler** around the body (after ``super()``/``this()`` in
    constructors) that updates ``C`` and rethrows.

With ``twins=False`` step (a) adds the parameter in place instead (callers are
not updated): classes still verify, but no longer run.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..analysis import blocks as B
from ..analysis.frames import complete_frames
from ..analysis.hierarchy import ClassHierarchy
from ..classfile import opcodes as op
from ..classfile.descriptors import parse_method_descriptor, type_size
from ..classfile.frames import Frame, Integer, Object, Top, VType, initial_frame_locals
from ..classfile.instructions import Iinc, Instruction
from ..classfile.model import (
    ACC_ABSTRACT,
    ACC_BRIDGE,
    ACC_NATIVE,
    ACC_STATIC,
    ACC_SYNTHETIC,
    ACC_VARARGS,
    ClassFile,
    Method,
)
from ..editor import CodeTooLargeError, Handler, Label, disassemble, write_body
from ..editor.body import CodeBody
from ..editor.params import insert_parameter
from . import codegen as G

EXTRA_PARAMETER = "Ljava/lang/Object;"


@dataclass
class ExerciseStats:
    methods: int = 0
    twins: int = 0
    blocks: int = 0
    checks: int = 0
    handlers: int = 0
    too_large: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)


def exercise_class(
    cf: ClassFile,
    hierarchy: ClassHierarchy | None = None,
    *,
    twins: bool = True,
    mode: B.Mode = "default",
    stats: ExerciseStats | None = None,
) -> ExerciseStats:
    """Apply (a)-(d) to every method of ``cf`` with code. Methods that would grow past 64 KB stay as they were."""
    stats = stats or ExerciseStats()
    hierarchy = hierarchy or ClassHierarchy()
    for m in list(cf.methods):
        if m.access & (ACC_ABSTRACT | ACC_NATIVE) or m.code() is None:
            continue
        where = f"{cf.name}.{m.name}{m.descriptor}"
        target = m
        if m.name != "<clinit>":
            try:
                target = _add_parameter(cf, m, twins)
            except CodeTooLargeError:
                stats.too_large.append(where)
                continue
            except _Skip as e:
                stats.skipped.append(f"{where}: {e}")
                target = m
            else:
                stats.twins += target is not m
        try:
            _instrument_body(cf, target, hierarchy, mode, stats)
            stats.methods += 1
        except CodeTooLargeError:
            stats.too_large.append(where)
    return stats


class _Skip(Exception):
    pass


# ------------------------------------------------------------------------------ (a)
def _add_parameter(cf: ClassFile, m: Method, twins: bool) -> Method:
    md = parse_method_descriptor(m.descriptor)
    first = 0 if m.access & ACC_STATIC else 1
    if md.param_slots + first + 1 > 255:
        raise _Skip("no room for another parameter (255 slots)")
    new_desc = "(" + "".join(md.params) + EXTRA_PARAMETER + ")" + md.return_type
    if cf.method(m.name, new_desc) is not None:
        raise _Skip(f"a method {m.name}{new_desc} already exists")
    if not twins:
        insert_parameter(m, len(md.params), EXTRA_PARAMETER)
        return m
    pool = cf.pool
    twin = Method(m.access & ~(ACC_VARARGS | ACC_BRIDGE) | ACC_SYNTHETIC, m.name_index, m.descriptor_index, [], cf)
    code = m.code()
    assert code is not None
    # the twin starts as a copy of the original Code (decoded, so nothing is shared)
    twin_code = G.copied_code(code)
    twin.attributes = [twin_code] + [a for a in m.attributes if pool.utf8(a.name_index) == "Exceptions"]
    insert_parameter(twin, len(md.params), EXTRA_PARAMETER)
    _make_delegator(cf, m, twin, md)
    cf.methods.append(twin)
    return twin


def _make_delegator(cf: ClassFile, m: Method, twin: Method, md) -> None:
    """Replace ``m``'s body by: load every argument, push null, call the twin, return its result."""
    pool = cf.pool
    items: list = []
    slot = 0
    is_static = bool(m.access & ACC_STATIC)
    if not is_static:
        items.append(Instruction(-1, op.ALOAD, 0))
        slot = 1
    for p in md.params:
        items.append(Instruction(-1, G.load_opcode(p), slot))
        slot += type_size(p)
    items.append(Instruction(-1, op.ACONST_NULL))
    interface = cf.is_interface()
    ref = pool.add_methodref(cf.name, twin.name, twin.descriptor, interface=interface)
    if is_static:
        items.append(Instruction(-1, op.INVOKESTATIC, ref))
    else:
        items.append(Instruction(-1, op.INVOKESPECIAL, ref))
    items.append(Instruction(-1, G.return_opcode(md.return_type)))
    # a fresh body: the delegator keeps nothing of the original code (no tables, no frames)
    write_body(m, CodeBody(items=items, max_locals=slot))


# ------------------------------------------------------------------------------ (b)-(d)
def _instrument_body(cf: ClassFile, m: Method, hierarchy: ClassHierarchy, mode: B.Mode, stats: ExerciseStats) -> None:
    pool = cf.pool
    body = disassemble(m)
    with_frames = cf.major >= 50
    is_static = bool(m.access & ACC_STATIC)
    counter = body.new_local()
    if with_frames:
        G.define_local_in_frames(body, counter, Integer)

    blocks = B.basic_blocks(body, mode, pool=pool)
    loops = B.loop_headers(body, blocks)
    stats.blocks += len(blocks)
    # Insert from the last block to the first so item indices stay valid.
    inserts: list[tuple[int, list]] = []
    initial = initial_frame_locals(cf.name, m.name, m.descriptor, is_static)
    entry_frame = Frame(-1, G.with_local(initial, counter, Integer), [])
    for blk in blocks:
        code: list = []
        if blk.size:
            code += _add(counter, blk.size)
        if blk.index in loops:
            header_frame = body.frames.get(blk.label)
            if with_frames and header_frame is None:
                continue  # a loop header without a frame (jsr code, version < 50 needs none)
            code += _check(pool, counter, header_frame if with_frames else None, body)
            stats.checks += 1
        if code:
            inserts.append((G.after_labels(body, blk.start), code))
    for index, code in sorted(inserts, key=lambda x: -x[0]):
        body.insert(index, code)
    # entry: initialise C, then the entry check
    entry: list[Instruction | Label] = [Instruction(-1, op.ICONST_0), Instruction(-1, op.ISTORE, counter)]
    entry += _check(pool, counter, entry_frame if with_frames else None, body)
    stats.checks += 1
    body.insert(0, entry)
    # (d) catch-all around everything after the super()/this() call
    start_index = G.after_initialisation(cf.name, m.name, m.descriptor, body, pool)
    if start_index == 0:
        start_index = len(entry)  # C must be initialised everywhere the handler covers
    if start_index is not None and _has_instructions_after(body, start_index):
        start, end, handler = Label("wrap_start"), Label("wrap_end"), Label("wrap_handler")
        body.insert(start_index, [start])
        body.items += [end, handler, Iinc(-1, counter, 1), Instruction(-1, op.ATHROW)]
        body.handlers.append(Handler(start, end, handler, 0))
        if with_frames:
            locals_: list[VType] = [Top] * counter
            body.frames[handler] = Frame(-1, locals_ + [Integer], [Object("java/lang/Throwable")])
        stats.handlers += 1
    if with_frames:
        complete_frames(
            body,
            pool=pool,
            hierarchy=hierarchy,
            this_class=cf.name,
            method_name=m.name,
            descriptor=m.descriptor,
            is_static=is_static,
        )
    write_body(m, body)


def _add(slot: int, amount: int) -> list:
    """``iinc`` takes a signed 16-bit increment: blocks of more than 32767 bytecodes need several."""
    out = []
    while amount > 0:
        step = min(amount, 32767)
        out.append(Iinc(-1, slot, step))
        amount -= step
    return out


def _check(pool, counter: int, frame: Frame | None, body: CodeBody) -> list:
    skip = Label("skip")
    if frame is not None:
        body.frames[skip] = Frame(-1, list(frame.locals), list(frame.stack))
    return [
        Instruction(-1, op.ILOAD, counter),
        Instruction(-1, op.ICONST_M1),
        Instruction(-1, op.IF_ICMPNE, skip),
        Instruction(-1, op.INVOKESTATIC, pool.add_methodref("java/lang/Thread", "onSpinWait", "()V")),
        skip,
    ]


def _has_instructions_after(body: CodeBody, index: int) -> bool:
    return any(not isinstance(x, Label) for x in body.items[index:])
