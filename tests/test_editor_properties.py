"""Property test: random insertions into real methods keep them verifiable and behaving the same.

Hypothesis chooses where to insert (any position in any method of real javac
output, constructors included) and what: stack-neutral snippets, stores to
fresh locals, forward branches that skip a snippet (a new branch target that
needs a frame), and loops of our own. Each edited class is written out, linked
by HotSpot with ``-Xverify:all`` and run; its output must not change.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from jprewrite.analysis.frames import complete_frames
from jprewrite.analysis.hierarchy import ClassHierarchy
from jprewrite.archive.jdk_image import JdkImage, find_java_home
from jprewrite.classfile import opcodes as op
from jprewrite.classfile.instructions import Iinc, Instruction
from jprewrite.classfile.model import ACC_STATIC, read_class
from jprewrite.editor import Label, disassemble, write_body

from support.jdk import javac, run, tool

SOURCE = {
    "q/Work.java": """
package q;
import java.util.*;
public class Work {
    final int base;
    Work(int b, boolean flip) { super(); int x = flip ? -b : b; base = x; }
    Work(String s) { this(s == null ? 0 : s.length(), s != null && s.isEmpty()); }
    static long sum(int[] xs) { long s = 0; for (int x : xs) s += x; return s; }
    static String classify(int k) {
        switch (k % 4) { case 0: return "zero"; case 1: return "one"; default: return k < 0 ? "neg" : "many"; }
    }
    static double avg(List<Double> xs) {
        double s = 0; int n = 0;
        for (Double d : xs) { if (d == null) continue; s += d; n++; }
        return n == 0 ? Double.NaN : s / n;
    }
    static int guarded(String s) {
        try { return Integer.parseInt(s.trim()); }
        catch (NumberFormatException e) { return -1; }
        catch (NullPointerException e) { return -2; }
    }
    static Object make(boolean a) { return new StringBuilder(a ? "yes" : "no").append(a ? 1 : 2L); }
    public static void main(String[] args) {
        System.out.println(new Work(5, true).base + " " + new Work("hello").base + " " + new Work((String) null).base);
        System.out.println(sum(new int[] {1, 2, 3, 4}) + " " + classify(7) + classify(-3) + classify(8));
        System.out.println(avg(Arrays.asList(1.0, null, 2.0)) + " " + guarded(" 42 ") + guarded("x") + guarded(null));
        System.out.println(make(true) + " " + make(false));
    }
}
""",
}


@pytest.fixture(scope="module")
def compiled(tmp_path_factory) -> tuple[Path, bytes, str]:
    out = javac(SOURCE, tmp_path_factory.mktemp("props") / "classes", "--release", "11")
    data = (out / "q" / "Work.class").read_bytes()
    expected = run([tool("java"), "-Xverify:all", "-cp", str(out), "q.Work"]).stdout
    return out, data, expected


@pytest.fixture(scope="module")
def hierarchy():
    return ClassHierarchy([], JdkImage(find_java_home()))


def _snippet(kind: int, body, pool) -> list:
    """A piece of code that leaves the stack and every existing local as it found them."""
    if kind == 0:
        return [Instruction(-1, op.NOP)]
    if kind == 1:
        return [Instruction(-1, op.LDC, pool.add_string("probe")), Instruction(-1, op.POP)]
    if kind == 2:  # a fresh long local
        slot = body.new_local(2)
        return [Instruction(-1, op.LCONST_1), Instruction(-1, op.LSTORE, slot)]
    if kind == 3:  # a forward branch over a call: a new branch target
        skip = Label("skip")
        return [
            Instruction(-1, op.ICONST_0),
            Instruction(-1, op.IFEQ, skip),
            Instruction(-1, op.INVOKESTATIC, pool.add_methodref("java/lang/Thread", "onSpinWait", "()V")),
            skip,
        ]
    # kind 4: a loop of our own, three rounds on a fresh int local (a backward branch)
    slot = body.new_local()
    top = Label("loop")
    return [
        Instruction(-1, op.ICONST_3),
        Instruction(-1, op.ISTORE, slot),
        top,
        Iinc(-1, slot, -1),
        Instruction(-1, op.ILOAD, slot),
        Instruction(-1, op.IFGT, top),
    ]


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.data())
def test_random_insertions_verify_and_behave(compiled, hierarchy, tmp_path_factory, data) -> None:
    classes, original, expected = compiled
    cf = read_class(original)
    pool = cf.pool
    for m in cf.methods:
        if m.code() is None or not data.draw(st.booleans(), label=f"edit {m.name}{m.descriptor}"):
            continue
        body = disassemble(m)
        positions = [i for i, x in enumerate(body.items)]
        # only at instruction boundaries where the stack is empty is a loop/branch snippet safe;
        # stack-neutral snippets (nop, ldc/pop) may go anywhere
        for _ in range(data.draw(st.integers(1, 4), label="insertions")):
            index = data.draw(st.sampled_from(positions + [len(body.items) - 1]), label="where")
            if _dead_position(body, index):
                # between a goto/return/athrow and the next label nothing runs; the JVM would want a
                # frame for such dead code (the editor does not invent frames for dead code)
                continue
            kind = data.draw(st.integers(0, 4), label="kind")
            if kind >= 2 and not _stack_empty_before(cf, m, body, index, hierarchy):
                kind = data.draw(st.integers(0, 1), label="neutral kind")
            if m.name == "<init>" and kind >= 2 and not _after_super(cf, m, body, index):
                kind = 0  # keep branches away from uninitialized `this` where javac never puts them
            body.insert(index, _snippet(kind, body, pool))
            positions = list(range(len(body.items)))
        complete_frames(
            body,
            pool=pool,
            hierarchy=hierarchy,
            this_class=cf.name,
            method_name=m.name,
            descriptor=m.descriptor,
            is_static=bool(m.access & ACC_STATIC),
        )
        write_body(m, body)
    out = tmp_path_factory.mktemp("edited")
    (out / "q").mkdir()
    (out / "q" / "Work.class").write_bytes(cf.to_bytes())
    got = run([tool("java"), "-Xverify:all", "-cp", str(out), "q.Work"], check=False)
    assert got.returncode == 0, got.stderr[-3000:]
    assert got.stdout == expected


def _stack_empty_before(cf, m, body, index: int, hierarchy) -> bool:
    """Whether the operand stack is empty before ``body.items[index]`` (by full type inference)."""
    from jprewrite.analysis.typeflow import infer_states

    cfg, states = infer_states(body, cf.pool, hierarchy, cf.name, m.name, m.descriptor, bool(m.access & ACC_STATIC))
    k = index
    while k < len(body.items) and isinstance(body.items[k], Label):
        k += 1
    st = states.get(k)
    if st is None:
        return False
    # a position inside a try range would put our new locals into handler frames: fine, they are
    # fresh; but positions reachable only by a jump (after goto/return) need their own frame
    prev = index - 1
    while prev >= 0 and isinstance(body.items[prev], Label):
        prev -= 1
    if prev >= 0 and body.items[prev].opcode in (
        op.GOTO,
        op.GOTO_W,
        op.ATHROW,
        op.RETURN,
        op.IRETURN,
        op.LRETURN,
        op.FRETURN,
        op.DRETURN,
        op.ARETURN,
        op.TABLESWITCH,
        op.LOOKUPSWITCH,
    ):
        return False
    return not st.stack


_ENDS = frozenset(
    (
        op.GOTO,
        op.GOTO_W,
        op.ATHROW,
        op.RETURN,
        op.IRETURN,
        op.LRETURN,
        op.FRETURN,
        op.DRETURN,
        op.ARETURN,
        op.TABLESWITCH,
        op.LOOKUPSWITCH,
    )
)


def _dead_position(body, index: int) -> bool:
    """Code inserted before items[index] would be unreachable (right after an unconditional transfer)."""
    k = index - 1
    if k >= 0 and isinstance(body.items[k], Label):
        return False
    return k >= 0 and body.items[k].opcode in _ENDS


def _after_super(cf, m, body, index: int) -> bool:
    for item in body.items[:index]:
        if (
            not isinstance(item, Label)
            and item.opcode == op.INVOKESPECIAL
            and cf.pool.member_ref(item.operand)[1] == "<init>"
        ):
            return True
    return False
