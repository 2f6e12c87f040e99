"""N2B wrapper: the original signature of an instrumented method, entering the CCT from outside.

Reflection, the JDK, native code and uninstrumented classes call the original signature; the
wrapper takes the parent from the thread's slot (``ThreadRoot.n2bEnter``: through a pending
call's cache slot when dispatch came straight from instrumented code), calls the ESI twin with
``Node.ENTERED`` and leaves the slot as it found it, also when the twin throws.
"""

from __future__ import annotations

from ..classfile import opcodes as op
from ..classfile.code import CodeAttribute, ExceptionHandler, StackMapTable
from ..classfile.descriptors import parse_method_descriptor
from ..classfile.frames import Frame, Object, initial_frame_locals
from ..classfile.instructions import Instruction
from ..classfile.model import ACC_STATIC, Method
from ..editor import Handler, Label
from ..editor.body import CodeBody
from ..editor.method_code import code_name_index, set_code
from . import codegen as G
from .context import ClassContext
from .emit import THROWABLE, FrameNeeds
from .runtime_api import (
    NODE_ROOT,
    ROOT_N2B_ENTER,
    ROOT_N2B_ENTER_LOADER,
    ROOT_N2B_RETHROW,
    ROOT_PUBLISHED,
    TEXTS_LEAVING,
)
from .support import ENTERED, NODE, esi_descriptor, esi_name

__all__ = ["is_loader_entry", "make_n2b", "slot_restoring_body"]


def make_n2b(ctx: ClassContext, m: Method, self_mid: int) -> None:
    """Replace ``m``'s body (its ESI twin holds the original now) with the N2B wrapper.

    Every instrumented method has one, and its shape is fixed: the entry, the call, the slot
    restore before the return and before the rethrow, one catch-all handler and its one frame.
    So its Code attribute is written as bytes (:class:`~.codegen.StraightCode`), with the
    handler's offsets, frame and ``max_stack`` known from the shape: instruction objects, a
    layout and a stack-depth flow would cost more than the rest of the wrapper. What comes out
    is byte for byte what the assembler makes of :func:`slot_restoring_body`'s body (tested).
    """
    pool, rt = ctx.pool, ctx.rt
    is_static = bool(m.access & ACC_STATIC)
    md = parse_method_descriptor(m.descriptor)
    this_slots = 0 if is_static else 1
    parent = this_slots + md.param_slots
    saved = parent + 1
    loader = is_loader_entry(ctx, m)
    c = G.StraightCode()
    # parent = ThreadRoot.n2bEnter(this or null, mid); saved = parent.root.published
    if is_static:
        c.simple(op.ACONST_NULL, 0, 1)
    else:
        c.simple(op.ALOAD_0, 0, 1)
    ctx.mids.write(self_mid, c)
    if loader:  # ThreadRoot.n2bEnterLoader(this, mid, name)
        c.simple(op.ALOAD_1, 0, 1)
        c.with_index(op.INVOKESTATIC, rt.method_ref(ROOT_N2B_ENTER_LOADER), 3, 1)
    else:
        c.with_index(op.INVOKESTATIC, rt.method_ref(ROOT_N2B_ENTER), 2, 1)
    c.local(op.ASTORE, parent)
    c.local(op.ALOAD, parent)
    c.with_index(op.GETFIELD, rt.field_ref(NODE_ROOT), 1, 1)
    c.with_index(op.GETFIELD, rt.field_ref(ROOT_PUBLISHED), 1, 1)
    c.local(op.ASTORE, saved)
    # try { return m$jp(args..., parent, ENTERED) }
    esi = pool.add_methodref(
        ctx.name, esi_name(m.name), esi_descriptor(m.descriptor), interface=ctx.strategy.is_interface
    )
    start = len(c.code)
    c.load_arguments(m.descriptor, is_static)
    c.local(op.ALOAD, parent)
    c.push_int(pool, ENTERED)
    c.with_index(op.INVOKESTATIC if is_static else op.INVOKESPECIAL, esi, saved + 1, md.return_slots)
    end = len(c.code)
    # finally { parent.root.published = saved }: before the return, and before the rethrow
    restore = rt.leave_fragment(parent, saved) if loader else rt.restore_slot_fragment(parent, saved)
    c.fragment(restore)
    c.simple(G.return_opcode(md.return_type), md.return_slots, 0)
    handler = len(c.code)
    c.depth = 1  # the handler's Throwable
    if loader:
        c.fragment(restore)
    elif _leaves_to_the_jvm(m, is_static):  # the JVM prints what leaves a thread: its trace as the original's
        c.fragment(restore)
        c.simple(op.DUP, 1, 2)
        c.with_index(op.INVOKESTATIC, rt.method_ref(TEXTS_LEAVING), 1, 0)
    else:  # so may the JDK code that called in, where no code of the program is beneath (n2bRethrow)
        c.simple(op.DUP, 1, 2)
        c.local(op.ALOAD, parent)
        c.local(op.ALOAD, saved)
        c.with_index(op.INVOKESTATIC, rt.method_ref(ROOT_N2B_RETHROW), 3, 0)
    c.simple(op.ATHROW, 1, 0)
    nested: list = []
    if ctx.strategy.frames:
        locals_ = initial_frame_locals(ctx.name, m.name, m.descriptor, is_static) + [Object(NODE), Object(NODE)]
        smt = StackMapTable(pool.add_utf8("StackMapTable"), b"", None)
        smt.set_frames([Frame(handler, locals_, [THROWABLE])])
        nested.append(smt)
    code = CodeAttribute(
        code_name_index(m), c.max_stack, saved + 1, c.bytes(), [ExceptionHandler(start, end, handler, 0)], nested
    )
    set_code(m, code)


