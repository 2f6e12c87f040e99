"""Where inserted code may throw while a monitor is held: HotSpot's monitor matching, kept true.

C2 compiles a method only if HotSpot's monitor analysis (``GenerateOopMap``) finds its monitors
balanced: every exception edge reaches its handler with the number of monitors that handler is
entered with elsewhere, and no exception leaves the method while one is held. The analysis counts
an edge from every instruction that may throw (``Bytecodes::can_trap``) to every handler whose row
covers it, up to the first catch-all row; ``aload_0`` never throws to it, a ``monitorexit`` only
when no monitor is held before it, a return only when one is.

javac's code keeps this with any counter in front of any instruction: the row of its catch-all
handler for a ``synchronized`` block covers the handler itself, and its rows end at the
``monitorexit``. Other compilers' do not. scalac's lazy vals end with a handler ``aload lock;
monitorexit; athrow`` that no row covers; Janino's catch-all row runs past the ``monitorexit`` to a
return. A counter (a ``getfield``, which may throw to the analysis) at such a handler's start, or
after such a ``monitorexit``, is an edge the original code never had, and C2 refused 251 of
scalac's methods ("non-empty monitor stack at exceptional exit", "monitor stack height merge
conflict"), ``Names.newTermName`` among them: they ran in C1's code for good.

:class:`MonitorDepths` is that analysis over the original code. :meth:`MonitorDepths.placement`
says, for code put in front of an original instruction, which rows must not cover it (their
handler is entered with another depth) and whether it needs a row of its own back to a catch-all
handler entered with its depth (a handler's own start, covered as javac covers it).
"""

from __future__ import annotations

from typing import Final

from ..analysis import blocks as B
from ..classfile import opcodes as op
from ..editor import Handler, Label
from ..editor.body import CodeBody

__all__ = ["MonitorDepths", "Row", "catch_all_entries", "handler_rows", "self_covering_rows"]

#: HotSpot's ``Bytecodes::can_trap`` (``aload_0`` left out: the analysis never follows it)
_CAN_TRAP: Final = frozenset(
    (
        op.LDC,
        op.LDC_W,
        op.LDC2_W,
        *range(op.IALOAD, op.SALOAD + 1),
        *range(op.IASTORE, op.SASTORE + 1),
        op.IDIV,
        op.LDIV,
        op.IREM,
        op.LREM,
        *range(op.GETSTATIC, op.INVOKEDYNAMIC + 1),
        op.NEW,
        op.NEWARRAY,
        op.ANEWARRAY,
        op.ARRAYLENGTH,
        op.ATHROW,
        op.CHECKCAST,
        op.INSTANCEOF,
        op.MONITORENTER,
        op.MONITOREXIT,
        op.MULTIANEWARRAY,
    )
)


#: an exception-table row as item indices: start, end, the handler's first instruction; the row
Row = tuple[int, int, int, Handler]


def handler_rows(body: CodeBody) -> list[Row]:
    """The body's exception-table rows by item index (read once, for the functions below)."""
    if not body.handlers:
        return []
    items = body.items
    at = {id(x): k for k, x in enumerate(items) if isinstance(x, Label)}
    rows: list[Row] = []
    for h in body.handlers:
        k = at[id(h.handler)]
        while k < len(items) and isinstance(items[k], Label):
            k += 1
        rows.append((at[id(h.start)], at[id(h.end)], k, h))
    return rows


def self_covering_rows(rows: list[Row]) -> dict[int, list[Handler]]:
    """Rows that cover their own handler's first instruction, by that instruction's item index.

    javac writes them (a ``synchronized`` block's catch-all handler covers itself; some ``finally``
    handlers too). C1 refuses a method in which an instruction that may throw lies in a handler's
    block and under that handler's own row ("exception handler covers itself"); the original's
    handler starts with ``astore`` and ``monitorexit``, which C1 does not count as throwing, but a
    counter put at its start would be such an instruction: the code put there leaves these rows.
    """
    out: dict[int, list[Handler]] = {}
    for s, e, entry, h in rows:
        if s <= entry < e:
            out.setdefault(entry, []).append(h)
    return out


