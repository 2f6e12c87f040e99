"""Basic blocks, loops and activation-counter paths (jprewrite.analysis.blocks).

Expected blocks are written by hand from ``javap -c`` listings of the javac
output (shown in comments as ``offset: size -> successor offsets``), for both
BBA modes. Hand-made code (jsr/ret subroutines, irreducible and bottom-tested
loops, dead code) goes into a version-49 class built with jprewrite's own
objects, which the JVM runs with the verifier on before it is analysed.
Property checks then run over every method of java.base, in four shards.
"""

from __future__ import annotations

import pytest

from jprewrite.analysis.blocks import (
    backward_jump_targets,
    basic_blocks,
    ends_block,
    longest_paths,
    loop_headers,
    may_throw,
    omittable_checks,
    update_points,
)
from jprewrite.archive.jdk_image import JdkImage, find_java_home
from jprewrite.classfile import opcodes as op
from jprewrite.classfile.model import ClassFile, read_class
from jprewrite.classfile.opcodes import CONTROL_OPCODES, MAY_THROW_OPCODES
from jprewrite.editor import Label, disassemble
from jprewrite.editor.body import CodeBody, branch_targets

from support.handmade import insn as _I
from support.handmade import jsr_ret_class
from support.jdk import javac, run, tool

SOURCE = """
package t;

public class B {
    int f;
    static int counter;

    static int ifElse(int x) {
        int r;
        if (x > 0) r = 1; else r = -1;
        return r;
    }
    static int forLoop(int n) {
        int s = 0;
        for (int i = 0; i < n; i++) s += i;
        return s;
    }
    static int whileLoop(int n) {
        int s = 0;
        while (n > 0) { s += n; n--; }
        return s;
    }
    static int doWhile(int n) {
        int s = 0;
        do { s += n; n--; } while (n > 0);
        return s;
    }
    static int nested(int n) {
        int s = 0;
        for (int i = 0; i < n; i++)
            for (int j = 0; j < i; j++)
                s += j;
        return s;
    }
    static int labelled(int n) {
        int s = 0;
        outer:
        for (int i = 0; i < n; i++) {
            for (int j = 0; j < n; j++) {
                if (j == i) continue outer;
                if (j > 5) break outer;
                s++;
            }
        }
        return s;
    }
    static int table(int k) {
        switch (k) {
            case 1: return 10;
            case 2: return 20;
            case 4: return 40;
            default: return 0;
        }
    }
    static int lookup(int k) {
        switch (k) {
            case 1: return 10;
            case 100: return 20;
            case 1000: return 30;
            default: return 0;
        }
    }
    static int tryCatchFinally(String s) {
        try {
            return Integer.parseInt(s);
        } catch (NumberFormatException e) {
            return -1;
        } finally {
            counter++;
        }
    }
    void sync(Object o) {
        synchronized (o) {
            f++;
        }
    }
    static int callMiddle(String s, int[] a) {
        int x = 1;
        int y = s.length();
        int z = x + y;
        return z + a[0];
    }
    void f() {
        for (int i = 1; i <= 10; ++i) {
            h();
            g(i);
        }
    }
    void g(int i) {
        for (int j = 1; j <= i; ++j)
            h();
    }
    void h() {
    }
    void fWhile() {
        int i = 1;
        while (true) {
            if (i <= 10) {
                h();
                g(i);
                ++i;
            } else {
                return;
            }
        }
    }
    void spin() {
        while (true) h();
    }
    static int partial(String s) {
        int x = 1;
        try {
            s.length();
        } catch (RuntimeException e) {
            return -1;
        }
        return x;
    }
    static int dups(int k) {
        switch (k) {
            case 1: case 2: case 3: case 5: case 7: return 1;
            case 4: return 2;
            default: return 0;
        }
    }
    static Object consts() {
        Object a = "a";
        Object c = B.class;
        int big = 100000;
        return big > 1 ? a : c;
    }
}
"""


