"""Hand-made class files with code no Java compiler of today emits (version 49, ``jsr``/``ret``).

Shared by the block-analysis tests and the editor's exercise tests: both must handle subroutines,
and the class is built once, here, rather than imported across test modules.
"""

from __future__ import annotations

from jprewrite.classfile import opcodes as op
from jprewrite.classfile.instructions import Iinc, Instruction
from jprewrite.classfile.model import ACC_PUBLIC, ACC_STATIC, ACC_SUPER, ClassFile, Method
from jprewrite.editor import Label
from jprewrite.editor.assembler import assemble
from jprewrite.editor.body import CodeBody

__all__ = ["insn", "jsr_ret_class"]


def insn(opcode: int, operand=None) -> Instruction:
    """An instruction without an offset yet (the assembler gives it one)."""
    return Instruction(-1, opcode, operand)


def jsr_ret_class() -> ClassFile:
    cf = ClassFile()
    cf.major, cf.minor = 49, 0
    pool = cf.pool
    cf.access = ACC_PUBLIC | ACC_SUPER
    cf.this_class = pool.add_class("J")
    cf.super_class = pool.add_class("java/lang/Object")

    def method(name: str, desc: str, items: list, max_locals: int, handlers=()) -> None:
        body = CodeBody(items=items, handlers=list(handlers), max_locals=max_locals)
        code = assemble(body, pool, frames=False, name_index=pool.add_utf8("Code"))
        cf.methods.append(Method(ACC_PUBLIC | ACC_STATIC, pool.add_utf8(name), pool.add_utf8(desc), [code], cf))

    from jprewrite.editor.body import Handler

    # sub(x): one subroutine called from two places
    els, end, S = Label(), Label(), Label()
    method(
        "sub",
        "(I)I",
        [
            insn(op.ILOAD, 0),
            insn(op.IFEQ, els),
            insn(op.JSR, S),
            Iinc(-1, 0, 1),
            insn(op.GOTO, end),
            els,
            insn(op.JSR, S),
            Iinc(-1, 0, 2),
            end,
            insn(op.ILOAD, 0),
            insn(op.IRETURN),
            S,
            insn(op.ASTORE, 1),
            Iinc(-1, 0, 10),
            insn(op.RET, 1),
        ],
        2,
    )
    # nest(x): S calls T
    els, end, S, T = Label(), Label(), Label(), Label()
    method(
        "nest",
        "(I)I",
        [
            insn(op.ILOAD, 0),
            insn(op.IFEQ, els),
            insn(op.JSR, S),
            Iinc(-1, 0, 1),
            insn(op.GOTO, end),
            els,
            insn(op.JSR, S),
            Iinc(-1, 0, 2),
            end,
            insn(op.ILOAD, 0),
            insn(op.IRETURN),
            S,
            insn(op.ASTORE, 1),
            Iinc(-1, 0, 10),
            insn(op.JSR, T),
            Iinc(-1, 0, 100),
            insn(op.RET, 1),
            T,
            insn(op.ASTORE, 2),
            Iinc(-1, 0, 1000),
            insn(op.RET, 2),
        ],
        3,
    )
    # fin(s): old javac's try/finally, the finally block a subroutine called twice
    out = pool.add_fieldref("java/lang/System", "out", "Ljava/io/PrintStream;")
    println_s = pool.add_methodref("java/io/PrintStream", "println", "(Ljava/lang/String;)V")
    println_i = pool.add_methodref("java/io/PrintStream", "println", "(I)V")
    parse = pool.add_methodref("java/lang/Integer", "parseInt", "(Ljava/lang/String;)I")
    ls, le, hnd, F = Label(), Label(), Label(), Label()
    method(
        "fin",
        "(Ljava/lang/String;)I",
        [
            ls,
            insn(op.ALOAD, 0),
            insn(op.INVOKESTATIC, parse),
            insn(op.ISTORE, 1),
            le,
            insn(op.JSR, F),
            insn(op.ILOAD, 1),
            insn(op.IRETURN),
            hnd,
            insn(op.ASTORE, 2),
            insn(op.JSR, F),
            insn(op.ALOAD, 2),
            insn(op.ATHROW),
            F,
            insn(op.ASTORE, 3),
            insn(op.GETSTATIC, out),
            insn(op.LDC, pool.add_string("fin")),
            insn(op.INVOKEVIRTUAL, println_s),
            insn(op.RET, 3),
        ],
        4,
        [Handler(ls, le, hnd, 0)],
    )
    # irr(x): a loop with two entries (irreducible)
    A, Bl, end = Label(), Label(), Label()
    method(
        "irr",
        "(I)I",
        [
            insn(op.ILOAD, 0),
            insn(op.IFEQ, Bl),
            A,
            Iinc(-1, 0, -1),
            insn(op.ILOAD, 0),
            insn(op.IFLE, end),
            Bl,
            Iinc(-1, 0, -2),
            insn(op.ILOAD, 0),
            insn(op.IFGT, A),
            end,
            insn(op.ILOAD, 0),
            insn(op.IRETURN),
        ],
        1,
    )
    # bottom(x): a loop tested at the bottom, entered by a forward goto
    A, Bl = Label(), Label()
    method(
        "bottom",
        "(I)I",
        [
            insn(op.ICONST_0),
            insn(op.ISTORE, 1),
            insn(op.GOTO, Bl),
            A,
            insn(op.ILOAD, 1),
            insn(op.ILOAD, 0),
            insn(op.IADD),
            insn(op.ISTORE, 1),
            Iinc(-1, 0, -1),
            Bl,
            insn(op.ILOAD, 0),
            insn(op.IFGT, A),
            insn(op.ILOAD, 1),
            insn(op.IRETURN),
        ],
        2,
    )
    # dead(): unreachable self loop and unreachable return
    L = Label()
    method(
        "dead",
        "()I",
        [insn(op.ICONST_1), insn(op.IRETURN), L, insn(op.GOTO, L), insn(op.ICONST_2), insn(op.IRETURN)],
        0,
    )
    main: list = []
    for name, desc, arg in (
        ("sub", "(I)I", 0),
        ("sub", "(I)I", 5),
        ("nest", "(I)I", 0),
        ("nest", "(I)I", 5),
        ("irr", "(I)I", 0),
        ("irr", "(I)I", 7),
        ("bottom", "(I)I", 4),
        ("dead", "()I", None),
        ("fin", "(Ljava/lang/String;)I", "7"),
    ):
        main.append(insn(op.GETSTATIC, out))
        if isinstance(arg, str):
            main.append(insn(op.LDC, pool.add_string(arg)))
        elif arg is not None:
            main.append(insn(op.BIPUSH, arg))
        main.append(insn(op.INVOKESTATIC, pool.add_methodref("J", name, desc)))
        main.append(insn(op.INVOKEVIRTUAL, println_i))
    main.append(insn(op.RETURN))
    method("main", "([Ljava/lang/String;)V", main, 1)
    return cf