def catch_all_entries(rows: list[Row]) -> dict[int, Label]:
    """The first instruction of each catch-all handler -> the handler's label: code put there that
    holds a monitor no row covers gets a row back to it, as javac's own handler of a
    ``synchronized`` block covers itself (C2-safe; C1 refuses such a row, so it is the last resort)."""
    out: dict[int, Label] = {}
    for _s, _e, entry, h in rows:
        if h.catch_type == 0:
            out.setdefault(entry, h.handler)
    return out


class MonitorDepths:
    """The monitors held before each instruction of a body, and at each handler's entry.

    ``balanced`` is False when the original code already fails HotSpot's analysis (C2 refuses it
    either way: nothing to keep) or holds no monitor at all (nothing can go wrong).
    """

    def __init__(self, body: CodeBody, rows: list[Row]) -> None:
        items = body.items
        self.balanced = False
        self.depth: list[int] = []
        self.entry: dict[int, int] = {}  # id(handler label) -> depth
        self._rows: list[tuple[int, int, Handler]] = []
        self._items = items
        if not any(not isinstance(x, Label) and x.opcode == op.MONITORENTER for x in items):
            return
        blocks = B.basic_blocks(body)  # all of them: successors are indices into this list
        self._rows = [(s, e, h) for s, e, _entry, h in rows]
        block_of = {b.start: b for b in blocks}
        handler_block = {id(h.handler): block_of[k] for _s, _e, k, h in rows if k in block_of}
        depth: list[int] = [-1] * len(items)
        entry = self.entry
        work = [(b, 0) for b in blocks if b.is_entry]
        while work:
            b, d = work.pop()
            known = depth[b.start]
            if known >= 0:
                if known != d:
                    return
                continue
            for k in range(b.start, b.end):
                x = items[k]
                if isinstance(x, Label):
                    continue
                depth[k] = d
                code = x.opcode
                if code in _CAN_TRAP or code in op.RETURN_OPCODES:
                    if code == op.MONITOREXIT and d > 0 or code in op.RETURN_OPCODES and d == 0:
                        pass  # edges the analysis does not follow
                    else:
                        for s, e, h in self._rows:
                            if s <= k < e:
                                hb = handler_block.get(id(h.handler))
                                if hb is not None:
                                    if entry.setdefault(id(h.handler), d) != d:
                                        return
                                    work.append((hb, d))
                                if h.catch_type == 0:
                                    break
                if code == op.MONITORENTER:
                    d += 1
                elif code == op.MONITOREXIT:
                    d -= 1
                    if d < 0:
                        return
            for succ in b.successors:
                work.append((blocks[succ], d))
        self.depth = depth
        self.balanced = True

    def release_point(self, start: int, end: int, own: list[Handler]) -> tuple[int, list[Handler]] | None:
        """For a block's code that would hold a monitor with nothing to catch what it throws at
        ``items[start]``: a ``monitorexit`` in ``items[start:end]`` right after which the code is safe
        once it leaves the rows returned (and ``own``, the rows of the block's own handler), with no
        instruction before it that may throw (so the block's counter, moved there, counts the
        same); or None."""
        items = self._items
        for k in range(start, end):
            x = items[k]
            if isinstance(x, Label):
                continue
            code = x.opcode
            if code == op.MONITOREXIT:
                wrong, uncaught = self._rule(k, self.depth[k] - 1, own)
                return None if uncaught else (k, wrong)
            if code in _CAN_TRAP or code in op.RETURN_OPCODES:
                return None
        return None

    def placement(self, index: int, own: list[Handler]) -> tuple[list[Handler], bool]:
        """For code that may throw, put in front of the original instruction ``items[index]``: the
        rows that cover that instruction but must not cover the code (``own``, and those whose
        handler is entered holding another number of monitors), and whether the code then holds a
        monitor with no catch-all row left to cover it (an exception would leave the method holding
        it)."""
        d = self.depth[index] if 0 <= index < len(self.depth) else -1
        if not self.balanced or d < 0:
            return list(own), False
        return self._rule(index, d, own)

    def _rule(self, index: int, d: int, own: list[Handler]) -> tuple[list[Handler], bool]:
        """The rows covering ``items[index]`` that code holding ``d`` monitors there must leave, and
        whether it is then uncaught while holding one."""
        wrong: list[Handler] = []
        caught = False
        for s, e, h in self._rows:
            if s <= index < e:
                if any(h is o for o in own) or self.entry.get(id(h.handler), d) != d:
                    wrong.append(h)
                elif h.catch_type == 0:
                    caught = True
                    break
        return wrong, d > 0 and not caught