@pytest.fixture(scope="module")
def classes(tmp_path_factory) -> dict[str, ClassFile]:
    out = javac({"t/B.java": SOURCE}, tmp_path_factory.mktemp("blocks") / "classes", "-g")
    return {"B": read_class((out / "t" / "B.class").read_bytes())}


class Analysed:
    """One method, disassembled and cut into blocks, with offsets to describe them."""

    def __init__(self, cf: ClassFile, name: str, mode: str = "default", *, use_pool: bool = True) -> None:
        self.method = cf.method(name)
        assert self.method is not None, name
        self.body = disassemble(self.method)
        self.blocks = basic_blocks(self.body, mode, pool=cf.pool if use_pool else None)
        self.offsets = [i.offset for i in self.method.code().instructions()]

    def off(self, b: int) -> int:
        return self.offsets[self.blocks[b].first]

    def idx(self, offset: int) -> int:
        for b in self.blocks:
            if self.offsets[b.first] == offset:
                return b.index
        raise KeyError(offset)

    def shape(self) -> list[tuple]:
        """[(start offset, size, sorted successor offsets, sorted handler offsets)]."""
        return [
            (
                self.off(b.index),
                b.size,
                sorted(self.off(s) for s in b.successors),
                sorted(self.off(s) for s in b.exception_successors),
            )
            for b in self.blocks
        ]

    def offs(self, indices) -> set[int]:
        return {self.off(b) for b in indices}

    def by_offset(self, mapping: dict[int, int]) -> dict[int, int]:
        return {self.off(b): v for b, v in mapping.items()}

    def jp_paths(self) -> dict[int, int]:
        """JP's activation-counter decrements, keyed by block offset."""
        loops = backward_jump_targets(self.body, self.blocks)
        return self.by_offset(longest_paths(self.body, self.blocks, update_points(self.blocks, loops)))


# --------------------------------------------------------------------------- javac methods, both modes
SAME = "same as default"

