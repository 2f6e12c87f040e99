"""Splitting a method body that would pass 64 KB once instrumented: regions moved into static methods.

A method close to the JVM's limit of 65,535 code bytes cannot take counters and node passing in
place. Rather than leave it uninstrumented (its node would report 0 bytecodes, a wrong number
presented as exact), regions of its body are *outlined*: moved, instruction for instruction,
into private static synthetic methods of the same class, which the JVM then verifies and runs
like any other code, and which are instrumented with the same CCT node (passed in its own slot)
and the same call-site numbering. The profile cannot tell the difference: the bytecodes of a
region count towards the method's node, its call sites are the method's call sites.

A region keeps its local slots: the outlined method's parameters *are* the method's slots
``0..k`` as they are at the region's start (a slot that holds nothing there is passed as int
0, one that holds ``null`` is set to null again on entry), so every instruction, frame and
handler of the region moves unchanged. The locals the region stores and that are still
defined after it come back as the return value (one value as is, several boxed in an
``Object[]``). A region qualifies when it is single-entry and single-exit in every sense the
verifier and the program could notice:

* the operand stack is empty at its start and at its end, and no local holds an
  uninitialised object there (nor ``this`` before ``super()``);
* every instruction in it is reachable; it has no return, ``jsr``/``ret``,
  ``monitorenter``/``monitorexit`` (structured locking is per frame), or ``invokespecial``
  of another class's method (a super call needs an instance method);
* branches and switches in it stay in it or go to its end; nothing outside jumps in;
* an exception handler either covers all of it (and then does not read a local the region
  stores, whose value it would see too early), or lies inside it with its handler code.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..analysis.typeflow import State, TypeflowError, execute, infer_states
from ..classfile import opcodes as op
from ..classfile.frames import (Double, Float, Frame, Integer, Long, Null, Object, Top, Uninitialized,
                                UninitializedThis)
from ..classfile.instructions import Instruction
from ..editor import CodeBody, Label, layout
from ..editor.body import branch_targets
from ..editor.stack import stack_effect
from . import codegen as G

__all__ = ["OutlinedPart", "outline_regions"]

_LOAD = {Integer: op.ILOAD, Float: op.FLOAD, Long: op.LLOAD, Double: op.DLOAD}
_STORE = {Integer: op.ISTORE, Float: op.FSTORE, Long: op.LSTORE, Double: op.DSTORE}
_RETURN = {Integer: op.IRETURN, Float: op.FRETURN, Long: op.LRETURN, Double: op.DRETURN}
_DESC = {Integer: "I", Float: "F", Long: "J", Double: "D", Top: "I"}
_BOX = {Integer: ("java/lang/Integer", "I", "intValue"), Float: ("java/lang/Float", "F", "floatValue"),
        Long: ("java/lang/Long", "J", "longValue"), Double: ("java/lang/Double", "D", "doubleValue")}
_STORES = frozenset((op.ISTORE, op.LSTORE, op.FSTORE, op.DSTORE, op.ASTORE, op.IINC))
_FORBIDDEN = frozenset((op.IRETURN, op.LRETURN, op.FRETURN, op.DRETURN, op.ARETURN, op.RETURN, op.JSR,
                        op.JSR_W, op.RET, op.MONITORENTER, op.MONITOREXIT))
_NO_FALLTHROUGH = frozenset((op.GOTO, op.GOTO_W, op.TABLESWITCH, op.LOOKUPSWITCH, op.IRETURN, op.LRETURN,
                             op.FRETURN, op.DRETURN, op.ARETURN, op.RETURN, op.ATHROW, op.RET))
_MAX_PARAMETER_SLOTS = 255
_MAX_PUSHED = 64     #: values a region may leave on the stack (handed back in an Object[])


@dataclass
class OutlinedPart:
    """One outlined region: a private static method ``name`` with ``descriptor`` and ``body``."""

    name: str
    descriptor: str
    body: CodeBody
    first_site: int          #: the number of call sites before the region in the whole method
    call: Instruction        #: the ``invokestatic`` that replaced it in the method
    sites: int               #: call sites in the region
    synthetic: set[int] = field(default_factory=set)   #: ids of the instructions added to the method
    added: set[int] = field(default_factory=set)       #: ids of the instructions added to the part


def _vtype_descriptor(t) -> str | None:
    if t in _DESC:
        return _DESC[t]
    if isinstance(t, Object):
        return t.name if t.name.startswith("[") else "L" + t.name + ";"
    if t is Null:
        return "Ljava/lang/Object;"
    return None


def outline_regions(body: CodeBody, pool, this_class: str, method_name: str, descriptor: str,
                    is_static: bool, hierarchy, *, budget: int, name_prefix: str,
                    interface: bool = False, fixed: set[int] | frozenset = frozenset(),
                    first_index: int = 0) -> list[OutlinedPart]:
    """Move regions of at most about ``budget`` code bytes out of ``body``; returns the parts.

    ``body`` (with its frames) is changed in place: each region becomes loads of the slots,
    ``invokestatic this_class.<name_prefix><first_index + k>``, and stores of what it returns. Returns an
    empty list (and leaves ``body`` unchanged) when no region qualifies. ``hierarchy`` decides
    which reference types are interfaces (no checkcast on the way back: the verifier treats
    interface types as Object). ``fixed``: ids of instructions the rewriting put there already
    (an OSI prologue): they never move and are not call sites.
    """
    items = body.items
    n = len(items)
    try:
        cfg, leader_states = infer_states(body, pool, hierarchy, this_class, method_name, descriptor,
                                          is_static, fixed=body.frames)
    except TypeflowError:
        return []   # jsr/ret or code the inference cannot follow: nothing is moved
    states: list[State | None] = [None] * n
    for k, st in leader_states.items():
        i, cur = k, st
        while i < n:
            if states[i] is not None and i != k:
                break
            states[i] = cur
            insn = items[i]
            if insn.opcode in _NO_FALLTHROUGH:
                break
            try:
                cur = execute(cur, insn, pool, this_class, new_label=insn)
            except TypeflowError:
                break
            i = cfg.next_insn[i + 1]
            if i in cfg.leaders:
                break
    positions, _ = layout(body, limit=False)

    label_pos = {id(x): i for i, x in enumerate(items) if isinstance(x, Label)}
    # groups of positions that a region must hold all or none of: each branch/switch edge
    # (its instruction and its target label) and each handler row (start, end, handler labels)
    groups: list[tuple[int, ...]] = []
    jump_groups: set[int] = set()
    for i, x in enumerate(items):
        if not isinstance(x, Label):
            for t in branch_targets(x):
                jump_groups.add(len(groups))
                groups.append((i, label_pos[id(t)]))
    handler_rows = []
    for h in body.handlers:
        row = (label_pos[id(h.start)], label_pos[id(h.end)], label_pos[id(h.handler)])
        handler_rows.append(row)
        groups.append(row)
    at: list[list[int]] = [[] for _ in range(n)]
    for g, ends in enumerate(groups):
        for p in set(ends):
            at[p].append(g)
    low = [min(ends) for ends in groups]
    size = [len(set(ends)) for ends in groups]
    jumps_to: dict[int, list[int]] = {}
    for g in jump_groups:
        jumps_to.setdefault(groups[g][1], []).append(g)

    def clean(st: State | None) -> bool:
        """No local holds an uninitialised object (the stack may hold anything: a region leaves
        what is below its own values alone)."""
        return st is not None and not any(isinstance(t, Uninitialized) or t is UninitializedThis for t in st.locals)

    def slot_depth(st: State) -> int:
        return sum(2 if t in (Long, Double) else 1 for t in st.stack)

    def ends_well(s: int, e: int, stored: set[int]) -> bool:
        """At ``e`` the stack is the region's start stack, or that plus one value it returns (then
        it may hand back no local as well: Clojure's compiled ``load`` keeps every form's value)."""
        st_in, st_out = states[s], states[e]
        if not clean(st_out):
            return False
        extra = len(st_out.stack) - len(st_in.stack)
        if extra == 0:
            return _outs_ok(st_out, stored)
        if extra < 0 or extra > _MAX_PUSHED:
            return False
        for t in st_out.stack[len(st_in.stack):]:
            if t is not Null and (_vtype_descriptor(t) is None or t is Top):
                return False
        return not any(slot < len(st_out.locals) and st_out.locals[slot] not in (Top, Null) for slot in stored)

    def first_label_before(i: int) -> int:
        """Index of the first item of the run of labels right before instruction ``i`` (or ``i``)."""
        while i > 0 and isinstance(items[i - 1], Label):
            i -= 1
        return i

    live = _live_in(items, body, label_pos, cfg.next_insn)

    def handler_reads(row) -> set[int]:
        k = cfg.next_insn[row[2]]
        bits = live[k] if k < n else -1
        return {slot for slot in range(body.max_locals + 2) if bits >> slot & 1}

    depth = [slot_depth(st) if st is not None else 0 for st in states]

    def farthest(s: int, limit: int) -> int | None:
        """The farthest instruction e (a region items[s:first_label_before(e)]) within ``limit`` bytes."""
        if not clean(states[s]) or _parameter_slots(states[s].locals) >= _MAX_PARAMETER_SLOTS:
            return None
        covering = [handler_reads(r) for r in handler_rows if r[0] < s < r[1]]
        floor = depth[s]                  # the region never touches the values below its own
        inside = [0] * len(groups)
        partial = 0
        stored: set[int] = set()
        best = None
        blocked = False

        def whole(hi: int, e: int) -> bool:
            """Every group all in items[s:hi] or all out, but edges from inside to the end labels."""
            touched: dict[int, int] = {}
            for t in range(hi, e):
                for g in at[t]:
                    touched[g] = touched.get(g, 0) + 1
            still = partial
            exits = 0
            for g, k in touched.items():
                before = 0 < inside[g] < size[g]
                now_in = inside[g] - k
                now = 0 < now_in < size[g]
                still += now - before
                if now and g in jump_groups and s <= groups[g][0] < hi and hi <= groups[g][1] < e:
                    exits += 1
            return still == exits

        for i in range(s, n):
            x = items[i]
            if not isinstance(x, Label):
                if i > s and positions[i] - positions[s] > limit:
                    break
                hi = first_label_before(i)
                if i > s and positions[i] - positions[s] >= 64 and states[i] is not None \
                        and ends_well(s, i, stored) and whole(hi, i):
                    best = i
                if blocked or states[i] is None or x.opcode in _FORBIDDEN or id(x) in fixed:
                    break
                if floor and depth[i] - stack_effect(x, pool)[0] < floor:
                    break
                if x.opcode == op.INVOKESPECIAL:
                    owner, name, _ = pool.member_ref(x.operand)
                    if name != "<init>" and owner != this_class:
                        break
                if x.opcode in _STORES:
                    stored.add(x.operand)
                    if x.opcode in (op.LSTORE, op.DSTORE):
                        stored.add(x.operand + 1)
                    if any(r & stored for r in covering):
                        break
            for g in at[i]:
                if low[g] < s:          # an edge or handler from before the region: never whole
                    if isinstance(x, Label):
                        blocked = True  # a region may still end at this label
                        continue
                    return best
                inside[g] += 1
                if inside[g] == 1 and size[g] > 1:
                    partial += 1
                elif inside[g] == size[g] and size[g] > 1:
                    partial -= 1
        return best

    chosen: list[tuple[int, int]] = []
    i = 0
    while i < n:
        if isinstance(items[i], Label) or not clean(states[i]):
            i += 1
            continue
        e = farthest(i, budget)
        if e is None:
            i += 1
            continue
        chosen.append((i, e))
        i = e
    if not chosen:
        return []
    return _cut(body, chosen, states, pool, this_class, hierarchy, name_prefix, interface, first_label_before,
                fixed, first_index)


_READS = {op.ILOAD: 1, op.FLOAD: 1, op.ALOAD: 1, op.LLOAD: 2, op.DLOAD: 2, op.IINC: 1, op.RET: 1}
_WRITES = {op.ISTORE: 1, op.FSTORE: 1, op.ASTORE: 1, op.LSTORE: 2, op.DSTORE: 2}


def _live_in(items: list, body: CodeBody, label_pos: dict, next_insn: list) -> list[int]:
    """Locals live before each instruction (bit sets): read on some path before being written.

    Exceptional flow counts: a local its handler reads is live throughout a handler's range.
    """
    n = len(items)
    succ: list[list[int]] = [[] for _ in range(n)]
    handlers_at: list[list[int]] = [[] for _ in range(n)]
    for h in body.handlers:
        s, e, t = label_pos[id(h.start)], label_pos[id(h.end)], next_insn[label_pos[id(h.handler)]]
        for k in range(s, e):
            if not isinstance(items[k], Label):
                handlers_at[k].append(t)
    use = [0] * n
    kill = [0] * n
    insns = []
    for i, x in enumerate(items):
        if isinstance(x, Label):
            continue
        insns.append(i)
        o = x.opcode
        if o in _READS:
            use[i] = ((1 << _READS[o]) - 1) << x.operand
        elif o in _WRITES:
            kill[i] = ((1 << _WRITES[o]) - 1) << x.operand
        targets = [next_insn[label_pos[id(t)]] for t in branch_targets(x)]
        if o not in _NO_FALLTHROUGH and next_insn[i + 1] < n:
            targets.append(next_insn[i + 1])
        if o == op.RET:
            targets = []     # no splitting where subroutines are (inference refused them anyway)
        succ[i] = targets
    live = [0] * (n + 1)
    changed = True
    while changed:
        changed = False
        for i in reversed(insns):
            out = 0
            for t in succ[i]:
                out |= live[t]
            new = use[i] | (out & ~kill[i])
            for t in handlers_at[i]:
                new |= live[t]
            if new != live[i]:
                live[i] = new
                changed = True
    return live


def _outs_ok(st_out: State, stored: set[int]) -> bool:
    """Every local the region stores and that is still defined after it can be handed back."""
    for slot in stored:
        t = st_out.locals[slot] if slot < len(st_out.locals) else Top
        if t is not Top and t is not Null and _vtype_descriptor(t) is None:
            return False
    return True


def _stored_slots(items: list, lo: int, hi: int) -> set[int]:
    out: set[int] = set()
    for i in range(lo, hi):
        x = items[i]
        if not isinstance(x, Label) and x.opcode in _STORES:
            out.add(x.operand)
            if x.opcode in (op.LSTORE, op.DSTORE):
                out.add(x.operand + 1)
    return out


def _parameter_slots(locals_: list) -> int:
    n = len(locals_)
    while n and locals_[n - 1] is Top:
        n -= 1
    return n


def _cut(body: CodeBody, chosen, states, pool, this_class: str, hierarchy, name_prefix: str, interface: bool,
         first_label_before, fixed, first_index: int) -> list[OutlinedPart]:
    items = body.items
    invokes_before = [0] * (len(items) + 1)
    count = 0
    for i, x in enumerate(items):
        invokes_before[i] = count
        if not isinstance(x, Label) and id(x) not in fixed and x.opcode in (
                op.INVOKEVIRTUAL, op.INVOKESPECIAL, op.INVOKESTATIC, op.INVOKEINTERFACE, op.INVOKEDYNAMIC):
            count += 1
    invokes_before[len(items)] = count
    parts: list[OutlinedPart] = []
    replacements: list[tuple[int, int, list]] = []
    for k, (s, e) in enumerate(chosen):
        lo, hi = s, first_label_before(e)
        st_in, st_out = states[s], states[e]
        params = list(st_in.locals)
        while params and params[-1] is Top:
            params.pop()
        stored = sorted(x for x in _stored_slots(items, lo, hi)
                        if x < len(st_out.locals) and st_out.locals[x] is not Top)
        outs = [(slot, st_out.locals[slot]) for slot in stored]
        returned = [(slot, t) for slot, t in outs if t is not Null]
        below = len(st_in.stack)          # values under the region's own: they stay in the method
        pushed = st_out.stack[below:]     # the values the region leaves (see ends_well)
        value = pushed[0] if len(pushed) == 1 and pushed[0] is not Null else None
        # descriptor: one parameter per slot (a long/double covers two)
        desc = "("
        slot = 0
        while slot < len(params):
            t = params[slot]
            desc += _vtype_descriptor(t) or "I"
            slot += 2 if t in (Long, Double) else 1
        if value is not None:
            ret = _vtype_descriptor(value) or "Ljava/lang/Object;"
        elif len(pushed) > 1:
            ret = "[Ljava/lang/Object;"
        elif not returned:
            ret = "V"
        elif len(returned) == 1:
            ret = _vtype_descriptor(returned[0][1]) or "Ljava/lang/Object;"
        else:
            ret = "[Ljava/lang/Object;"
        desc += ")" + ret
        name = f"{name_prefix}{first_index + k}"
        # ---- the part's body: null slots set again, the region, the exit
        region = items[lo:hi]
        exit_label = Label("outlined_exit")
        entry: list = []
        slot = 0
        while slot < len(params):
            t = params[slot]
            if t is Null:
                entry += [Instruction(-1, op.ACONST_NULL), Instruction(-1, op.ASTORE, slot)]
            slot += 2 if t in (Long, Double) else 1
        exit_code: list = [exit_label]
        extra_locals = 0
        if value is not None:
            exit_code.append(Instruction(-1, _RETURN.get(value, op.ARETURN)))
        elif len(pushed) == 1:                # a null the method pushes again itself
            exit_code += [Instruction(-1, op.POP), Instruction(-1, op.RETURN)]
        elif pushed:                          # several values: into temporaries, then an Object[]
            temps = []
            slot = body.max_locals
            for t in pushed:
                temps.append(slot)
                slot += 2 if t in (Long, Double) else 1
            extra_locals = slot
            for t, tslot in reversed(list(zip(pushed, temps))):
                exit_code.append(Instruction(-1, _STORE.get(t, op.ASTORE), tslot))
            exit_code += _boxed_array(pool, list(zip(temps, pushed)))
        elif not returned:
            exit_code.append(Instruction(-1, op.RETURN))
        elif len(returned) == 1:
            slot, t = returned[0]
            exit_code += [Instruction(-1, _LOAD.get(t, op.ALOAD), slot), Instruction(-1, _RETURN.get(t, op.ARETURN))]
        else:
            exit_code += _boxed_array(pool, returned)
        # branches to the region's end go to the exit
        end_labels = {id(x) for x in items[hi:e] if isinstance(x, Label)}
        for x in region:
            if isinstance(x, Label):
                continue
            if x.opcode in op.BRANCH_OPCODES and id(x.operand) in end_labels:
                x.operand = exit_label
            elif x.opcode in (op.TABLESWITCH, op.LOOKUPSWITCH):
                if id(x.default) in end_labels:
                    x.default = exit_label
                x.targets = [exit_label if id(t) in end_labels else t for t in x.targets]
        part = CodeBody(items=[*entry, *region, *exit_code], max_locals=max(body.max_locals, extra_locals))
        region_labels = {id(x) for x in region if isinstance(x, Label)}
        handler_labels = {id(h.handler) for h in body.handlers}
        # the region's frames without the values below its own (handlers start on an empty stack)
        part.frames = {lab: f if id(lab) in handler_labels or not below else
                       Frame(-1, list(f.locals), list(f.stack[below:]))
                       for lab, f in body.frames.items() if id(lab) in region_labels}
        exit_locals = list(st_out.locals)
        part.frames[exit_label] = _frame(exit_locals, pushed)
        part.handlers = [h for h in body.handlers if id(h.handler) in region_labels]
        part.lines = [(lab, line) for lab, line in body.lines if id(lab) in region_labels]
        part.has_stack_map = body.has_stack_map
        body.handlers = [h for h in body.handlers if id(h.handler) not in region_labels]
        # ---- the call in the method
        call = Instruction(-1, op.INVOKESTATIC, pool.add_methodref(this_class, name, desc, interface=interface))
        seq: list = []
        slot = 0
        while slot < len(params):
            t = params[slot]
            if t is Top:
                seq.append(Instruction(-1, op.ICONST_0))
            else:
                seq.append(Instruction(-1, _LOAD.get(t, op.ALOAD), slot))
            slot += 2 if t in (Long, Double) else 1
        seq.append(call)
        if len(pushed) == 1:
            if value is None:
                seq.append(Instruction(-1, op.ACONST_NULL))
        elif pushed:                       # the array into a temporary, its values onto the stack
            array = body.max_locals
            body.max_locals += 1
            seq.append(Instruction(-1, op.ASTORE, array))
            for j, t in enumerate(pushed):
                if t is Null:
                    seq.append(Instruction(-1, op.ACONST_NULL))
                    continue
                seq += [Instruction(-1, op.ALOAD, array), G.push_int(pool, j), Instruction(-1, op.AALOAD),
                        *_unboxed(t, hierarchy, pool)]
        elif len(returned) == 1:     # returned with its own type: nothing to cast
            slot, t = returned[0]
            seq.append(Instruction(-1, _STORE.get(t, op.ASTORE), slot))
        elif returned:
            for j, (slot, t) in enumerate(returned):
                seq += [Instruction(-1, op.DUP), G.push_int(pool, j), Instruction(-1, op.AALOAD),
                        *_unboxed(t, hierarchy, pool)]
                seq.append(Instruction(-1, _STORE.get(t, op.ASTORE), slot))
            seq.append(Instruction(-1, op.POP))
        for slot, t in outs:
            if t is Null:
                seq += [Instruction(-1, op.ACONST_NULL), Instruction(-1, op.ASTORE, slot)]
        sites = invokes_before[hi] - invokes_before[lo]
        parts.append(OutlinedPart(name, desc, part, invokes_before[lo], call, sites, {id(x) for x in seq},
                                  {id(x) for x in (*entry, *exit_code) if not isinstance(x, Label)}))
        replacements.append((lo, hi, seq))
        for lab in list(body.frames):
            if id(lab) in region_labels:
                del body.frames[lab]
        body.lines = [(lab, line) for lab, line in body.lines if id(lab) not in region_labels]
        body.local_variables = [v for v in body.local_variables
                                if id(v.start) not in region_labels and id(v.end) not in region_labels]
        body.local_variable_types = [v for v in body.local_variable_types
                                     if id(v.start) not in region_labels and id(v.end) not in region_labels]
        body.code_annotations = []
    for lo, hi, seq in reversed(replacements):
        items[lo:hi] = seq
    return parts


def _frame(locals_: list, stack: list) -> Frame:
    """A frame with ``locals_`` (one entry per slot, State's convention) and ``stack``."""
    out = []
    i = 0
    while i < len(locals_):
        t = locals_[i]
        out.append(t)
        i += 2 if t in (Long, Double) else 1
    while out and out[-1] is Top:
        out.pop()
    return Frame(-1, out, list(stack))


def _boxed_array(pool, values: list[tuple[int, object]]) -> list:
    """``return new Object[] {slot values…}``, primitives boxed: how a part hands back several values."""
    out = [G.push_int(pool, len(values)), Instruction(-1, op.ANEWARRAY, pool.add_class("java/lang/Object"))]
    for j, (slot, t) in enumerate(values):
        out += [Instruction(-1, op.DUP), G.push_int(pool, j), Instruction(-1, _LOAD.get(t, op.ALOAD), slot)]
        if t in _BOX:
            owner, d, _ = _BOX[t]
            out.append(Instruction(-1, op.INVOKESTATIC, pool.add_methodref(owner, "valueOf", f"({d})L{owner};")))
        out.append(Instruction(-1, op.AASTORE))
    return out + [Instruction(-1, op.ARETURN)]


def _unboxed(t, hierarchy, pool) -> list:
    """An element of that array (on the stack) back to type ``t``: unboxed, or cast (:func:`_unpack`)."""
    if t in _BOX:
        owner, d, getter = _BOX[t]
        return [Instruction(-1, op.CHECKCAST, pool.add_class(owner)),
                Instruction(-1, op.INVOKEVIRTUAL, pool.add_methodref(owner, getter, f"(){d}"))]
    return _unpack(t, hierarchy, pool)


def _unpack(t, hierarchy, pool) -> list:
    """A checkcast back to the slot's class. Interfaces get none: the verifier treats them as
    Object, and the value (which the verifier let through as one) need not implement it."""
    if not isinstance(t, Object) or t.name == "java/lang/Object":
        return []
    if not t.name.startswith("["):
        info = hierarchy.info(t.name) if hierarchy is not None else None
        if info is not None and info.is_interface:
            return []
    return [Instruction(-1, op.CHECKCAST, pool.add_class(t.name))]