def _leaves_to_the_jvm(m: Method, is_static: bool) -> bool:
    """Is ``m`` where an exception leaves the program for the JVM to print (``Exception in thread
    "main"``...): a ``main`` method (static, or an instance ``main`` of Java 25's launcher) or a
    thread's ``run()``? Its wrapper makes the exception ready for the JVM to print before it
    rethrows (``Texts.leaving``: its trace cleaned, its texts the original's): only on that path,
    so it costs nothing else. Every other wrapper (but a class loader's) does so when its context
    is a top-level one (``ThreadRoot.n2bRethrow``, which also restores the slot): a lambda or a
    method reference a ``Thread`` or an executor runs."""
    if m.name == "main":
        return m.descriptor in ("([Ljava/lang/String;)V", "()V")
    return m.name == "run" and m.descriptor == "()V" and not is_static


#: the class-loader methods the JVM and the JDK call to load a class by its binary name
_LOADER_ENTRIES = frozenset(
    (
        ("loadClass", "(Ljava/lang/String;)Ljava/lang/Class;"),
        ("loadClass", "(Ljava/lang/String;Z)Ljava/lang/Class;"),
        ("findClass", "(Ljava/lang/String;)Ljava/lang/Class;"),
    )
)


def is_loader_entry(ctx: ClassContext, m: Method) -> bool:
    """Is ``m`` a class loader's ``loadClass``/``findClass``, whose N2B wrapper runs quietly for
    jprewrite's own classes (``ThreadRoot.n2bEnterLoader``)?

    Rewritten code names the runtime and its holder class; the JVM resolves those names through
    the class's loader, which, written in the program, runs instrumented code the program without
    jprewrite would not run: without this, those loads show in the profile as calls of the loader
    (beneath whatever node was published last).
    """
    if m.access & ACC_STATIC or (m.name, m.descriptor) not in _LOADER_ENTRIES:
        return False
    return ctx.hierarchy.is_subtype(ctx.name, "java/lang/ClassLoader") is True


def slot_restoring_body(
    head: list, protected: list, restore: list, return_type: str, max_locals: int, handler_locals: list
) -> tuple[CodeBody, FrameNeeds]:
    """``head``, then ``protected`` under a catch-all; ``restore`` (the slot as it was found) runs
    before the return and before the rethrow: a B2N wrapper's body, and the shape
    :func:`make_n2b` writes as bytes."""
    start, end, handler = Label("restore_start"), Label("restore_end"), Label("restore_handler")
    items = [
        *head,
        start,
        *protected,
        end,
        *restore,
        Instruction(-1, G.return_opcode(return_type)),
        handler,
        *restore,
        Instruction(-1, op.ATHROW),
    ]
    body = CodeBody(items=items, max_locals=max_locals)
    body.handlers.append(Handler(start, end, handler, 0))
    needs = FrameNeeds()
    needs.known[handler] = Frame(-1, handler_locals, [THROWABLE])
    return body, needs
