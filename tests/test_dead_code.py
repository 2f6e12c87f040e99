"""Dead code, as generators and obfuscators leave it, is left alone and never counted.

ASM's ``COMPUTE_FRAMES`` turns unreachable code into ``nop…nop athrow`` under a frame with
empty locals and ``[Throwable]`` on the stack; obfuscators append code after the last return
and exception handlers that cover only such code. The JVM's type checker verifies every
instruction, dead ones included, so code inserted there must fit the dead frame and
``max_stack`` (the reported failure: "Operand stack overflow ... stack: { 'java/lang/Throwable',
'jprewrite/runtime/Node', long, long_2nd }"). Here javac's output is given those shapes with
jprewrite's own editor, HotSpot (-Xverify:all) accepts the result, and the rewritten program's
CCT and precise bytecode counts equal the JDI oracle's on the original.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from jprewrite.classfile import opcodes as op
from jprewrite.classfile.frames import Frame, Integer, Object
from jprewrite.classfile.instructions import Instruction
from jprewrite.classfile.model import read_class
from jprewrite.editor import Handler, Label, disassemble, write_body

from support.jdk import javac
from support.oracle import diff_profiles, run_oracle
from support.profiling import make_jar, rewrite, run_java

SOURCE = {
    "com/example/dead/Main.java": """
package com.example.dead;
public class Main {
  static int f(int x) {
    int y;
    if (x > 0) { y = x * 2; } else { y = -x; }
    return y + g();
  }
  static int g() { return 1; }
  public static void main(String[] args) {
    int s = 0;
    for (int i = -3; i < 4; i++) s += f(i);
    System.out.println(s);
  }
}
"""
}

THROWABLE = Object("java/lang/Throwable")


def _add_dead_code(path: Path) -> None:
    """After f's ``goto``: ASM's dead-code shape with a call in it and a handler covering only it;
    after f's ``ireturn``: code past the last return, under a frame of its own."""
    cf = read_class(path.read_bytes())
    f = cf.method("f", "(I)I")
    body = disassemble(f)
    pool = cf.pool
    g = pool.add_methodref("com/example/dead/Main", "g", "()I")
    goto = next(i for i, x in enumerate(body.items) if not isinstance(x, Label) and x.opcode == op.GOTO)
    dead, dead_end, handler = Label("dead"), Label("dead_end"), Label("dead_handler")
    body.items[goto + 1 : goto + 1] = [
        dead,
        Instruction(-1, op.NOP),
        Instruction(-1, op.INVOKESTATIC, g),
        Instruction(-1, op.POP),
        Instruction(-1, op.NOP),
        dead_end,
        Instruction(-1, op.ATHROW),
        handler,
        Instruction(-1, op.ATHROW),
    ]
    body.frames[dead] = Frame(-1, [], [THROWABLE])
    body.frames[handler] = Frame(-1, [], [THROWABLE])
    body.handlers.append(Handler(dead, dead_end, handler, 0))
    after = Label("after_last_return")
    body.items += [after, Instruction(-1, op.ICONST_0), Instruction(-1, op.IRETURN)]
    body.frames[after] = Frame(-1, [Integer], [])
    write_body(f, body)
    path.write_bytes(cf.to_bytes())


@pytest.fixture(scope="module")
def dead_jar(tmp_path_factory) -> Path:
    tmp = tmp_path_factory.mktemp("dead")
    classes = javac(SOURCE, tmp / "classes")
    _add_dead_code(classes / "com/example/dead/Main.class")
    return make_jar(classes, tmp / "dead.jar")


def test_the_shapes_are_what_the_jvm_accepts(dead_jar, tmp_path) -> None:
    r = run_java([dead_jar], "com.example.dead.Main")
    assert r.returncode == 0, r.stderr
    assert r.stdout == "25\n"


@pytest.mark.parametrize("counting", ["none", "default", "precise"])
def test_dead_code_is_left_alone(dead_jar, tmp_path, counting) -> None:
    out = tmp_path / "out.jar"
    rewrite([dead_jar], out, "--counting", counting, "--allocations")
    r = run_java([out], "com.example.dead.Main", profile=tmp_path / "p.json")
    assert r.returncode == 0, r.stderr
    assert r.stdout == "25\n"
    import zipfile

    cf = read_class(zipfile.ZipFile(out).read("com/example/dead/Main.class"))
    esi = cf.method("f$jp", "(ILjprewrite/runtime/Node;I)I")
    body = disassemble(esi)
    items = body.items
    start = next(
        i
        for i, x in enumerate(items)
        if isinstance(x, Label) and body.frames.get(x) is not None and body.frames[x].stack == [THROWABLE]
    )
    # the dead block runs from its frame to the handler's athrow: the original instructions only
    dead = [x.opcode for x in items[start:] if not isinstance(x, Label)][:6]
    assert dead == [op.NOP, op.INVOKESTATIC, op.POP, op.NOP, op.ATHROW, op.ATHROW]
    last = [x.opcode for x in items if not isinstance(x, Label)][-2:]
    assert last == [op.ICONST_0, op.IRETURN]


def test_counts_equal_the_oracle(dead_jar, tmp_path) -> None:
    out = tmp_path / "out.jar"
    rewrite([dead_jar], out, "--counting", "precise")
    r = run_java([out], "com.example.dead.Main", profile=tmp_path / "p.json")
    assert r.returncode == 0, r.stderr
    oracle = run_oracle([dead_jar], "com.example.dead.Main", app_patterns=("com.example.",), timeout=300)
    assert oracle.stdout == r.stdout
    differences = diff_profiles(oracle.profile, r.profile)
    assert not differences, "\n".join(differences[:40])
