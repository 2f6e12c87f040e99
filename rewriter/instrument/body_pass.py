"""One pass over an instrumented body: counters at block starts, call sites, allocations, init publishes.

Shared by every shape that keeps an original body (ESI twins, OSI constructors and
``<clinit>``, outlined parts). Dead code never runs: it gets no counters, checks or calls and
keeps its frames as they are (its call sites still take a number: sites are numbered in code
order).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Final, Literal

from ..analysis import blocks as B
from ..classfile import opcodes as op
from ..classfile.constants import CLASS, DYNAMIC, METHOD_HANDLE, METHOD_TYPE
from ..classfile.frames import Frame
from ..classfile.instructions import Instruction
from ..classfile.model import Method
from ..editor import Handler, Label, peak_depth
from ..editor.body import CodeBody
from . import codegen as G
from .activation import activation_code, activation_plan, entry_frame_of
from .call_sites import call_site_code, init_publish, pending_temps
from .context import ClassContext
from .emit import FrameNeeds
from .monitors import MonitorDepths, catch_all_entries, handler_rows, self_covering_rows
from .runtime_api import NODE_BYTECODES
from .support import RUNTIME_PACKAGE, renamed_from
from .yieldpoints import exit_yieldpoint_frames, wants_entry_yieldpoint, yieldpoint_blocks, yieldpoint_code

__all__ = ["BodyResult", "instrument_body"]

_ARRAY_TYPES: Final = {4: "[Z", 5: "[C", 6: "[F", 7: "[D", 8: "[B", 9: "[S", 10: "[I", 11: "[J"}
#: the opcodes :func:`_around` may put code around (the others skip the call)
_BEFORE: Final = frozenset(
    (op.NEW, op.GETSTATIC, op.PUTSTATIC, op.NEWARRAY, op.ANEWARRAY, op.MULTIANEWARRAY, op.LDC, op.LDC_W, op.LDC2_W)
)
_R_INVOKE: Final = 1
_R_RETURN: Final = 2
_R_AROUND: Final = 3
#: what the body pass does with each opcode (one index per item instead of set lookups)
_ROLE: Final = bytes(
    _R_INVOKE if o in op.INVOKE_OPCODES else _R_RETURN if o in op.RETURN_OPCODES else _R_AROUND if o in _BEFORE else 0
    for o in range(256)
)


@dataclass
class BodyResult:
    dead_returns: set[int]  #: ids of the ``return``s in dead code (OSI bodies leave them alone)
    needs: FrameNeeds  #: frames the inserted code needs
    #: hybrid mode wants an entry yieldpoint that the caller puts in its prologue (``entry="prologue"``)
    entry_yieldpoint: bool = False
    #: the most the inserted code rises above the depth the original code has where it goes
    rise: int = 0
    #: the most inserted code at a depth of its own needs (a pending call's handler: 1 + its code)
    own: int = 0
    #: the leaf callees (class with dots, name, descriptor, kind) of the node's slots, in slot order
    #: (``leaf_slots``): the method's MethodId must name them (:meth:`~.method_ids.MidTable.set_leaves`)
    leaves: list = field(default_factory=list)


@dataclass
class _Pass:
    """The state of one pass over one body (lives only during :func:`instrument_body`)."""

    ctx: ClassContext
    method: Method
    body: CodeBody
    node: int
    added: set[int] | frozenset
    part_calls: dict[int, int] | None
    needs: FrameNeeds = field(default_factory=FrameNeeds)
    out: list = field(default_factory=list)
    tail: list = field(default_factory=list)
    first_handlers: list = field(default_factory=list)
    last_handlers: list = field(default_factory=list)
    dead_returns: set[int] = field(default_factory=set)
    extra_locals: int = 0
    rise: int = 0
    own: int = 0
    #: the original name of the method this body holds, when its own differs (a twin, a part)
    caller: str | None = None
    #: leaf callee -> its slot in the node (``leaf_slots``), else None: leaf calls are entered
    leaves: dict[tuple[str, str, str, int], int] | None = None
    #: counters add to the caller's slot (a slot twin's body), not to the node's field
    slot_counts: bool = False

    # (written out, not generated: compiled by mypyc, a dataclass's generated __init__ runs interpreted)
    def __init__(
        self,
        ctx: ClassContext,
        method: Method,
        body: CodeBody,
        node: int,
        added: set[int] | frozenset,
        part_calls: dict[int, int] | None,
    ) -> None:
        self.ctx = ctx
        self.method = method
        self.body = body
        self.node = node
        self.added = added
        self.part_calls = part_calls
        self.needs = FrameNeeds()
        self.out = []
        self.tail = []
        self.first_handlers = []
        self.last_handlers = []
        self.dead_returns = set()
        self.extra_locals = 0
        self.rise = 0
        self.own = 0
        self.caller = renamed_from(method.name)
        self.leaves = None
        self.slot_counts = False

    def put(self, code: list) -> None:
        """Append inserted ``code`` where the original code has its own depth (between its
        instructions), and note how far it rises above it (for the caller's ``max_stack``)."""
        if code:
            self.out += code
            rise = peak_depth(code, self.ctx.pool)
            if rise > self.rise:
                self.rise = rise


def instrument_body(
    ctx: ClassContext,
    method: Method,
    body: CodeBody,
    node: int,
    *,
    first_site: int = 0,
    added: set[int] | frozenset = frozenset(),
    part_calls: dict[int, int] | None = None,
    entry: bool | Literal["prologue"] = True,
    twin: bool = False,
    leaf_slots: bool = False,
    slot_counts: bool = False,
) -> BodyResult:
    """Instrument ``body`` in place; the node is in local ``node``.

    ``first_site``: the number of the body's first call site (an outlined part continues its
    method's numbering); ``added``: ids of instructions the splitting added (the calls of
    outlined parts, the loads and stores around them, a part's own entry and exit), which are
    not counted and are no call sites; ``part_calls``: call id -> call sites the part holds;
    ``entry``: the body is a method's start (not an outlined part), where hybrid mode puts a
    yieldpoint; ``"prologue"``: the caller puts that yieldpoint in its prologue (an ESI twin's
    ``enterSampled``, which keeps the twin's bytecode as short as in exact mode), and the result
    says whether it is wanted; ``twin``: the body is an ESI twin's, whose returns get hybrid mode's
    exit yieldpoints when it has an entry one (:func:`~.yieldpoints.exit_yieldpoint_frames`);
    ``leaf_slots``: the node is this method's own (a whole twin or OSI body, nothing outlined), and
    its leaf calls are counted in the node's slots (:class:`LeafNode`) instead of entered: the result
    lists their callees, which the caller gives the method's MethodId; ``slot_counts``: the body is a
    leaf's slot twin (:mod:`.shape_slot`), whose counters add to its caller's slot (the ``LeafNode``
    in local ``node``, the slot's index in ``node + 1``) instead of a node's field.
    """
    opts = ctx.options
    blocks, dead = _live_blocks(ctx, body)
    ctx.report.blocks += len(blocks)
    # the block that starts at each item index (a list: read once per item of every body)
    starts: list[B.Block | None] = [None] * (len(body.items) + 1)
    for b in blocks:
        starts[_past_added(body, b.start, added)] = b
    activation = activation_plan(method, body, blocks) if opts.activation else {}
    hybrid = opts.mode == "hybrid"
    yieldpoints = yieldpoint_blocks(body, blocks, entry=entry is True) if hybrid else set()
    entry_yieldpoint = hybrid and entry == "prologue" and wants_entry_yieldpoint(body, blocks, yieldpoints)
    if entry_yieldpoint:  # written by the caller's prologue, counted here with the body's
        ctx.report.yieldpoints += 1
    # an ESI twin's returns: the stretch since its last yieldpoint is its own (its entry's sample is the
    # caller's, Node.enterSampled), as in sample mode
    exits = exit_yieldpoint_frames(ctx, method, body, blocks, yieldpoints) if entry_yieldpoint and twin else {}
    entry_frame = entry_frame_of(ctx, method, node) if yieldpoints and ctx.strategy.frames else None
    init_done = G.after_initialisation(ctx.name, method.name, method.descriptor, body, ctx.pool)
    position: dict = {}  # label -> its item index, made on first need (a pending call inside handlers)
    original_handlers = list(body.handlers)
    temps = body.max_locals
    bytecodes_ref = ctx.rt.field_ref(NODE_BYTECODES)
    p = _Pass(ctx, method, body, node, added, part_calls)
    p.slot_counts = slot_counts
    if leaf_slots:
        p.leaves = {}
    site = first_site
    roles = _ROLE
    resolutions = opts.resolutions and ctx.cf.major >= 49  # (ldc of a class: version 49 and later)
    resolved: set[str] = set()  # the classes an earlier instruction of the block resolved
    rows = handler_rows(body) if blocks else []
    monitors = MonitorDepths(body, rows) if blocks else None
    catch_alls = catch_all_entries(rows) if monitors is not None and monitors.balanced else {}
    own_rows = self_covering_rows(rows)
    exclusions: dict[int, list[tuple[Label, Label]]] = {}  # id(original row) -> code it must not cover
    #: item index of a monitorexit -> a block's counter that goes after it, and the rows it leaves
    after_exit: dict[int, tuple[list, list[Handler]]] = {}
    own: list[Handler] = []  # the rows that cover the current block's own start (its handler's)
    for i, item in enumerate(body.items):
        blk = starts[i]
        here = blk is not None  # the block's code goes in front of this item
        if blk is not None:
            own = own_rows.get(blk.start, [])
            wrong, uncaught = monitors.placement(blk.start, own) if monitors is not None else (own, False)
            movable = blk.index not in yieldpoints and not (blk.index in activation and activation[blk.index][1])
            if uncaught and monitors is not None and movable:
                # a counter (and an activation decrement) with no branch: moved past the monitorexit that
                # makes it safe, if nothing before it can throw (the block counts the same), rather than
                # given a row back to its handler, which C1 refuses ("exception handler covers itself")
                release = monitors.release_point(blk.start, blk.end, own)
                if release is not None:
                    code = _counters(p, blk, bytecodes_ref)
                    if blk.index in activation:
                        code = activation_code(ctx, node, blk, *activation[blk.index], method, body, p.needs) + code
                    after_exit[release[0]] = (code, release[1])
                    here = False
        if blk is not None and here:
            covered = uncaught and blk.start in catch_alls
            start_cover = Label("monitor_safe")
            if covered or wrong:
                p.out.append(start_cover)
            at = len(p.out)
            if blk.index in activation:
                p.put(activation_code(ctx, node, blk, *activation[blk.index], method, body, p.needs))
            p.put(_counters(p, blk, bytecodes_ref))
            if blk.index in yieldpoints:
                p.put(yieldpoint_code(ctx, node, blk, body, p.needs, entry_frame=entry_frame))
                ctx.report.yieldpoints += 1
            if (covered or wrong) and len(p.out) > at:
                end_cover = Label("monitor_safe_end")
                p.out.append(end_cover)
                for h in wrong:
                    exclusions.setdefault(id(h), []).append((start_cover, end_cover))
                if covered:
                    p.last_handlers.append(Handler(start_cover, end_cover, catch_alls[blk.start], 0))
        if isinstance(item, Label):
            p.out.append(item)
            continue
        role = roles[item.opcode]
        if added and id(item) in added:
            site += part_calls.get(id(item), 0) if part_calls else 0
            p.out.append(item)
        elif dead[i]:
            if role == _R_INVOKE:
                site += 1  # sites are numbered in code order, dead ones included
            elif role == _R_RETURN:
                p.dead_returns.add(id(item))
            p.out.append(item)
        elif role == _R_INVOKE:
            if resolutions:
                p.put(_resolution(ctx, item, node, resolved, blk is not None))
            _call(p, item, i, site, temps, init_done, position, original_handlers)
            site += 1
        else:
            if exits and i in exits:
                placement = monitors.placement(i, own) if monitors is not None else (own, False)
                _exit_yieldpoint(p, node, exits[i], placement, exclusions)
            after: list = []
            if resolutions:
                p.put(_resolution(ctx, item, node, resolved, blk is not None))
            if role == _R_AROUND:
                before, after = _around(ctx, item, node)
                p.put(before)
            p.out.append(item)
            p.put(after)
            if after_exit and i in after_exit:
                code, leaves = after_exit.pop(i)
                _put_outside(p, code, leaves, exclusions)
    body.items = p.out + p.tail
    kept = _without(p.out, body.handlers, exclusions) if exclusions else body.handlers
    body.handlers = p.first_handlers + kept + p.last_handlers
    p.needs.handlers += [(h.start, h.handler) for h in p.first_handlers]
    body.max_locals = max(body.max_locals, temps + p.extra_locals)
    result = BodyResult(p.dead_returns, p.needs, entry_yieldpoint, p.rise, p.own)
    if p.leaves:
        result.leaves = sorted(p.leaves, key=p.leaves.__getitem__)
    return result


def _exit_yieldpoint(
    p: _Pass,
    node: int,
    frame: Frame | None,
    placement: tuple[list[Handler], bool],
    exclusions: dict[int, list[tuple[Label, Label]]],
) -> None:
    """An ESI twin's yieldpoint before a return or ``athrow``, outside the rows it must leave: those
    whose handler is entered holding another number of monitors (Janino's catch-all row runs past
    the ``monitorexit`` to the return) and its block's own handler's (see :mod:`.monitors`). Where
    it would then hold a monitor that nothing catches, there is no yieldpoint (the next one samples)."""
    leaves, uncaught = placement
    if uncaught:
        return
    skip = Label("yieldpoint_done")
    if frame is not None:
        p.needs.known[skip] = frame
    _put_outside(p, p.ctx.rt.yieldpoint(node, skip, pinned=True), leaves, exclusions)
    p.ctx.report.yieldpoints += 1


def _put_outside(p: _Pass, code: list, rows: list[Handler], exclusions: dict[int, list[tuple[Label, Label]]]) -> None:
    """Put ``code`` where the pass is, outside ``rows`` (noted in ``exclusions``)."""
    if not rows:
        p.put(code)
        return
    start, end = Label("monitor_safe"), Label("monitor_safe_end")
    p.out.append(start)
    p.put(code)
    p.out.append(end)
    for h in rows:
        exclusions.setdefault(id(h), []).append((start, end))


def _without(items: list, handlers: list[Handler], exclusions: dict[int, list[tuple[Label, Label]]]) -> list[Handler]:
    """``handlers`` with the code between each excluded pair of labels cut out of their rows (in
    code order; a row left empty is dropped: the JVMS wants ``start_pc < end_pc``)."""
    before: dict[int, int] = {}  # id(label) -> instructions before it
    n = 0
    for x in items:
        if isinstance(x, Label):
            before[id(x)] = n
        else:
            n += 1
    out: list[Handler] = []
    for h in handlers:
        cuts = exclusions.get(id(h))
        if not cuts:
            out.append(h)
            continue
        start = h.start
        for cut_start, cut_end in cuts:
            if before[id(cut_start)] > before[id(start)]:
                out.append(Handler(start, cut_start, h.handler, h.catch_type))
            start = cut_end
        if before[id(h.end)] > before[id(start)]:
            out.append(Handler(start, h.end, h.handler, h.catch_type))
    return out


def _live_blocks(ctx: ClassContext, body: CodeBody) -> tuple[list[B.Block], list[bool]]:
    """The live blocks that get counters (none without counting or activation), and a dead-item map
    (a list: compiled, reading it is native, a bytearray's item is a call by name)."""
    opts = ctx.options
    counting = opts.counting != "none" or opts.weights is not None
    mode: B.Mode = "precise" if opts.counting == "precise" else "default"
    blocks = B.basic_blocks(body, mode, pool=ctx.cf.pool)
    live = B.reachable_blocks(blocks)
    dead = [False] * len(body.items)
    for b in blocks:
        if b.index not in live:
            for k in range(b.start, b.end):
                dead[k] = True
    if not counting and not opts.activation and opts.mode != "hybrid":
        return [], dead
    return [b for b in blocks if b.index in live], dead


def _counters(p: _Pass, blk: B.Block, bytecodes_ref: int) -> list:
    """``node.bytecodes += size`` (and ``node.addWeighted(w)``) at the start of block ``blk``."""
    opts, items, added = p.ctx.options, p.body.items, p.added
    out: list = []
    size = blk.size
    if added:
        size -= sum(1 for x in items[blk.start : blk.end] if id(x) in added)
    if opts.counting != "none" and size:
        if p.slot_counts:
            out += p.ctx.rt.add_to_slot(p.node, size)
        else:
            out += p.ctx.rt.add_to_counter(p.node, bytecodes_ref, size)
    if opts.weights is not None:
        w = sum(
            opts.weights.get(x.opcode, 0)
            for x in items[blk.start : blk.end]
            if not isinstance(x, Label) and id(x) not in added
        )
        if w:
            out += p.ctx.rt.add_weighted(p.node, w)
    return out


def _call(
    p: _Pass,
    item: Instruction,
    i: int,
    site: int,
    temps: int,
    init_done: int | None,
    position: dict,
    original_handlers: list,
) -> None:
    """A live call site; a pending call gets a catch-all handler (after ``super()``/``this()`` only)."""
    code = call_site_code(p.ctx, item, p.node, site, temps, p.caller, p.leaves)
    p.put(code.pre)
    if code.pending is not None and init_done is not None and i >= init_done:
        start, end, handler = Label("pending_start"), Label("pending_end"), Label("pending_handler")
        p.out += [start, code.call, end]
        handler_end = Label("pending_handler_end")
        p.tail += [handler, *code.pending, Instruction(-1, op.ATHROW), handler_end]
        p.own = max(p.own, 1 + peak_depth(code.pending, p.ctx.pool))  # the handler starts at one slot
        p.first_handlers.append(Handler(start, end, handler, 0))
        if original_handlers and not position:
            position.update((x, k) for k, x in enumerate(p.body.items) if isinstance(x, Label))
        for h in original_handlers:  # the rethrow must meet the handlers the call met
            if position[h.start] <= i < position[h.end]:
                p.last_handlers.append(Handler(handler, handler_end, h.handler, h.catch_type))
    else:
        p.out.append(code.call)
    p.put(code.post)  # (the call leaves the depth the original call left: the pre code's pushes are its arguments)
    if code.pending is not None:
        p.extra_locals = max(p.extra_locals, pending_temps(item, p.ctx.pool))
    if code.needs is not None:
        p.needs.update(code.needs)
    p.extra_locals = max(p.extra_locals, code.temps)


#: (not ``checkcast``/``instanceof``: HotSpot resolves their class only for a non-null reference, so
#: resolving it ahead could throw ``NoClassDefFoundError`` where the program does not)
_NAMES_A_CLASS: Final = frozenset((op.NEW, op.ANEWARRAY, op.MULTIANEWARRAY))
_NAMES_A_MEMBER: Final = frozenset(
    (
        op.GETSTATIC,
        op.PUTSTATIC,
        op.GETFIELD,
        op.PUTFIELD,
        op.INVOKEVIRTUAL,
        op.INVOKESPECIAL,
        op.INVOKESTATIC,
        op.INVOKEINTERFACE,
    )
)


def _resolution(ctx: ClassContext, item: Instruction, node: int, resolved: set[str], block_start: bool) -> list:
    """With ``resolutions``: code that resolves the class ``item`` names beneath this node before
    ``item`` does (empty when it names none, names this class or jprewrite's, or an earlier
    instruction of the block resolved it).

    A class that a loader written in the program defines resolves the names its code uses through
    that loader: the first time an instruction names a class the loader was not asked for, the
    JVM calls the loader's ``loadClass``, with no call instruction, and that code attaches beneath
    the published node: whatever boundary call published last. Here the first execution of each
    such instruction publishes this node and resolves the class itself with an ``ldc`` (the same
    class resolution, access check and errors, JVMS 5.4.3.1); a flag of the holder skips the publish
    from then on, and the instruction, whatever its call-site code publishes, finds the class
    resolved. So the loader's work belongs to the method whose instruction named the class, invokes
    included (the oracle, which sees blocks, not instructions, puts it beneath the block's last
    instruction, a call's boundary node when that is a call). The loads of classes the JVM links
    (the verifier's) run when the instruction that initialises the class runs: beneath the same
    node. Not covered: ``checkcast`` and ``instanceof`` (see ``_NAMES_A_CLASS``), catch types
    (resolved while an exception is dispatched), and the classes of an ``ldc``'d method type or
    handle (the node is published, without a flag).
    """
    if block_start:
        resolved.clear()
    pool, opc = ctx.pool, item.opcode
    if opc in _NAMES_A_CLASS:
        name = pool.class_name(item.operand)
    elif opc in _NAMES_A_MEMBER:
        name = pool.member_ref(item.operand)[0]
    elif opc == op.LDC or opc == op.LDC_W:
        tag = pool.tag(item.operand)
        if tag == METHOD_TYPE or tag == METHOD_HANDLE:
            return ctx.rt.publish(node)
        if tag != CLASS:
            return []
        name = pool.class_name(item.operand)
    else:
        return []
    if name.startswith("["):  # an array class: its element class is what the loader is asked for
        element = name.lstrip("[")
        if not (element.startswith("L") and element.endswith(";")):
            return []  # primitive elements: nothing to load
        name = element[1:-1]
    if name in resolved or name == ctx.name or name == ctx.mids.holder or name.startswith(RUNTIME_PACKAGE):
        return []
    resolved.add(name)
    flag = ctx.mids.resolve_flag(name)
    return ctx.rt.publish_init(node, flag) + [
        Instruction(-1, op.LDC_W, pool.add_class(name)),
        Instruction(-1, op.POP),
        Instruction(-1, op.ICONST_1),
        Instruction(-1, op.PUTSTATIC, flag),
    ]


def _around(ctx: ClassContext, item: Instruction, node: int) -> tuple[list, list]:
    """The code before and after ``new``/static field accesses (init publishes,
    :func:`~.call_sites.init_publish`), array allocations (counts with ``--allocations``) and
    ``ldc`` of a dynamic constant.

    Resolving a dynamic constant (JVMS 5.4.3.6) runs its bootstrap method, which may be
    application code: the JVM calls it with no call instruction, so its N2B wrapper attaches
    beneath the published node. Publishing this node first puts the bootstrap beneath the method
    that loads the constant, where the debugger sees it (else it would land beneath whatever
    boundary call last published). Only the first execution resolves; the publish is one store.
    """
    pool, plan, rt, opc = ctx.pool, ctx.plan, ctx.rt, item.opcode
    allocations = ctx.options.allocations
    out: list = []
    after: list = []
    if opc == op.LDC or opc == op.LDC_W or opc == op.LDC2_W:
        if pool.tag(item.operand) == DYNAMIC:
            out = rt.publish(node)
    elif opc == op.NEW:
        target = pool.class_name(item.operand)
        if plan.needs_init_publish(target, ctx.name):
            out, after = init_publish(ctx, node, target)
        if allocations:
            out += rt.allocate(node, target)
    elif opc in (op.GETSTATIC, op.PUTSTATIC):
        owner, name, desc = pool.member_ref(item.operand)
        f = ctx.hierarchy.resolve_field(owner, name, desc)
        if f is not None and plan.needs_init_publish(f.owner, ctx.name):
            out, after = init_publish(ctx, node, f.owner)
    elif allocations and opc == op.NEWARRAY:
        out += rt.allocate(node, _ARRAY_TYPES.get(item.operand, "[?"))
    elif allocations and opc == op.ANEWARRAY:
        elem = pool.class_name(item.operand)
        out += rt.allocate(node, "[" + (elem if elem.startswith("[") else "L" + elem + ";"))
    elif allocations and opc == op.MULTIANEWARRAY:
        out += rt.allocate(node, pool.class_name(item.operand))
    return out, after


def _past_added(body: CodeBody, index: int, added) -> int:
    """Where a block's counter goes: past the labels there and the rewriting's own instructions
    (an OSI prologue entering the node the counter updates)."""
    items = body.items
    while index < len(items) and (isinstance(items[index], Label) or id(items[index]) in added):
        index += 1
    return index