EXPECTED = {
    "ifElse": ([(0, 2, [4, 9], []), (4, 3, [11], []), (9, 2, [11], []), (11, 2, [], [])], SAME),
    "forLoop": ([(0, 4, [4], []), (4, 3, [9, 19], []), (9, 6, [4], []), (19, 2, [], [])], SAME),
    "whileLoop": ([(0, 2, [2], []), (2, 2, [6, 16], []), (6, 6, [2], []), (16, 2, [], [])], SAME),
    # the do-while body is one block that loops to itself
    "doWhile": ([(0, 2, [2], []), (2, 7, [2, 13], []), (13, 2, [], [])], SAME),
    "nested": (
        [
            (0, 4, [4], []),
            (4, 3, [9, 32], []),
            (9, 2, [11], []),
            (11, 3, [16, 26], []),
            (16, 6, [11], []),
            (26, 2, [4], []),
            (32, 2, [], []),
        ],
        SAME,
    ),
    "labelled": (
        [
            (0, 4, [4], []),
            (4, 3, [9, 47], []),
            (9, 2, [11], []),
            (11, 3, [16, 41], []),
            (16, 3, [21, 24], []),
            (21, 1, [41], []),
            (24, 3, [29, 32], []),
            (29, 1, [47], []),
            (32, 3, [11], []),
            (41, 2, [4], []),
            (47, 2, [], []),
        ],
        SAME,
    ),
    # tableswitch: case 3 and default share 41
    "table": ([(0, 2, [32, 35, 38, 41], []), (32, 2, [], []), (35, 2, [], []), (38, 2, [], []), (41, 2, [], [])], SAME),
    "lookup": (
        [(0, 2, [36, 39, 42, 45], []), (36, 2, [], []), (39, 2, [], []), (42, 2, [], []), (45, 2, [], [])],
        SAME,
    ),
    # eight table entries, three distinct targets
    "dups": ([(0, 2, [44, 46, 48], []), (44, 2, [], []), (46, 2, [], []), (48, 2, [], [])], SAME),
    # [0,5)->15 NumberFormatException, [0,5)->28 any, [15,18)->28 any
    "tryCatchFinally": (
        [(0, 9, [], [15, 28]), (15, 9, [], [28]), (28, 7, [], [])],
        [
            (0, 2, [4], [15, 28]),  # aload_0 invokestatic
            (4, 2, [8], [15, 28]),  # istore_1 getstatic (offset 4 is still in [0,5))
            (8, 3, [13], []),  # iconst_1 iadd putstatic
            (13, 2, [], []),  # iload_1 ireturn
            (15, 4, [21], [28]),  # astore_1 iconst_m1 istore_2 getstatic
            (21, 3, [26], []),
            (26, 2, [], []),
            (28, 2, [32], []),
            (32, 3, [37], []),
            (37, 2, [], []),
        ],
    ),
    # [4,16)->19 any, [19,22)->19 any (the handler covers itself)
    "sync": (
        [(0, 13, [24], [19]), (19, 5, [], [19]), (24, 1, [], [])],
        [
            (0, 4, [4], []),  # aload_1 dup astore_2 monitorenter: before the range
            (4, 3, [9], [19]),  # aload_0 dup getfield
            (9, 3, [14], [19]),  # iconst_1 iadd putfield
            (14, 2, [16], [19]),  # aload_2 monitorexit
            (16, 1, [24], []),  # goto: offset 16 is the end of the range
            (19, 3, [22], [19]),  # astore_3 aload_2 monitorexit
            (22, 2, [], []),  # aload_3 athrow
            (24, 1, [], []),
        ],
    ),
    # a throwing call in the middle of a default block; the array load too
    "callMiddle": ([(0, 15, [], [])], [(0, 4, [6], []), (6, 9, [17], []), (17, 2, [], [])]),
    # the handler range [2,7) covers the middle of the first default block
    "partial": (
        [(0, 6, [13], [10]), (10, 3, [], []), (13, 2, [], [])],
        [(0, 4, [6], [10]), (6, 2, [13], [10]), (10, 3, [], []), (13, 2, [], [])],
    ),
    # ends in a goto, loops to the entry
    "spin": ([(0, 3, [0], [])], [(0, 2, [4], []), (4, 1, [0], [])]),
    # ldc of a String or an int does not throw, ldc of a Class may
    "consts": (
        [(0, 9, [14, 18], []), (14, 2, [19], []), (18, 1, [19], []), (19, 1, [], [])],
        [(0, 3, [5], []), (5, 6, [14, 18], []), (14, 2, [19], []), (18, 1, [19], []), (19, 1, [], [])],
    ),
    # JP Fig. 4/5: blocks of 2, 3, 7 and 1 bytecodes; precisely, 3 blocks inside the if
    "f": (
        [(0, 2, [2], []), (2, 3, [8, 23], []), (8, 7, [2], []), (23, 1, [], [])],
        [(0, 2, [2], []), (2, 3, [8, 23], []), (8, 2, [12], []), (12, 3, [17], []), (17, 2, [2], []), (23, 1, [], [])],
    ),
    "g": (
        [(0, 2, [2], []), (2, 3, [7, 17], []), (7, 4, [2], []), (17, 1, [], [])],
        [(0, 2, [2], []), (2, 3, [7, 17], []), (7, 2, [11], []), (11, 2, [2], []), (17, 1, [], [])],
    ),
    "h": ([(0, 1, [], [])], SAME),
}


@pytest.mark.parametrize("name", sorted(EXPECTED))
@pytest.mark.parametrize("mode", ["default", "precise"])
def test_javac_blocks(classes, name, mode) -> None:
    default, precise = EXPECTED[name]
    expected = default if mode == "default" or precise == SAME else precise
    a = Analysed(classes["B"], name, mode)
    assert a.shape() == expected
    assert a.blocks[0].is_entry and not any(b.is_entry for b in a.blocks[1:])
    handlers = {off for _, _, _, exc in expected for off in exc}
    assert {a.off(b.index) for b in a.blocks if b.is_handler} == handlers
    _check_structure(a.body, a.blocks, mode, a.method.pool)


