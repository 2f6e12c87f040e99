"""Basic blocks, loops and activation-counter path lengths of a method body (JP, Binder & Hulaas).

This module answers the questions JP's instrumentation asks of one method:

* :func:`basic_blocks` -- the basic-block analysis (BBA) of JP section 4, in
  its two built-in flavours, ``"default"`` and ``"precise"``, with the control
  flow graph (normal and exceptional edges);
* :func:`backward_jump_targets` and :func:`loop_headers` -- where loops start;
* :func:`update_points`, :func:`longest_paths` and :func:`omittable_checks` --
  where JP section 5.2 decrements ``rc.activationCounter``, by how much, and
  where the ``if (rc.activationCounter <= 0) rc.triggerReport(ic)`` conditional
  may be left out.

Bodies are :class:`jprewrite.editor.body.CodeBody` objects, as
:func:`jprewrite.editor.disassembler.disassemble` makes them. "Bytecodes" are
counted as JP counts them: one per *instruction* (``wide``-prefixed
instructions are one instruction, a ``tableswitch`` is one instruction).

Default BBA (JP section 4)
--------------------------
"only bytecodes that may change the control flow non-sequentially (i.e., jumps,
branches, return of method or JVM subroutine, exception throwing) end a basic
block. Method, constructor, or JVM subroutine invocations do not end basic
blocks". Here a block ends after every instruction of :data:`jprewrite.classfile.opcodes.CONTROL_OPCODES`
(conditional and unconditional branches, ``tableswitch``/``lookupswitch``,
the ``*return`` instructions, ``athrow``, ``ret``) and before every branch or
switch target and every exception-handler start. Invocations do not end
blocks. One deliberate difference from the paper: ``jsr`` *does* end a block
(the paper keeps a JVM subroutine call inside its block, like a method call).
The instruction after a ``jsr`` is where ``ret`` comes back to, so it has to
start a block for ``ret`` to have successors in the graph; the counts are the
same either way as long as no exception is thrown, since the subroutine counts
its own bytecodes.

Precise BBA and the counting convention with exceptions
-------------------------------------------------------
JP's precise BBA "ends a basic block after each bytecode that either may change
the control flow non-sequentially (as before), or may throw an exception". So
here a precise block additionally ends *after* every instruction of
:data:`jprewrite.classfile.opcodes.MAY_THROW_OPCODES` (and after an ``ldc`` that may throw, see
:func:`may_throw`): a may-throw instruction is always the *last* instruction of
its precise block. With JP's counter update at the *start* of each block
("In the beginning of each basic block it inserts a code sequence that
increments the instr counter by the number of bytecodes within the basic
block"), this gives the convention:

    **An instruction counts as executed when control reaches it and it starts
    executing, whether it completes normally or throws.** The instruction that
    throws an exception is counted; nothing after it in its block is (there is
    nothing after it). An exception thrown inside a callee counts the
    ``invoke*`` instruction of the caller, plus whatever the callee executed.

This is what a JDI single-step oracle sees: a ``StepEvent`` is reported at
each bytecode location *before* the instruction executes, so the throwing
instruction gets its event. The paper's own precise example agrees: in Fig. 5
"there would be 3 blocks ... within the if() statement, since the invocations
of h() and g(int) would both end a basic block": ``aload_0; invokevirtual h``
| ``aload_0; iload_1; invokevirtual g`` | ``iinc; goto`` -- the invocation is
the last bytecode of its block, counted with it.

The precision is exact with respect to the exceptions the JVM specification
lists for each instruction (JVMS 6.5, "Linking Exceptions" and "Run-time
Exceptions"). It cannot be exact for asynchronous exceptions
(``Thread.stop``, JVMS 2.10) or for ``VirtualMachineError`` s that "may be
thrown at any time" (``InternalError``, an ``OutOfMemoryError`` or
``StackOverflowError`` raised elsewhere than at an allocation or invocation):
with those, as in the default BBA, the rest of the block is over-counted.

Default blocks are over-counted when an exception leaves a block early, which
the paper accepts ("we always count all bytecodes in a basic block, even though
some of them may not be executed in case of an exception"). Every precise
block boundary is a default block boundary too (precise refines default).

Use for JP's instrumentation
----------------------------
::

    blocks = basic_blocks(body, "default", pool=cf.pool)  # or "precise"
    # instr counter: at each block start, += block.size
    loops = backward_jump_targets(body, blocks)           # JP: targets of backward jumps
    updates = update_points(blocks, loops)                # entry, handlers, subroutines, loops
    decrement = longest_paths(body, blocks, updates)      # activationCounter -= decrement[b]
    checks = ({0} | loops) - omittable_checks(body, blocks, loops)  # the <= 0 conditionals

Blocks, labels and mutation
---------------------------
:func:`basic_blocks` **may insert new** :class:`Label` **objects into**
``body.items``: every block needs a label at its start. It reuses the last
label of the run of labels directly before the block's first instruction, and
inserts a fresh label just before the instruction only when there is none.
Nothing else in the body changes (the labels are unreferenced, so the
assembled code is the same). Item indices (:attr:`Block.start`,
:attr:`Block.end`) are those *after* the insertion; insert new code for a
block at ``items[block.start]`` (right after ``block.label``, before the first
instruction) so that jumps to any label of that position run it. Any later
edit of ``body.items`` invalidates the indices, never the labels.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Final, Literal

from ..classfile import opcodes as op
from ..classfile.constants import ConstantPool
from ..classfile.instructions import Instruction
from ..editor.body import CodeBody, Label

__all__ = [
    "Block",
    "basic_blocks",
    "reachable_blocks",
    "loop_headers",
    "backward_jump_targets",
    "subroutine_entries",
    "update_points",
    "longest_paths",
    "omittable_checks",
    "may_throw",
    "ends_block",
    "Mode",
    "MODES",
]

Mode = Literal["default", "precise"]
MODES: Final = ("default", "precise")

# opcode -> what it does to blocks (tables of 256, indexed by opcode)
_END: Final = 1
_BRANCH: Final = 2
_SWITCH: Final = 3
_LDC: Final = 4


def _ends_table(precise: bool) -> bytes:
    t = bytearray(256)
    if precise:
        for o in op.MAY_THROW_OPCODES:
            t[o] = _END
        for o in op.LDC_OPCODES:
            t[o] = _LDC
    for o in op.CONTROL_OPCODES:
        t[o] = _END
    for o in op.BRANCH_OPCODES:
        t[o] = _BRANCH
    for o in op.SWITCH_OPCODES:
        t[o] = _SWITCH
    return bytes(t)


_ENDS_DEFAULT: Final = _ends_table(False)
_ENDS_PRECISE: Final = _ends_table(True)


def may_throw(insn, pool: ConstantPool | None = None) -> bool:
    """Whether ``insn`` may throw an exception (:data:`MAY_THROW_OPCODES`, plus resolving ``ldc``).

    Without ``pool`` every ``ldc`` is assumed to throw (safe for precise counting:
    one more block boundary, never a wrong count).
    """
    o = insn.opcode
    if o in op.MAY_THROW_OPCODES:
        return True
    if o in op.LDC_OPCODES:
        if pool is None:
            return True
        try:
            return pool.tag(insn.operand) not in op.SAFE_LDC_TAGS
        except Exception:  # noqa: BLE001 -- a bad index fails at resolution: it throws
            return True
    return False


def ends_block(insn, mode: Mode, pool: ConstantPool | None = None) -> bool:
    """Whether a block of ``mode`` ends after ``insn`` (whatever follows it)."""
    if insn.opcode in op.CONTROL_OPCODES:
        return True
    return mode == "precise" and may_throw(insn, pool)


@dataclass(eq=False, slots=True)
class Block:
    """A basic block: the instructions ``body.items[start:end]`` (labels in between skipped).

    ``successors`` are normal control flow (fall-through, branch and switch
    targets, the subroutine a ``jsr`` calls, where a ``ret`` may return);
    ``exception_successors`` are the handler blocks of every handler whose
    range overlaps this block (in exception-table order, any part of the block
    counts). ``predecessors``/``exception_predecessors`` are the reverse edges.
    All are block indices without duplicates.
    """

    index: int
    start: int  #: item index of the first instruction
    end: int  #: item index just after the last instruction
    label: Label  #: the label directly before ``items[start]``
    size: int  #: number of instructions ("bytecodes", JP's unit)
    first: int  #: ordinal of the first instruction among the body's instructions
    successors: list[int] = field(default_factory=list)
    predecessors: list[int] = field(default_factory=list)
    exception_successors: list[int] = field(default_factory=list)
    exception_predecessors: list[int] = field(default_factory=list)
    is_entry: bool = False  #: the method's first block
    is_handler: bool = False  #: starts an exception handler
    is_subroutine: bool = False  #: the target of a ``jsr`` (a JVM subroutine entry)

    # (written out, not generated: compiled by mypyc, a dataclass's generated __init__ runs interpreted)
    def __init__(
        self,
        index: int,
        start: int,
        end: int,
        label: Label,
        size: int,
        first: int,
        successors: list[int] | None = None,
        predecessors: list[int] | None = None,
        exception_successors: list[int] | None = None,
        exception_predecessors: list[int] | None = None,
        is_entry: bool = False,
        is_handler: bool = False,
        is_subroutine: bool = False,
    ) -> None:
        self.index = index
        self.start = start
        self.end = end
        self.label = label
        self.size = size
        self.first = first
        self.successors = [] if successors is None else successors
        self.predecessors = [] if predecessors is None else predecessors
        self.exception_successors = [] if exception_successors is None else exception_successors
        self.exception_predecessors = [] if exception_predecessors is None else exception_predecessors
        self.is_entry = is_entry
        self.is_handler = is_handler
        self.is_subroutine = is_subroutine

    @property
    def last(self) -> int:
        """Item index of the last instruction."""
        return self.end - 1

    def all_successors(self) -> list[int]:
        return self.successors + [s for s in self.exception_successors if s not in self.successors]

    def instructions(self, body: CodeBody) -> list:
        return [x for x in body.items[self.start : self.end] if not isinstance(x, Label)]

    def __repr__(self) -> str:
        flags = "".join(f for f, on in (("E", self.is_entry), ("H", self.is_handler), ("S", self.is_subroutine)) if on)
        return (
            f"Block({self.index}{' ' + flags if flags else ''} items[{self.start}:{self.end}] "
            f"size={self.size} -> {self.successors}"
            f"{' exc ' + str(self.exception_successors) if self.exception_successors else ''})"
        )


# ---------------------------------------------------------------------------- basic blocks
def basic_blocks(body: CodeBody, mode: Mode = "default", *, pool: ConstantPool | None = None) -> list[Block]:
    """The basic blocks of ``body`` in layout order, with the control flow graph.

    ``mode`` is ``"default"`` or ``"precise"`` (see the module documentation).
    ``pool`` (the class's constant pool) lets the precise mode keep an ``ldc``
    of a number or string inside its block; without it every ``ldc`` ends a
    precise block. Block 0 is the entry. Unreachable code forms blocks like
    any other (they have no predecessors).

    May insert labels into ``body.items`` (one before each block's first
    instruction that has none); changes nothing else.
    """
    if mode not in MODES:
        raise ValueError(f"mode must be 'default' or 'precise', not {mode!r}")
    precise = mode == "precise"
    items: list[Any] = body.items

    # -- 1. instruction ordinals; each label -> ordinal of the next instruction (n at the end)
    # (one typed loop: compiled, it costs a fraction of building the same lists with compress)
    # the instructions that end a block (or may, in precise mode) are noted on the way
    table: bytes = _ENDS_PRECISE if precise else _ENDS_DEFAULT
    insn_item: list[int] = []  # ordinal -> item index
    insns: list[Instruction] = []  # (typed: native attribute reads, compiled)
    enders: list[int] = []  # ordinals of the instructions the table names
    label_ord: dict[Any, int] = {}
    i: int = 0
    insn: Instruction
    for x in items:
        if isinstance(x, Label):
            label_ord[x] = len(insns)
        else:
            insn = x
            if table[insn.opcode]:
                enders.append(len(insns))
            insn_item.append(i)
            insns.append(insn)
        i += 1
    n = len(insns)
    if n == 0:
        return []

    def ordinal(lab: Label, what: str, allow_end: bool = False) -> int:
        k = label_ord.get(lab)
        if k is None:
            raise ValueError(f"{what} label {lab!r} is not in the body")
        if k == n and not allow_end:
            raise ValueError(f"{what} label {lab!r} is at the end of the code, not at an instruction")
        return k

    # -- 2. leaders: the entry, after every instruction that ends a block, every target, every handler
    leader: list[bool] = [False] * (n + 1)  # leader[n] is a sentinel for "after the last instruction"
    leader[0] = True
    for k in enders:
        kind = table[insns[k].opcode]
        if kind == _END:
            leader[k + 1] = True
        elif kind == _BRANCH:
            leader[k + 1] = True
            leader[ordinal(insns[k].operand, "branch target")] = True
        elif kind == _SWITCH:
            leader[k + 1] = True
            switch: Any = insns[k]
            leader[ordinal(switch.default, "switch default")] = True
            for t in switch.targets:
                leader[ordinal(t, "switch target")] = True
        elif may_throw(insns[k], pool):  # _LDC, precise mode
            leader[k + 1] = True
    handler_rows = []
    for h in body.handlers:
        s = ordinal(h.start, "handler range start", allow_end=True)
        e = ordinal(h.end, "handler range end", allow_end=True)
        t = ordinal(h.handler, "handler")
        leader[t] = True
        handler_rows.append((s, e, t))
    del leader[n]

    # -- 3. labels at block starts (reuse the one right before, else insert one), item indices
    starts: list[int] = [k for k in range(n) if leader[k]]
    nb = len(starts)
    block_labels: list = []
    needs: list[bool] = []  # a new label goes right before the block's first instruction
    missing = 0
    for k in starts:
        i = insn_item[k]
        if i and isinstance(items[i - 1], Label):
            block_labels.append(items[i - 1])
            needs.append(False)
        else:
            block_labels.append(Label())
            needs.append(True)
            missing += 1
    new_items: list | None = None
    if missing:
        new_items = []
        done = 0
        for b in range(nb):
            if not needs[b]:
                continue
            i = insn_item[starts[b]]
            new_items.extend(items[done:i])
            new_items.append(block_labels[b])
            done = i
        new_items.extend(items[done:])
    block_of = [0] * n
    blocks: list[Block] = []
    shift = 0  # labels inserted before the current block's first instruction
    for b, s in enumerate(starts):
        e = starts[b + 1] if b + 1 < nb else n
        block_of[s:e] = [b] * (e - s)
        if needs[b]:
            shift += 1
        blocks.append(Block(b, insn_item[s] + shift, insn_item[e - 1] + shift + 1, block_labels[b], e - s, s))
    if new_items is not None:
        items[:] = new_items
    blocks[0].is_entry = True

    # -- 4. normal edges
    branches = op.BRANCH_OPCODES
    switches = op.SWITCH_OPCODES
    control = op.CONTROL_OPCODES
    jsr_calls: list[tuple[int, int, int | None]] = []  # (calling block, subroutine block, return block)
    rets: list[int] = []
    for b, blk in enumerate(blocks):
        last_ord = blk.first + blk.size - 1
        insn = insns[last_ord]
        o = insn.opcode
        succ: list[int]
        if o in branches:
            target = block_of[label_ord[insn.operand]]
            if o in op.GOTO_OPCODES:
                succ = [target]
            elif o in op.JSR_OPCODES:
                succ = [target]
                blocks[target].is_subroutine = True
                jsr_calls.append((b, target, b + 1 if b + 1 < nb else None))
            else:
                succ = [b + 1, target] if b + 1 < nb and target != b + 1 else [target]
        elif o in switches:
            succ = []
            seen = set()
            for t in (insn.default, *insn.targets):  # type: ignore[attr-defined]
                tb = block_of[label_ord[t]]
                if tb not in seen:
                    seen.add(tb)
                    succ.append(tb)
        elif o == op.RET:
            succ = []
            rets.append(b)
        elif o in control:  # returns, athrow
            succ = []
        else:
            succ = [b + 1] if b + 1 < nb else []  # falls off the code: invalid, no successor
        blk.successors = succ
    if rets:
        _ret_edges(blocks, jsr_calls, rets)

    # -- 5. exceptional edges
    for s, e, t in handler_rows:
        hb = block_of[t]
        blocks[hb].is_handler = True
        if s >= e:
            continue
        for b in range(block_of[s], block_of[e - 1] + 1):
            exc = blocks[b].exception_successors
            if hb not in exc:
                exc.append(hb)

    # -- 6. reverse edges
    for blk in blocks:
        for s in blk.successors:
            blocks[s].predecessors.append(blk.index)
        for s in blk.exception_successors:
            blocks[s].exception_predecessors.append(blk.index)
    return blocks


def _ret_edges(blocks: list[Block], jsr_calls: list[tuple[int, int, int | None]], rets: list[int]) -> None:
    """Give every ``ret`` block the blocks it may return to.

    A subroutine's extent is what its entry reaches by normal and exceptional
    edges, a nested ``jsr`` being assumed to return (its block continues at its
    return site) and a ``ret`` stopping the walk. A ``ret`` so reached from
    subroutine S may return after any ``jsr`` to S and -- since the JVM allows a
    ``ret`` to return from several nested subroutines at once -- after any
    ``jsr`` to a subroutine that (transitively) calls S. A ``ret`` in no
    subroutine's extent (dead code, odd code) may return after any ``jsr`` at
    all. Conservative: more successors than the JVM may take, never fewer.
    """
    direct: dict[int, set[int]] = {}
    for _, sub, ret_block in jsr_calls:
        direct.setdefault(sub, set())
        if ret_block is not None:
            direct[sub].add(ret_block)
    jsr_block = {b: (sub, ret) for b, sub, ret in jsr_calls}
    ret_set = set(rets)
    owners: dict[int, set[int]] = {}  # ret block -> subroutines it belongs to
    called_from: dict[int, set[int]] = {s: set() for s in direct}  # sub -> subs that call it
    for sub in direct:
        seen = {sub}
        stack = [sub]
        while stack:
            b = stack.pop()
            if b in ret_set:
                owners.setdefault(b, set()).add(sub)
                nexts: list[int] = list(blocks[b].exception_successors)
            elif b in jsr_block:
                callee, ret_block = jsr_block[b]
                called_from[callee].add(sub)
                nexts = ([ret_block] if ret_block is not None else []) + blocks[b].exception_successors
            else:
                nexts = blocks[b].successors + blocks[b].exception_successors
            for x in nexts:
                if x not in seen:
                    seen.add(x)
                    stack.append(x)
    # sites(S) = direct(S) U sites(T) for every T calling S; fixpoint (cycles only in invalid code)
    sites = {s: set(v) for s, v in direct.items()}
    changed = True
    while changed:
        changed = False
        for s, callers in called_from.items():
            for t in callers:
                if not sites[t] <= sites[s]:
                    sites[s] |= sites[t]
                    changed = True
    everywhere = set().union(*direct.values()) if direct else set()
    for r in rets:
        subs = owners.get(r)
        targets = set().union(*(sites[s] for s in subs)) if subs else everywhere
        blocks[r].successors = sorted(targets)


# ---------------------------------------------------------------------------- loops
def backward_jump_targets(body: CodeBody, blocks: Sequence[Block], *, ret_edges: bool = True) -> set[int]:
    """JP's loop starts: blocks entered by a normal edge going backwards in layout order.

    An edge u -> v is backward when v starts at or before u (``v.start <=
    u.start``; a block jumping to itself counts). For branches and switches
    this is exactly "a jump to a lower (or the same) offset", which is how JP
    finds "the beginning of each loop"; ``jsr`` edges are included, and ``ret``
    edges too unless ``ret_edges`` is false, so that by default the set breaks
    *every* cycle of normal edges whatever the bytecode (every cycle of
    positions has a backward step: fall-through only goes forward). The price
    is a check at the return sites that lie before their subroutine's ``ret``
    (old-style ``finally`` code, class files before version 50 only); with
    ``ret_edges=False`` only jumps count, JP's literal rule, and a cycle closed
    by a ``ret`` is left to the subroutine-entry update points (then
    :func:`longest_paths` raises if one is not broken). Exceptional edges are
    never considered: they all lead to handler starts, which are update
    points of their own.

    This is the set the instrumentation should use for its loop checks: it is
    JP's own rule, it depends only on the layout (not on a traversal order),
    and it also catches loops that go round through an exception handler,
    which :func:`loop_headers` (normal edges) cannot see. Measured on the
    54,633 methods of java.base (JDK 17): ``loop_headers`` is always a subset
    of this set; the two differ in 47 methods, all of them loops closed only
    through a handler, such as ``ObjectInputStream$1.run`` (``catch
    (NoSuchMethodException e) { cl = cl.getSuperclass(); }`` then a backward
    ``goto``); this set is always a subset of ``loop_headers(...,
    exceptional=True)``, which adds the handlers whose range covers
    themselves (javac's ``synchronized`` and ``finally`` code).
    """
    out: set[int] = set()
    items: list[Any] = body.items
    by_index = _by_index(blocks)
    for u in blocks:
        if not ret_edges and items[u.last].opcode == op.RET:
            continue
        for v in u.successors:
            target = by_index.get(v)
            if target is not None and target.start <= u.start:
                out.add(v)
    return out


def _by_index(blocks: Sequence[Block]) -> dict[int, Block]:
    """``blocks`` by block index: all the blocks of a body, or a part (the live ones).

    The analyses below take either; a successor outside the part is no edge of its graph (dead
    code's edges never lead into live code's loops). Indexing the part by block index instead
    read the wrong blocks, or past its end, in a body with dead code before live code.
    """
    return {b.index: b for b in blocks}


def loop_headers(body: CodeBody, blocks: Sequence[Block], *, exceptional: bool = False) -> set[int]:
    """Targets of retreating edges: the loop headers, defined for irreducible flow too.

    A depth-first search runs from the entry block, then from every handler
    block not yet visited (in layout order), then from every block still not
    visited (unreachable code), following normal edges (and exceptional ones
    when ``exceptional``) in their list order. An edge u -> v is retreating when
    v is on the DFS stack at that moment (``u == v`` included); its target is a
    loop header. In a reducible graph these are exactly the natural-loop headers
    (targets of back edges, whose target dominates their source); in an
    irreducible one each cycle still gets at least one header (which one
    depends on the search order). Since every cycle of a graph contains a
    retreating edge of any complete DFS, making every header a check point
    leaves no cycle between check points.

    With ``exceptional=False`` (the default) a cycle that can only go round
    through an exceptional edge has no header: it passes a handler start, an
    update point, but would get no conditional check -- which is why the
    instrumentation should take its loop checks from
    :func:`backward_jump_targets`. With ``exceptional=True``, such cycles give
    headers too (and javac's ``synchronized`` handler, whose range covers
    itself, becomes its own header).
    """
    nb = len(blocks)
    if nb == 0:
        return set()
    succ = [
        (b.successors + [s for s in b.exception_successors if s not in b.successors]) if exceptional else b.successors
        for b in blocks
    ]
    state = bytearray(nb)  # 0 new, 1 on stack, 2 done
    headers: set[int] = set()
    roots = [0] + [b.index for b in blocks if b.is_handler] + list(range(nb))
    for root in roots:
        if state[root]:
            continue
        state[root] = 1
        stack = [(root, 0)]
        while stack:
            b, i = stack[-1]
            out = succ[b]
            if i < len(out):
                stack[-1] = (b, i + 1)
                v = out[i]
                if state[v] == 0:
                    state[v] = 1
                    stack.append((v, 0))
                elif state[v] == 1:
                    headers.add(v)
            else:
                state[b] = 2
                stack.pop()
    return headers


def reachable_blocks(blocks: Sequence[Block]) -> set[int]:
    """Indices of the blocks that control can reach from the entry (normal and exceptional edges).

    Everything else is dead code: it never runs, so transformations leave it as it is (no
    counters, checks or calls). Compilers and generators do emit it: ASM's COMPUTE_FRAMES turns
    unreachable code into ``nop…athrow`` with a frame ``[Throwable]`` on the stack, obfuscators
    append junk after the last return, and handlers may cover nothing reachable. A handler block
    counts as reachable when a reachable block lies in its range.
    """
    if not blocks:
        return set()
    seen = {0}
    stack = [0]
    while stack:
        for v in blocks[stack.pop()].all_successors():
            if v not in seen:
                seen.add(v)
                stack.append(v)
    return seen


def subroutine_entries(blocks: Sequence[Block]) -> set[int]:
    """Blocks that a ``jsr`` calls."""
    return {b.index for b in blocks if b.is_subroutine}


# ---------------------------------------------------------------------------- activation counter
def update_points(blocks: Sequence[Block], loops: Iterable[int]) -> set[int]:
    """Where JP decrements ``activationCounter`` (JP section 5.2).

    "activationCounter is updated in the beginning of each method, exception
    handler, and JVM subroutine, as well as in the beginning of each loop":
    the entry block, every handler block, every ``jsr`` target and ``loops``
    (the loop starts: :func:`backward_jump_targets`, or :func:`loop_headers`).
    """
    if not blocks:
        return set()
    out = {0, *loops}
    out.update(b.index for b in blocks if b.is_handler or b.is_subroutine)
    return out


def longest_paths(body: CodeBody, blocks: Sequence[Block], check_points: Iterable[int]) -> dict[int, int]:
    """For each check point c: the most bytecodes a path from c executes before the next one.

    This is what JP section 5.2 subtracts from ``activationCounter`` at c: "the
    number of bytecodes on the longest execution path until the next update or
    until the method terminates". A path starts with c's whole block, follows
    normal and exceptional edges, and stops when it reaches a check point
    (c itself included, as when a loop goes round) -- that block is not
    counted -- or a block without successors (return, athrow, ret with nowhere
    to go). Blocks are counted whole, an upper bound when an exceptional edge
    leaves one early. Example (JP Fig. 8): the loop check is decremented by
    3 + max(7, 1) = 10.

    The graph between check points must be acyclic, which it is when the check
    points include the entry, every handler start and every loop start of
    :func:`backward_jump_targets` or :func:`loop_headers` (:func:`update_points`
    gives such a set); otherwise a ValueError names a block on an unbroken cycle.
    """
    position = {b.index: i for i, b in enumerate(blocks)}  # blocks may be a part (see _by_index)
    for c in check_points:
        if c not in position:
            raise ValueError(f"check point {c} is not one of the blocks")
    cps = {position[c] for c in check_points}
    nb = len(blocks)
    succ = [[position[v] for v in b.all_successors() if v in position] for b in blocks]
    size = [b.size for b in blocks]
    # tail[b]: longest count from b (inclusive) to the next check point (exclusive)
    tail: list[int] = [-1] * nb
    state = bytearray(nb)  # 0 new, 1 in progress, 2 done

    def solve(root: int) -> int:
        # iterative post-order over non-check-point blocks below root
        stack = [(root, 0)]
        state[root] = 1
        while stack:
            b, i = stack[-1]
            out = succ[b]
            if i < len(out):
                stack[-1] = (b, i + 1)
                v = out[i]
                if v in cps or state[v] == 2:
                    continue
                if state[v] == 1:
                    raise ValueError(f"block {v} is on a cycle that no check point breaks")
                state[v] = 1
                stack.append((v, 0))
            else:
                best = 0
                for v in out:
                    if v not in cps and tail[v] > best:
                        best = tail[v]
                tail[b] = size[b] + best
                state[b] = 2
                stack.pop()
        return tail[root]

    result: dict[int, int] = {}
    for c in sorted(cps):
        # solved as a root: its successors that are check points (itself included) end the path
        result[blocks[c].index] = solve(c)
    return result


def omittable_checks(body: CodeBody, blocks: Sequence[Block], loop_checks: Iterable[int]) -> set[int]:
    """Checks JP leaves out: ``{0}`` when the method-entry conditional may go, else ``set()``.

    JP section 5.2: "The conditional that checks whether triggerReport(IC) has
    to be called is inserted in the beginning of each method and in each loop,
    in order to ensure that it is present in recursions and iteration. As an
    optimization, we omit the conditional in the beginning of a method, if
    before invoking any method/constructor, each execution path either
    terminates or passes by an otherwise inserted conditional. For instance,
    this optimization allows to remove the check in the beginning of leaf
    methods."

    Implemented rule: starting at the entry block, walk normal and exceptional
    edges (``jsr`` into subroutines, ``ret`` back out); do not go past a block of
    ``loop_checks`` (its conditional is "otherwise inserted", at its start).
    The entry conditional may be omitted iff no block so visited contains an
    ``invoke*`` instruction (:data:`INVOKE_OPCODES`; ``invokedynamic`` counts,
    its call site invokes a method). Paths that end (return, athrow with no
    handler) are fine. When the entry block is itself a loop start, its
    conditional is the loop's and is never omitted. Loop conditionals are never
    omitted. Class initialisation triggered by ``new``/``getstatic``/... is not
    an invocation: it runs once, so it cannot recurse without bound.
    """
    if not blocks:
        return set()
    loops = set(loop_checks)
    if 0 in loops:
        return set()
    items: list[Any] = body.items
    by_index = _by_index(blocks)
    seen = {0}
    stack = [0]
    while stack:
        b = stack.pop()
        blk = by_index[b]
        for x in items[blk.start : blk.end]:
            if not isinstance(x, Label) and x.opcode in op.INVOKE_OPCODES:
                return set()
        for v in blk.all_successors():
            if v not in seen and v not in loops and v in by_index:
                seen.add(v)
                stack.append(v)
    return {0}