def test_precise_ldc_without_pool_ends_every_ldc_block(classes) -> None:
    a = Analysed(classes["B"], "consts", "precise", use_pool=False)
    assert a.shape()[:4] == [(0, 1, [2], []), (2, 2, [5], []), (5, 2, [8], []), (8, 4, [14, 18], [])]


def test_while_true_and_for_compile_alike_as_the_paper_says(classes) -> None:
    for mode in ("default", "precise"):
        assert Analysed(classes["B"], "f", mode).shape() == Analysed(classes["B"], "fWhile", mode).shape()


# --------------------------------------------------------------------------- loops and JP section 5.2
LOOPS = {  # method -> loop start offsets (retreating-edge targets and backward-jump targets agree)
    "ifElse": set(),
    "forLoop": {4},
    "whileLoop": {2},
    "doWhile": {2},
    "nested": {4, 11},
    "labelled": {4, 11},
    "table": set(),
    "tryCatchFinally": set(),
    "sync": set(),
    "f": {2},
    "g": {2},
    "h": set(),
    "spin": {0},
    "partial": set(),
    "callMiddle": set(),
}


@pytest.mark.parametrize("name", sorted(LOOPS))
@pytest.mark.parametrize("mode", ["default", "precise"])
def test_loops(classes, name, mode) -> None:
    a = Analysed(classes["B"], name, mode)
    assert a.offs(loop_headers(a.body, a.blocks)) == LOOPS[name]
    assert a.offs(backward_jump_targets(a.body, a.blocks)) == LOOPS[name]


def test_exceptional_loop_headers(classes) -> None:
    a = Analysed(classes["B"], "sync")
    assert a.offs(loop_headers(a.body, a.blocks, exceptional=True)) == {19}
    a = Analysed(classes["B"], "tryCatchFinally")
    assert loop_headers(a.body, a.blocks, exceptional=True) == set()


# activationCounter decrements at JP's update points (entry, handlers, subroutines, loops)
PATHS = {
    # JP Fig. 8: "activationCounter -= 2" at the entry, "-= 10" (3 + 7) in the loop
    "f": {0: 2, 2: 10},
    "g": {0: 2, 2: 7},
    "h": {0: 1},
    "forLoop": {0: 4, 4: 9},
    "doWhile": {0: 2, 2: 9},  # the self loop stops at its own header
    "nested": {0: 4, 4: 5, 11: 9},  # 4: 3 + 2 (then the inner header); 11: 3 + 6
    "labelled": {0: 4, 4: 5, 11: 12},  # 11 -> 16 -> 24 -> 29 -> 47: 3 + 3 + 3 + 1 + 2
    "table": {0: 4},
    "tryCatchFinally": {0: 9, 15: 9, 28: 7},
    "sync": {0: 14, 19: 5},
    "spin": {0: 3},
}


@pytest.mark.parametrize("name", sorted(PATHS))
@pytest.mark.parametrize("mode", ["default", "precise"])
def test_longest_paths(classes, name, mode) -> None:
    # precise blocks split paths, never lengthen or shorten them (no loop starts move)
    assert Analysed(classes["B"], name, mode).jp_paths() == PATHS[name]


OMIT_ENTRY_CHECK = {
    "f": True,
    "g": True,
    "h": True,
    "forLoop": True,
    "ifElse": True,
    "tryCatchFinally": False,
    "callMiddle": False,
    "spin": False,
    "sync": True,
    "partial": False,
    "nested": True,
}


@pytest.mark.parametrize("name", sorted(OMIT_ENTRY_CHECK))
def test_omittable_entry_check(classes, name) -> None:
    # f: "The conditional is present in the loop, but not in the beginning of the method";
    # spin: the entry is the loop start, its conditional is the loop's.
    a = Analysed(classes["B"], name)
    loops = backward_jump_targets(a.body, a.blocks)
    assert omittable_checks(a.body, a.blocks, loops) == ({0} if OMIT_ENTRY_CHECK[name] else set())


def test_longest_paths_needs_loop_check_points(classes) -> None:
    a = Analysed(classes["B"], "f")
    with pytest.raises(ValueError, match="cycle"):
        longest_paths(a.body, a.blocks, {0})


# --------------------------------------------------------------------------- labels
def test_labels_are_reused_or_inserted_and_nothing_else_changes(classes) -> None:
    m = classes["B"].method("labelled")
    body = disassemble(m)
    before = list(body.items)
    blocks = basic_blocks(body, "default")
    after = body.items
    assert [x for x in after if not isinstance(x, Label) or any(x is y for y in before)] == [
        x for x in before
    ]  # the old items, in order, same objects
    for b in blocks:
        assert after[b.start - 1] is b.label
        assert not isinstance(after[b.start], Label) and not isinstance(after[b.end - 1], Label)
    targets = {id(t) for insn in body.instructions() for t in branch_targets(insn)}
    reused = [b for b in blocks if id(b.label) in targets]
    assert reused  # branch targets already had labels: used, not doubled
    n = len(after)
    basic_blocks(body, "default")
    assert len(body.items) == n  # a second analysis inserts nothing


@pytest.fixture(scope="module")
def jsr_class(tmp_path_factory) -> dict[str, ClassFile]:
    d = tmp_path_factory.mktemp("jsr")
    data = jsr_ret_class().to_bytes()
    (d / "J.class").write_bytes(data)
    # the hand-made code is valid: the JVM verifies and runs it
    out = run([tool("java"), "-Xverify:all", "-cp", str(d), "J"]).stdout.split()
    assert out == ["12", "16", "1112", "1116", "-2", "0", "10", "1", "fin", "7"]
    return {"J": read_class(data)}


def test_jsr_ret_one_subroutine(jsr_class) -> None:
    a = Analysed(jsr_class["J"], "sub")
    # 0: iload ifeq | 4: jsr 21 | 7: iinc goto | 13: jsr 21 | 16: iinc | 19: iload ireturn
    # 21: astore iinc ret -> after both jsrs
    assert a.shape() == [
        (0, 2, [4, 13], []),
        (4, 1, [21], []),
        (7, 2, [19], []),
        (13, 1, [21], []),
        (16, 1, [19], []),
        (19, 2, [], []),
        (21, 3, [7, 16], []),
    ]
    assert a.offs(b.index for b in a.blocks if b.is_subroutine) == {21}
    assert a.offs(loop_headers(a.body, a.blocks)) == set()
    assert a.offs(backward_jump_targets(a.body, a.blocks)) == {7, 16}  # ret goes back
    assert a.offs(backward_jump_targets(a.body, a.blocks, ret_edges=False)) == set()
    # entry: 2 + 1 up to the subroutine; subroutine: 3 + (7: 2 + 2)
    assert a.jp_paths() == {0: 3, 21: 3, 7: 4, 16: 3}  # return sites 7 and 16 are loop starts
    loops = backward_jump_targets(a.body, a.blocks, ret_edges=False)
    assert a.by_offset(longest_paths(a.body, a.blocks, update_points(a.blocks, loops))) == {0: 3, 21: 7}
    assert omittable_checks(a.body, a.blocks, loops) == {0}


def test_jsr_ret_nested_subroutines(jsr_class) -> None:
    a = Analysed(jsr_class["J"], "nest")
    shape = a.shape()
    offs = [s[0] for s in shape]
    # 0 iload ifeq | 4 jsr S | 7 iinc goto | 13 jsr S | 16 iinc | 19 iload ireturn
    # 21 S: astore iinc jsr T | 28 iinc ret | 33 T: astore (wide) iinc ret
    assert offs == [0, 4, 7, 13, 16, 19, 21, 28, 33]
    assert shape[6] == (21, 3, [33], [])
    assert shape[7] == (28, 2, [7, 16], [])  # S returns after the jsrs to S
    assert shape[8] == (33, 3, [7, 16, 28], [])  # T after its jsr, or from S too (multi-level ret)
    assert a.offs(b.index for b in a.blocks if b.is_subroutine) == {21, 33}
    paths = a.jp_paths()
    assert paths[0] == 3 and paths[21] == 3  # the entry runs to a jsr, S to the jsr to T


def test_jsr_ret_finally_with_handler(jsr_class) -> None:
    for mode in ("default", "precise"):
        a = Analysed(jsr_class["J"], "fin", mode)
        # 0 aload invokestatic istore jsr | 8 iload ireturn | 10 H: astore jsr | 14 aload athrow
        # 16 F: astore getstatic ldc invokevirtual ret; the handler range is [0, 5)
        if mode == "default":
            assert a.shape() == [
                (0, 4, [16], [10]),
                (8, 2, [], []),
                (10, 2, [16], []),
                (14, 2, [], []),
                (16, 5, [8, 14], []),
            ]
        else:
            assert a.shape() == [
                (0, 2, [4], [10]),
                (4, 2, [16], [10]),
                (8, 2, [], []),
                (10, 2, [16], []),
                (14, 2, [], []),
                (16, 2, [20], []),
                (20, 2, [25], []),
                (25, 1, [8, 14], []),
            ]
        _check_structure(a.body, a.blocks, mode, a.method.pool)


def test_irreducible_loop(jsr_class) -> None:
    a = Analysed(jsr_class["J"], "irr")
    # 0 iload ifeq B | 4 A: iinc iload ifle end | 11 B: iinc iload ifgt A | 18 end: iload ireturn
    assert a.shape() == [(0, 2, [4, 11], []), (4, 3, [11, 18], []), (11, 3, [4, 18], []), (18, 2, [], [])]
    assert a.offs(loop_headers(a.body, a.blocks)) == {4}  # DFS: 0 -> 4 -> 11 -> 4 retreats
    assert a.offs(backward_jump_targets(a.body, a.blocks)) == {4}
    assert a.jp_paths() == {0: 7, 4: 8}  # 0: 2 + (11: 3 + 2); 4: 3 + 3 + 2
    with pytest.raises(ValueError, match="cycle"):
        longest_paths(a.body, a.blocks, {0})
    # the loop's other entry breaks the cycle just as well
    assert a.by_offset(longest_paths(a.body, a.blocks, {0, a.idx(11)})) == {0: 7, 11: 8}


def test_bottom_tested_loop_headers_differ(jsr_class) -> None:
    a = Analysed(jsr_class["J"], "bottom")
    # 0 iconst istore goto B | 5 A: iload iload iadd istore iinc | 12 B: iload ifgt A | 16 iload ireturn
    assert a.shape() == [(0, 3, [12], []), (5, 5, [12], []), (12, 2, [5, 16], []), (16, 2, [], [])]
    assert a.offs(loop_headers(a.body, a.blocks)) == {12}  # the DFS enters the loop at the test
    assert a.offs(backward_jump_targets(a.body, a.blocks)) == {5}  # JP: the backward jump's target
    assert a.jp_paths() == {0: 7, 5: 9}
    lh = loop_headers(a.body, a.blocks)
    assert a.by_offset(longest_paths(a.body, a.blocks, update_points(a.blocks, lh))) == {0: 3, 12: 7}


def test_unreachable_code(jsr_class) -> None:
    a = Analysed(jsr_class["J"], "dead")
    assert a.shape() == [(0, 2, [], []), (2, 1, [2], []), (5, 2, [], [])]
    assert [b.predecessors for b in a.blocks] == [[], [1], []]
    assert a.offs(loop_headers(a.body, a.blocks)) == {2}  # found from an extra DFS root
    assert a.offs(backward_jump_targets(a.body, a.blocks)) == {2}
    assert a.jp_paths() == {0: 2, 2: 1}
    assert omittable_checks(a.body, a.blocks, {1}) == {0}


def test_ret_outside_any_subroutine_may_return_after_any_jsr() -> None:
    S, dead = Label(), Label()
    items = [
        _I(op.JSR, S),
        _I(op.JSR, S),
        _I(op.RETURN),
        S,
        _I(op.ASTORE, 0),
        _I(op.RET, 0),
        dead,
        _I(op.RET, 0),
    ]  # unreachable ret: no subroutine reaches it
    body = CodeBody(items=items, max_locals=1)
    blocks = basic_blocks(body, "default")
    assert [(b.first, b.size, b.successors) for b in blocks] == [
        (0, 1, [3]),
        (1, 1, [3]),
        (2, 1, []),
        (3, 2, [1, 2]),
        (5, 1, [1, 2]),
    ]


def test_bad_mode_and_empty_body() -> None:
    with pytest.raises(ValueError):
        basic_blocks(CodeBody(items=[_I(op.RETURN)]), "fast")  # type: ignore[arg-type]
    assert basic_blocks(CodeBody(items=[]), "precise") == []


def test_opcode_tables() -> None:
    assert MAY_THROW_OPCODES.isdisjoint(
        {
            op.IADD,
            op.FDIV,
            op.DREM,
            op.ILOAD,
            op.IINC,
            op.GOTO,
            op.JSR,
            op.RET,
            op.TABLESWITCH,
            op.NOP,
            op.DUP,
            op.I2L,
            op.LCMP,
        }
    )
    assert {
        op.IDIV,
        op.LREM,
        op.AASTORE,
        op.ARRAYLENGTH,
        op.INSTANCEOF,
        op.MONITOREXIT,
        op.INVOKEDYNAMIC,
        op.MULTIANEWARRAY,
        op.PUTSTATIC,
    } <= MAY_THROW_OPCODES
    assert op.INVOKEVIRTUAL not in CONTROL_OPCODES and op.JSR in CONTROL_OPCODES
    assert may_throw(_I(op.LDC, 1)) and not ends_block(_I(op.IDIV), "default")


# --------------------------------------------------------------------------- java.base properties
def _check_structure(body: CodeBody, blocks, mode: str, pool) -> None:
    """Invariants of a block list (see test_java_base_properties)."""
    items = body.items
    insns = [x for x in items if not isinstance(x, Label)]
    n = len(insns)
    # every instruction in exactly one block, in order; sizes add up
    assert [b.first for b in blocks] == sorted(b.first for b in blocks)
    pos = 0
    for b in blocks:
        assert b.first == pos and b.size >= 1
        assert items[b.start - 1] is b.label
        chunk = [x for x in items[b.start : b.end] if not isinstance(x, Label)]
        assert len(chunk) == b.size and chunk[0] is insns[pos] and chunk[-1] is insns[pos + b.size - 1]
        # nothing inside a block ends it
        assert not any(ends_block(x, mode, pool) for x in chunk[:-1])
        pos += b.size
    assert pos == n
    # every branch/switch target and handler start begins a block
    label_ord: dict[int, int] = {}
    k = 0
    for x in items:
        if isinstance(x, Label):
            label_ord[id(x)] = k
        else:
            k += 1
    starts = {b.first for b in blocks}
    for insn in insns:
        for t in branch_targets(insn):
            assert label_ord[id(t)] in starts
    for h in body.handlers:
        assert label_ord[id(h.handler)] in starts
    # boundaries are all needed: after an instruction that ends a block, or at a target/handler
    needed = (
        {0}
        | {label_ord[id(t)] for insn in insns for t in branch_targets(insn)}
        | {label_ord[id(h.handler)] for h in body.handlers}
        | {i + 1 for i, x in enumerate(insns) if ends_block(x, mode, pool) and i + 1 < n}
    )
    assert starts == needed
    # edges are symmetric
    for b in blocks:
        for s in b.successors:
            assert b.index in blocks[s].predecessors
        for s in b.exception_successors:
            assert b.index in blocks[s].exception_predecessors and blocks[s].is_handler
        for p in b.predecessors:
            assert b.index in blocks[p].successors
        assert len(set(b.successors)) == len(b.successors)


def _check_method(body: CodeBody, pool) -> None:
    n_items = len(body.items)
    default = basic_blocks(body, "default", pool=pool)
    precise = basic_blocks(body, "precise", pool=pool)
    again = basic_blocks(body, "default", pool=pool)
    assert len(body.items) - n_items <= len(precise)  # only labels were added...
    assert [b.first for b in again] == [b.first for b in default]  # ...and they change nothing
    default = again
    n = sum(1 for x in body.items if not isinstance(x, Label))
    for mode, blocks in (("default", default), ("precise", precise)):
        _check_structure(body, blocks, mode, pool)
        assert sum(b.size for b in blocks) == n
        bj = backward_jump_targets(body, blocks)
        lh = loop_headers(body, blocks)
        for h in lh:  # a retreating edge enters each header
            assert blocks[h].predecessors
        for h in bj:  # a backward edge enters each loop start
            assert any(blocks[p].start >= blocks[h].start for p in blocks[h].predecessors)
        for loops in (bj, lh):
            cps = update_points(blocks, loops)
            paths = longest_paths(body, blocks, cps)
            assert set(paths) == cps
            for c, length in paths.items():
                assert blocks[c].size <= length <= n
        omittable_checks(body, blocks, bj)
    # precise refines default
    assert {b.first for b in default} <= {b.first for b in precise}


SHARDS = 4


@pytest.fixture(scope="module")
def java_base() -> JdkImage:
    return JdkImage(find_java_home())


@pytest.mark.parametrize("shard", range(SHARDS))
def test_java_base_properties(java_base, shard) -> None:
    """Every method of java.base (this shard: every SHARDS-th class), both modes.

    Checks: every instruction is in exactly one block and the sizes add up;
    block boundaries are exactly the entry, the branch/switch targets, the
    handler starts and the instructions after one that ends a block; the edges
    are symmetric; precise blocks refine default ones; loop starts give
    finite longest paths between size(block) and the instruction count.
    """
    failures = []
    methods = 0
    for i, (_, name, data) in enumerate(java_base.iter_classes("java.base")):
        if i % SHARDS != shard:
            continue
        cf = read_class(data)
        for m in cf.methods:
            if m.code() is None:
                continue
            methods += 1
            try:
                _check_method(disassemble(m), cf.pool)
            except Exception as e:  # noqa: BLE001 -- report every failing method
                failures.append(f"{name}.{m.name}{m.descriptor}: {type(e).__name__}: {e}")
    assert methods > 5000
    assert not failures, f"{len(failures)} methods fail:\n" + "\n".join(failures[:30])


def test_loop_closed_through_a_handler(java_base) -> None:
    """ObjectInputStream$1.run loops `while (cl != ObjectInputStream.class)` through catch blocks."""
    cf = read_class(java_base.find_class("java/io/ObjectInputStream$1"))
    m = cf.method("run", "()Ljava/lang/Boolean;")
    body = disassemble(m)
    blocks = basic_blocks(body, "default", pool=cf.pool)
    offsets = [i.offset for i in m.code().instructions()]
    head = next(b.index for b in blocks if offsets[b.first] == 5)  # 5: aload_1 ... if_acmpeq
    assert backward_jump_targets(body, blocks) == {head}  # 48: goto 5
    assert loop_headers(body, blocks) == set()  # no cycle of normal edges
    assert head in loop_headers(body, blocks, exceptional=True)
    assert omittable_checks(body, blocks, {head}) == {0}
