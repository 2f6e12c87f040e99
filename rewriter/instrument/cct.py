"""CCCP's rewriting of one class: ESI, N2B, B2N and OSI methods, call sites that pass the CCT node, counters.

For every method the plan (:mod:`.plan`) gives an ESI method, the class gets:

* **ESI** twin ``m(args…, Node caller, int site)``: the original body,
  instrumented; its first act is ``caller = caller.enter(site, mid)``.
* **N2B** wrapper in place of the original body (original signature, so
  reflection, the JDK, native code and uninstrumented classes still find it):
  takes the parent from the thread's slot, calls the ESI twin, restores the slot.
* **B2N** for native methods: an ESI-shaped method creating the native
  method's node, publishing it while the native code runs.
* **Delegating ESI** for abstract methods and for methods that cannot be
  instrumented (64 KB): a boundary node, then the original signature.
* **OSI** ``<clinit>``: instrumented in place (no wrapper frame is possible).

The exact shapes are the contract in ``docs/runtime-contract.md``.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from ..analysis import blocks as B
from ..analysis.frames import complete_frames, frame_after_provider
from ..analysis.typeflow import FrameUnknown, flow_to, frame_from_state
from ..analysis.hierarchy import ClassHierarchy
from ..classfile import opcodes as op
from ..classfile.code import CodeAttribute
from ..classfile.descriptors import parse_method_descriptor, type_size
from ..classfile.frames import Double, Frame, Integer, Long, Object, Top, initial_frame_locals
from ..classfile.instructions import Instruction, InvokeInterface
from ..classfile.model import (ACC_ABSTRACT, ACC_BRIDGE, ACC_FINAL, ACC_MODULE, ACC_NATIVE,
                               ACC_PRIVATE, ACC_PUBLIC, ACC_STATIC, ACC_SUPER, ACC_SYNTHETIC, ACC_VARARGS, ClassFile,
                               Field, Method)
from ..editor import CodeTooLargeError, Handler, Label, disassemble, write_body
from ..editor.body import CodeBody
from ..editor.params import shift_body
from . import codegen as G
from .method_ids import _MIDS_PER_CHUNK, MID, MID_DESC, MIDS_ARRAY, MIDS_FIELD, SEEN_FIELD, MidTable
from .options import InstrumentOptions
from .outline import OutlinedPart, outline_regions
from .pool_cache import CachingPool
from .plan import (BOUNDARY, HOLDER_SUFFIX, PASS_INTERFACE, PLAIN, PUBLISH, dispatcher_descriptor, KIND_INSTRUMENTED, KIND_JDK, KIND_NATIVE, KIND_UNINSTRUMENTED, NODE,
                   NODE_DESC, PASS, PENDING, CctPlan, esi_descriptor, esi_name)

ROOT = "jprewrite/runtime/ThreadRoot"
CLASS_METHOD = "$jprewrite$class"
MARKER_FIELD = "$jprewrite$instrumented"   #: a private static synthetic boolean in every rewritten class
ENTERED = -2   #: the site an N2B passes: the node it hands over is the callee's own (Node.ENTERED)
#: region sizes (original code bytes) tried in turn when a method must be split to fit in 64 KB
_SPLIT_BUDGETS = (24_000, 12_000, 6_000, 3_000)

_INVOKES = frozenset((op.INVOKEVIRTUAL, op.INVOKESPECIAL, op.INVOKESTATIC, op.INVOKEINTERFACE, op.INVOKEDYNAMIC))
_ARRAY_TYPES = {4: "[Z", 5: "[C", 6: "[F", 7: "[D", 8: "[B", 9: "[S", 10: "[I", 11: "[J"}


#: Flags of every method the rewriting adds to a class. Bridge as well as synthetic: reflection-driven
#: runtimes skip bridge methods when they list a class's methods (Groovy's CachedClass, which
#: would otherwise count ``doCall(Object, Node, int)`` as a closure signature; Spring, Jackson and
#: JUnit do the same). The JVM gives ACC_BRIDGE no meaning.
ESI_FLAGS = ACC_SYNTHETIC | ACC_BRIDGE


class AlreadyInstrumented(Exception):
    """The class was rewritten by jprewrite before (it has the MID table)."""


@dataclass
class ClassReport:
    """What happened to one class (summed over a run by the jar layer)."""

    esi: int = 0
    n2b: int = 0
    b2n: int = 0
    osi: int = 0
    delegators: int = 0
    split: int = 0          #: methods split into outlined parts to fit in 64 KB
    blocks: int = 0
    call_sites: Counter = field(default_factory=Counter)
    not_instrumented: list[str] = field(default_factory=list)   #: "Class.m(desc): why"
    extra_classes: dict[str, bytes] = field(default_factory=dict)  #: new classes to write beside it
    #: (name, descriptor) of each method the rewriting wrote -> the original method it came from
    #: (None: the class's own additions, e.g. ``$jprewrite$class``); what the verification gate checks
    emitted: dict[tuple[str, str], tuple[str, str] | None] = field(default_factory=dict)

    def add(self, other: "ClassReport") -> None:
        for name in ("esi", "n2b", "b2n", "osi", "delegators", "split", "blocks"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.call_sites.update(other.call_sites)
        self.not_instrumented += other.not_instrumented


class _ClassRewriter:
    def __init__(self, cf: ClassFile, plan: CctPlan, options: InstrumentOptions, contract_only: bool = False,
                 keep: frozenset[tuple[str, str]] = frozenset(), keep_reason: str = "kept as it was") -> None:
        self.cf = cf
        self.contract_only = contract_only
        self.keep = keep
        self.keep_reason = keep_reason
        self.plan = plan
        self.hierarchy: ClassHierarchy = plan.hierarchy
        self.options = options
        self.pool = CachingPool(cf.pool)
        self.mids = MidTable(cf, self.pool)
        self.report = ClassReport()
        self.is_interface = cf.is_interface()
        self.frames = cf.major >= 50
        # interface ESIs are only called through the static dispatcher (see _dispatcher_body)
        self.check_overrides = not self.is_interface and cf.major >= 49 and not cf.access & ACC_FINAL
        self._pending_frames: dict = {}
        self._pending_handlers: list = []
        # interfaces that may not take default methods: no ESI methods, publishing dispatchers
        self.publishing = self.is_interface and plan.publishing_interface(cf.name)
        self.holder_dispatchers: list[Method] = []
        #: dispatchers this class's call sites use, in its own holder: (interface named at the call
        #: site, name, descriptor) -> (declaring interface, publishing)
        self.caller_dispatchers: dict[tuple[str, str, str], tuple[str, bool]] = {}

    # ------------------------------------------------------------------ class level
    def run(self) -> ClassReport:
        cf = self.cf
        for m in list(cf.methods):
            kept = (m.name, m.descriptor) in self.keep
            if kept:
                self.report.not_instrumented.append(f"{self._where(m)}: {self.keep_reason}")
            if m.name == "<init>":
                if m.code() is not None and not self.contract_only and not kept:
                    self._osi_constructor(m)
                continue
            if self.publishing and self.plan.publishing_dispatcher(cf.name, m.name, m.descriptor):
                self.holder_dispatchers.append(m)   # no ESI declaration: see _dispatcher_body
                continue
            if m.name == "<clinit>" or not self.plan.has_esi(cf.name, m.name, m.descriptor):
                if m.name != "<clinit>" and (m.code() is not None or m.access & ACC_NATIVE):
                    self.report.not_instrumented.append(f"{self._where(m)}: no ESI method possible "
                                                        "(parameter slots or interface rules)")
                continue
            if m.access & ACC_ABSTRACT:
                self._add_delegator(m, abstract=True)
            elif (self.contract_only or kept) and (m.access & ACC_NATIVE or m.code() is not None):
                self._add_delegator(m, abstract=False)
            elif m.access & ACC_NATIVE:
                self._add_b2n(m)
            elif m.code() is not None:
                self._add_esi_and_n2b(m)
            if self.is_interface and not m.access & (ACC_STATIC | ACC_PRIVATE):
                self.holder_dispatchers.append(m)   # see _dispatcher_body
        if not self.contract_only and ("<clinit>", "()V") not in self.keep:
            self._osi_clinit()
        if self.mids.entries or self.mids.dispatchers or self.holder_dispatchers or self.caller_dispatchers:
            name, data = self._build_holder()
            self.report.extra_classes[name] = data
        if not self.is_interface and cf.major >= 49:
            self._add_class_method()
        return self.report

    def _where(self, m: Method) -> str:
        return f"{self.cf.name.replace('/', '.')}.{m.name}{m.descriptor}"

    def _new_method(self, access: int, name: str, descriptor: str, body: CodeBody, *,
                    frames_done: bool = False) -> Method:
        """A new method with ``body``; straight-line bodies need no frames, others get them completed."""
        cf = self.cf
        m = Method(access, self.pool.add_utf8(name), self.pool.add_utf8(descriptor), [], cf)
        if not frames_done and (body.handlers or any(isinstance(x, Label) for x in body.items)):
            self._complete_frames(m, body)
        write_body(m, body)
        cf.methods.append(m)
        return m

    def _write(self, m: Method, body: CodeBody) -> None:
        """Assemble an instrumented body: a branch that no longer reaches its target (past 32 KB
        once counters are in) is widened, and the code after it gets a frame from the flow.

        Code attributes the editor does not know (CLDC's ``StackMap``, vendors' tables) are
        dropped: they may name offsets that the instrumentation moved, and the JVM ignores them.
        """
        body.other_attributes = []
        frame_after = None
        if self.frames:
            frame_after = frame_after_provider(body, pool=self.pool, this_class=self.cf.name, method_name=m.name,
                                               descriptor=m.descriptor, is_static=bool(m.access & ACC_STATIC),
                                               hierarchy=self.hierarchy)
        write_body(m, body, frame_after=frame_after)

    def _handler_frames(self, m: Method, body: CodeBody) -> None:
        """Frames for the labels the instrumentation added: the override check's target, pending handlers.

        A pending handler sees the locals of its call (straight-line flow from the nearest frame);
        full inference only where that flow is interrupted.
        """
        if not self.frames:
            return
        body.frames.update(self._pending_frames)
        self._pending_frames = {}
        if not self._pending_handlers:
            return
        index = {x: i for i, x in enumerate(body.items) if isinstance(x, Label)}
        is_static = bool(m.access & ACC_STATIC)
        unknown = []
        for start, handler in self._pending_handlers:
            try:
                st = flow_to(body, index[start] + 1, self.pool, self.cf.name, m.descriptor, is_static, m.name)
            except FrameUnknown:
                unknown.append(handler)
                continue
            body.frames[handler] = Frame(-1, frame_from_state(st).locals, [Object("java/lang/Throwable")])
        if unknown:
            complete_frames(body, pool=self.pool, hierarchy=self.hierarchy, this_class=self.cf.name,
                            method_name=m.name, descriptor=m.descriptor, is_static=is_static, needed=unknown)

    def _complete_frames(self, m: Method, body: CodeBody) -> None:
        if self.frames:
            complete_frames(body, pool=self.pool, hierarchy=self.hierarchy, this_class=self.cf.name,
                            method_name=m.name, descriptor=m.descriptor, is_static=bool(m.access & ACC_STATIC))

    # ------------------------------------------------------------------ ESI + N2B
    def _add_esi_and_n2b(self, m: Method) -> None:
        md = parse_method_descriptor(m.descriptor)
        node_slot = (0 if m.access & ACC_STATIC else 1) + md.param_slots
        twin, body = self._esi_twin(m, node_slot)
        sites = sum(1 for x in body.items if not isinstance(x, Label) and x.opcode in _INVOKES)
        self_mid = self.mids.ref(self.cf.name, m.name, m.descriptor, KIND_INSTRUMENTED, sites)
        parts: list[Method] = []
        try:
            self._instrument(twin, body, node_slot, self_mid)
            body.insert(0, self._esi_prologue(m, node_slot, self_mid))
            self._handler_frames(twin, body)
            self._write(twin, body)
        except CodeTooLargeError:
            self._pending_frames = {}
            split = self._split_esi(m, node_slot, self_mid)
            if split is None:
                self.report.not_instrumented.append(f"{self._where(m)}: too large once instrumented (64 KB) "
                                                    "and no region could be split off; kept as it was, "
                                                    "reached through a delegating ESI (not counted)")
                self._add_delegator(m, abstract=False)
                return
            twin, parts = split
            self.report.split += 1
        self.cf.methods.append(twin)
        self.cf.methods.extend(parts)
        origin = (m.name, m.descriptor)
        for added in (twin, *parts, m):
            self.report.emitted[(added.name, added.descriptor)] = origin
        self.report.esi += 1
        self._make_n2b(m, self_mid)
        self.report.n2b += 1

    def _esi_twin(self, m: Method, node_slot: int) -> tuple[Method, CodeBody]:
        """A fresh ESI twin of ``m`` (not yet in the class) and its body with the node and site parameters."""
        pool = self.pool
        code = m.code()
        assert code is not None
        twin = Method(m.access & ~ACC_VARARGS | ESI_FLAGS, m.name_index, m.descriptor_index, [], self.cf)
        twin.attributes = [CodeAttribute(code.name_index, code.max_stack, code.max_locals, code.code_bytes(),
                                         [type(h)(h.start_pc, h.end_pc, h.handler_pc, h.catch_type)
                                          for h in code.handlers],
                                         list(code.attributes), code.context, code.code_offset)]
        twin.attributes += [a for a in m.attributes if pool.utf8(a.name_index) == "Exceptions"]
        body = disassemble(twin)
        shift_body(body, node_slot, 1, Object(NODE), pool)
        shift_body(body, node_slot + 1, 1, Integer, pool)
        twin.name_index = pool.add_utf8(esi_name(m.name))
        twin.descriptor_index = pool.add_utf8(esi_descriptor(m.descriptor))
        return twin, body

    def _esi_prologue(self, m: Method, node_slot: int, self_mid: int) -> list:
        """The override check where one is needed, then ``caller = caller.enter(site, mid)``."""
        prologue = []
        if self.check_overrides and not m.access & (ACC_STATIC | ACC_PRIVATE | ACC_FINAL) and m.name != "<init>":
            prologue += self._override_check(m, node_slot, self_mid)
        return prologue + [Instruction(-1, op.ALOAD, node_slot), Instruction(-1, op.ILOAD, node_slot + 1),
                           *self.mids.load(self_mid),
                           Instruction(-1, op.INVOKEVIRTUAL, self.pool.add_methodref(
                               NODE, "enter", "(I" + MID_DESC + ")" + NODE_DESC)),
                           Instruction(-1, op.ASTORE, node_slot)]

    def _write_parts(self, parts: list[OutlinedPart], node: int, self_mid: int) -> list[Method]:
        """The outlined parts as instrumented methods (the caller adds them once everything fits)."""
        methods = []
        for part in parts:
            pm = Method(ACC_PRIVATE | ACC_STATIC | ACC_SYNTHETIC, self.pool.add_utf8(part.name),
                        self.pool.add_utf8(part.descriptor), [], self.cf)
            self._instrument(pm, part.body, node, self_mid, first_site=part.first_site, added=part.added)
            self._handler_frames(pm, part.body)
            self._write(pm, part.body)
            methods.append(pm)
        return methods

    def _split_esi(self, m: Method, node_slot: int, self_mid: int) -> tuple[Method, list[Method]] | None:
        """The ESI twin of a method too large once instrumented, with regions outlined (see :mod:`.outline`).

        Tries smaller regions until the method and every part fit; None when nothing can be split
        off or nothing fits.
        """
        is_static = bool(m.access & ACC_STATIC)
        for budget in _SPLIT_BUDGETS:
            twin, body = self._esi_twin(m, node_slot)
            prefix = esi_name(m.name) + "$"
            parts = outline_regions(body, self.pool, self.cf.name, esi_name(m.name), esi_descriptor(m.descriptor),
                                    is_static, self.hierarchy, budget=budget, name_prefix=prefix,
                                    interface=self.is_interface, first_index=self._taken(prefix))
            if not parts:
                return None
            try:
                methods = self._write_parts(parts, node_slot, self_mid)
                self._instrument(twin, body, node_slot, self_mid, added=set().union(*(p.synthetic for p in parts)),
                                 part_calls={id(p.call): p.sites for p in parts})
                body.insert(0, self._esi_prologue(m, node_slot, self_mid))
                self._handler_frames(twin, body)
                self._write(twin, body)
            except CodeTooLargeError:
                self._pending_frames = {}
                continue
            return twin, methods
        return None

    def _override_check(self, m: Method, node_slot: int, self_mid: int) -> list:
        """If an uninstrumented subclass overrides ``m``, run its override instead (contract: override check)."""
        return self._override_check_for(m.name, m.descriptor, node_slot, self_mid)

    def _override_check_for(self, name: str, descriptor: str, node_slot: int, self_mid: int) -> list:
        pool, cf = self.pool, self.cf
        go = Label("esi_body")
        if self.frames:
            body_locals = initial_frame_locals(cf.name, name, esi_descriptor(descriptor), False)
            self._pending_frames[go] = Frame(-1, body_locals, [])
        args, _ = G.load_arguments(descriptor, False)
        md = parse_method_descriptor(descriptor)
        get_class = Instruction(-1, op.INVOKEVIRTUAL,
                                pool.add_methodref("java/lang/Object", "getClass", "()Ljava/lang/Class;"))
        if self.is_interface:
            marker = InvokeInterface(-1, pool.add_methodref(cf.name, CLASS_METHOD, "()Ljava/lang/Class;",
                                                            interface=True), 1)
            original = InvokeInterface(-1, pool.add_methodref(cf.name, name, descriptor, interface=True),
                                       1 + md.param_slots)
            exact: list = []
        else:
            marker = Instruction(-1, op.INVOKEVIRTUAL, pool.add_methodref(cf.name, CLASS_METHOD,
                                                                          "()Ljava/lang/Class;"))
            original = Instruction(-1, op.INVOKEVIRTUAL, pool.add_methodref(cf.name, name, descriptor))
            # the receiver is exactly this class: dispatch selected this very method
            exact = [Instruction(-1, op.ALOAD, 0), get_class, Instruction(-1, op.LDC_W, pool.add_class(cf.name)),
                     Instruction(-1, op.IF_ACMPEQ, go)]
        return [Instruction(-1, op.ILOAD, node_slot + 1), Instruction(-1, op.IFLT, go),
                *exact,
                Instruction(-1, op.ALOAD, 0), marker,
                Instruction(-1, op.ALOAD, 0),
                Instruction(-1, op.INVOKEVIRTUAL,
                            pool.add_methodref("java/lang/Object", "getClass", "()Ljava/lang/Class;")),
                Instruction(-1, op.IF_ACMPEQ, go),
                Instruction(-1, op.ALOAD, 0), Instruction(-1, op.ALOAD, node_slot),
                Instruction(-1, op.ILOAD, node_slot + 1), *self.mids.load(self_mid),
                Instruction(-1, op.INVOKESTATIC,
                            pool.add_methodref(ROOT, "redirect", "(Ljava/lang/Object;" + NODE_DESC + "I"
                                               + MID_DESC + ")" + NODE_DESC)),
                Instruction(-1, op.IFNULL, go),
                *args, original,
                Instruction(-1, G.return_opcode(md.return_type)),
                go]

    def _make_n2b(self, m: Method, self_mid: int) -> None:
        """The original signature: parent from the slot, call the ESI twin, leave the slot as found."""
        pool, cf = self.pool, self.cf
        md = parse_method_descriptor(m.descriptor)
        is_static = bool(m.access & ACC_STATIC)
        ctor = m.name == "<init>"
        args, slot = G.load_arguments(m.descriptor, is_static)
        parent, saved = slot, slot + 1
        this_or_null = Instruction(-1, op.ACONST_NULL) if is_static or ctor else Instruction(-1, op.ALOAD, 0)
        items: list = [this_or_null,*self.mids.load(self_mid),
                  Instruction(-1, op.INVOKESTATIC, pool.add_methodref(
                      ROOT, "n2bEnter", "(Ljava/lang/Object;" + MID_DESC + ")" + NODE_DESC)),
                  Instruction(-1, op.ASTORE, parent), *self._save_slot(parent, saved)]
        start, end, handler = Label("n2b_start"), Label("n2b_end"), Label("n2b_handler")
        ref = pool.add_methodref(cf.name, esi_name(m.name), esi_descriptor(m.descriptor), interface=self.is_interface)
        call = Instruction(-1, op.INVOKESTATIC if is_static else op.INVOKESPECIAL, ref)
        restore = self._restore_slot(parent, saved)
        items += [start, *args, Instruction(-1, op.ALOAD, parent), G.push_int(pool, ENTERED), call, end,
                  *restore, Instruction(-1, G.return_opcode(md.return_type))]
        body = CodeBody(items=items, max_locals=saved + 1)
        if not ctor:   # a handler may not cover this(...) in a constructor
            items += [handler, *restore, Instruction(-1, op.ATHROW)]
            body.handlers.append(Handler(start, end, handler, 0))
            if self.frames:
                body.frames[handler] = Frame(-1, initial_frame_locals(cf.name, m.name, m.descriptor, is_static)
                                             + [Object(NODE), Object(NODE)], [Object("java/lang/Throwable")])
        write_body(m, body)

    @staticmethod
    def _capable_call(pool, iface: str, name: str, descriptor: str, publishing: bool, md, args: list,
                      node: int, site: int) -> list:
        """The dispatcher's call on an instrumented receiver: its ESI method, or (publishing
        interfaces, which have none) the original method after publishing the caller's node and
        site, which the implementation's N2B wrapper enters beneath."""
        receiver_and_args = [Instruction(-1, op.ALOAD, 0), *[Instruction(-1, x.opcode, x.operand) for x in args]]
        if publishing:
            return [Instruction(-1, op.ALOAD, node), Instruction(-1, op.ILOAD, site),
                    Instruction(-1, op.INVOKEVIRTUAL, pool.add_methodref(NODE, "publishCall", "(I)V")),
                    *receiver_and_args,
                    InvokeInterface(-1, pool.add_methodref(iface, name, descriptor, interface=True),
                                    1 + md.param_slots)]
        return [*receiver_and_args, Instruction(-1, op.ALOAD, node), Instruction(-1, op.ILOAD, site),
                InvokeInterface(-1, pool.add_methodref(iface, esi_name(name), esi_descriptor(descriptor),
                                                       interface=True), 1 + md.param_slots + 2)]

    def _dispatcher_body(self, pool, load_mid, iface: str, name: str, descriptor: str, declaring: str,
                         publishing: bool) -> CodeBody:
        """``static R m(I self, args…, Node, int)``: how instrumented code calls interface method ``m``.

        The receiver may be anything that implements the interface: a proxy (which would hand an
        ESI method to its invocation handler), a lambda, a mock, an uninstrumented class. Only
        receivers whose class chain is instrumented get the ESI call; others get a boundary node
        and the original method. Callers call the copy in their *own* holder class (``iface`` is
        the interface their call site names): it is defined by the caller's loader beside the
        caller, so whatever loader arrangement the program has (Clojure's per-form loaders with a
        shared class cache, OSGi), the caller can see it; a static method in the interface is
        impossible below version 52 anyway. The interface's own holder keeps a copy for callers
        rewritten by older builds.
        """
        md = parse_method_descriptor(descriptor)
        slot = 1
        args = []
        for p in md.params:
            args.append(Instruction(-1, G.load_opcode(p), slot))
            slot += type_size(p)
        node, site = slot, slot + 1
        mid = self.mids.ref(declaring, name, descriptor, KIND_UNINSTRUMENTED)
        other, esi = Label("not_instrumented"), Label("esi")
        k = self.mids.dispatchers
        self.mids.dispatchers += 1
        seen = pool.add_fieldref(self.mids.holder, SEEN_FIELD, "[Ljava/lang/Class;")
        get_class = pool.add_methodref("java/lang/Object", "getClass", "()Ljava/lang/Class;")
        # an inline cache: the last receiver class found capable skips the runtime's ClassValue lookup
        items = [Instruction(-1, op.ALOAD, 0), Instruction(-1, op.INVOKEVIRTUAL, get_class),
                 Instruction(-1, op.GETSTATIC, seen), G.push_int(pool, k), Instruction(-1, op.AALOAD),
                 Instruction(-1, op.IF_ACMPEQ, esi),
                 Instruction(-1, op.ALOAD, 0),
                 Instruction(-1, op.INVOKESTATIC, pool.add_methodref(ROOT, "esiCapable", "(Ljava/lang/Object;)Z")),
                 Instruction(-1, op.IFEQ, other),
                 Instruction(-1, op.GETSTATIC, seen), G.push_int(pool, k),
                 Instruction(-1, op.ALOAD, 0), Instruction(-1, op.INVOKEVIRTUAL, get_class),
                 Instruction(-1, op.AASTORE),
                 esi,
                 *self._capable_call(pool, iface, name, descriptor, publishing, md, args, node, site),
                 Instruction(-1, G.return_opcode(md.return_type)), other,
                 *self._boundary_from(node, site, mid, pool, load_mid),
                 Instruction(-1, op.ALOAD, 0),
                 *[Instruction(-1, x.opcode, x.operand) for x in args],
                 InvokeInterface(-1, pool.add_methodref(iface, name, descriptor, interface=True),
                                 1 + md.param_slots),
                 Instruction(-1, G.return_opcode(md.return_type))]
        return CodeBody(items=items, max_locals=site + 1)

    # ------------------------------------------------------------------ B2N and delegators
    def _add_b2n(self, m: Method) -> None:
        pool, cf = self.pool, self.cf
        md = parse_method_descriptor(m.descriptor)
        is_static = bool(m.access & ACC_STATIC)
        args, slot = G.load_arguments(m.descriptor, is_static)
        node, site, saved = slot, slot + 1, slot + 2
        mid = self.mids.ref(cf.name, m.name, m.descriptor, KIND_NATIVE)
        if is_static:
            call = Instruction(-1, op.INVOKESTATIC, pool.add_methodref(cf.name, m.name, m.descriptor))
        elif m.access & ACC_PRIVATE:
            call = Instruction(-1, op.INVOKESPECIAL, pool.add_methodref(cf.name, m.name, m.descriptor))
        else:   # dispatch: an uninstrumented subclass's override of the native method must run
            call = Instruction(-1, op.INVOKEVIRTUAL, pool.add_methodref(cf.name, m.name, m.descriptor))
        start, end, handler = Label("b2n_start"), Label("b2n_end"), Label("b2n_handler")
        restore = self._restore_slot(node, saved)
        items = [Instruction(-1, op.ALOAD, node), Instruction(-1, op.ILOAD, site), *self.mids.load(mid),
                 Instruction(-1, op.INVOKEVIRTUAL, pool.add_methodref(NODE, "enter", "(I" + MID_DESC + ")" + NODE_DESC)),
                 Instruction(-1, op.ASTORE, node), *self._save_slot(node, saved),
                 Instruction(-1, op.ALOAD, node), Instruction(-1, op.INVOKEVIRTUAL, pool.add_methodref(NODE, "publish", "()V")),
                 start, *args, call, end, *restore, Instruction(-1, G.return_opcode(md.return_type)),
                 handler, *restore, Instruction(-1, op.ATHROW)]
        body = CodeBody(items=items, max_locals=saved + 1)
        body.handlers.append(Handler(start, end, handler, 0))
        if self.frames:
            body.frames[handler] = Frame(-1, initial_frame_locals(cf.name, m.name, esi_descriptor(m.descriptor),
                                                                  is_static) + [Object(NODE)],
                                         [Object("java/lang/Throwable")])
        access = m.access & ~(ACC_NATIVE | ACC_VARARGS) | ESI_FLAGS
        self._new_method(access, esi_name(m.name), esi_descriptor(m.descriptor), body, frames_done=True)
        self.report.emitted[(esi_name(m.name), esi_descriptor(m.descriptor))] = (m.name, m.descriptor)
        self.report.b2n += 1

    def _add_delegator(self, m: Method, *, abstract: bool) -> None:
        """Delegating ESI for an abstract method, or for one kept as it was (64 KB)."""
        is_static = bool(m.access & ACC_STATIC)
        interface = self.is_interface
        if is_static:
            opcode = op.INVOKESTATIC
        elif abstract:
            opcode = op.INVOKEINTERFACE if interface else op.INVOKEVIRTUAL
        else:
            opcode = op.INVOKESPECIAL   # this class's own (uninstrumented) body
        access = m.access & ~(ACC_ABSTRACT | ACC_VARARGS | ACC_NATIVE) | ESI_FLAGS
        if interface and not is_static and not m.access & ACC_PRIVATE:
            access |= ACC_PUBLIC
        self._delegating_esi(access, m.name, m.descriptor, opcode)

    def _delegating_esi(self, access: int, name: str, descriptor: str, opcode: int) -> None:
        """ESI that only records a boundary node and calls the original signature (contract: delegating ESI).

        A body of this class called with ``invokespecial`` may be overridden by an uninstrumented
        subclass, which has no ESI of its own: the override check runs that override instead.
        """
        pool, cf = self.pool, self.cf
        md = parse_method_descriptor(descriptor)
        args, slot = G.load_arguments(descriptor, opcode == op.INVOKESTATIC)
        mid = self.mids.ref(cf.name, name, descriptor, KIND_UNINSTRUMENTED)
        ref = pool.add_methodref(cf.name, name, descriptor, interface=self.is_interface)
        call = (InvokeInterface(-1, ref, 1 + md.param_slots) if opcode == op.INVOKEINTERFACE
                else Instruction(-1, opcode, ref))
        check: list = []
        if opcode == op.INVOKESPECIAL and self.check_overrides and name != "<init>" \
                and not access & (ACC_PRIVATE | ACC_FINAL | ACC_STATIC):
            check = self._override_check_for(name, descriptor, slot, mid)
            self._pending_frames = {}   # the new method's frames are inferred whole
        items = [*check, *self._boundary_from(slot, slot + 1, mid, self.pool, self.mids.load),
                 *args, call, Instruction(-1, G.return_opcode(md.return_type))]
        self._new_method(access, esi_name(name), esi_descriptor(descriptor), CodeBody(items=items, max_locals=slot + 2))
        self.report.emitted[(esi_name(name), esi_descriptor(descriptor))] = None
        self.report.delegators += 1

    @staticmethod
    def _boundary_from(node: int, site: int, mid: int, pool, load_mid) -> list:
        """``node.boundary(site, mid)`` with the node and the site in locals (ESI parameters)."""
        return [Instruction(-1, op.ALOAD, node), Instruction(-1, op.ILOAD, site), *load_mid(mid),
                Instruction(-1, op.INVOKEVIRTUAL, pool.add_methodref(NODE, "boundary", "(I" + MID_DESC + ")V"))]

    # ------------------------------------------------------------------ OSI <clinit> and the MID table
    def _osi_body(self, m: Method) -> tuple[CodeBody, int, int, int]:
        """An OSI method's body with two new locals (its node, the saved slot) and its MID."""
        body = disassemble(m)
        node = body.new_local()
        saved_slot = body.new_local()
        if self.frames:
            G.define_local_in_frames(body, node, Object(NODE))
            G.define_local_in_frames(body, saved_slot, Object(NODE))
        sites = sum(1 for x in body.items if not isinstance(x, Label) and x.opcode in _INVOKES)
        return body, node, saved_slot, self.mids.ref(self.cf.name, m.name, m.descriptor, KIND_INSTRUMENTED, sites)

    def _restoring_before_returns(self, items: list, node: int, saved_slot: int, dead: set[int]) -> list:
        out: list = []
        for x in items:
            if not isinstance(x, Label) and x.opcode == op.RETURN and id(x) not in dead:
                out += self._restore_slot(node, saved_slot)
            out.append(x)
        return out

    def _osi_constructor(self, m: Method) -> None:
        """OSI constructor: instrumented in place, entered beneath the node its caller published.

        No ESI twin: a second public constructor would change what reflection sees (containers
        that inject through "the" public constructor, as Kotlin's and Spring's do). Callers
        publish their node and call site (``PUBLISH`` sites); the prologue enters beneath them
        (``ThreadRoot.ctorEnter``), and the slot is left as found on the normal path (no handler
        may cover ``super(...)``).
        """
        self._osi_in_place(m)

    def _osi_clinit(self) -> None:
        """OSI ``<clinit>``: instrumented in place; leaves the callback slot as it found it.

        The JVM runs a static initialiser from wherever the class is first used (often just
        before ``main``): the slot must not keep a node of the initialiser's own calls.
        """
        clinit = self.cf.method("<clinit>", "()V")
        if clinit is not None and clinit.code() is not None:
            self._osi_in_place(clinit)

    def _osi_in_place(self, m: Method) -> None:
        """Write OSI method ``m``; split it (see :mod:`.outline`) when it would pass 64 KB."""
        for budget in (None, *_SPLIT_BUDGETS):
            try:
                parts = self._osi_write(m, budget)
            except CodeTooLargeError:
                self._pending_frames = {}
                continue
            if parts is None:
                break
            self.cf.methods.extend(parts)
            for added in (m, *parts):
                self.report.emitted[(added.name, added.descriptor)] = (m.name, m.descriptor)
            self.report.osi += 1
            self.report.split += bool(parts)
            return
        self.report.not_instrumented.append(f"{self._where(m)}: too large once instrumented (64 KB) and no "
                                            "region could be split off; kept as it was")

    def _taken(self, prefix: str) -> int:
        """How many methods of the class are named ``prefix<N>`` already (overloads are split apart)."""
        return sum(1 for x in self.cf.methods if x.name.startswith(prefix) and x.name[len(prefix):].isdigit())

    def _osi_prologue(self, m: Method, node: int, saved_slot: int, self_mid: int) -> list:
        """Enter the OSI method's node (beneath what the caller published) and save the slot."""
        pool = self.pool
        if m.name == "<clinit>":
            enter = [Instruction(-1, op.ACONST_NULL), *self.mids.load(self_mid),
                     Instruction(-1, op.INVOKESTATIC, pool.add_methodref(
                         ROOT, "n2bParent", "(Ljava/lang/Object;" + MID_DESC + ")" + NODE_DESC)),
                     Instruction(-1, op.ICONST_M1), *self.mids.load(self_mid),
                     Instruction(-1, op.INVOKEVIRTUAL, pool.add_methodref(
                         NODE, "enter", "(I" + MID_DESC + ")" + NODE_DESC))]
        else:
            enter = [*self.mids.load(self_mid),
                     Instruction(-1, op.INVOKESTATIC, pool.add_methodref(
                         ROOT, "ctorEnter", "(" + MID_DESC + ")" + NODE_DESC))]
        return [*enter, Instruction(-1, op.ASTORE, node), *self._save_slot(node, saved_slot)]

    def _osi_write(self, m: Method, budget: int | None) -> list[Method] | None:
        """Instrument OSI method ``m`` in place; with ``budget``, regions outlined first.

        Returns the outlined parts ([] without ``budget``), None when nothing can be split off;
        raises CodeTooLargeError when the result does not fit.
        """
        clinit = m.name == "<clinit>"
        body, node, saved_slot, self_mid = self._osi_body(m)
        prologue = self._osi_prologue(m, node, saved_slot, self_mid)
        parts: list[Method] = []
        added: set[int] = set()
        part_calls: dict[int, int] = {}
        if budget is not None:
            if self.is_interface and self.cf.major < 52:
                return None     # no private static methods in such an interface
            body.insert(0, prologue)
            added = {id(x) for x in prologue}
            prefix = ("clinit" if clinit else "init") + "$jp$"
            outlined = outline_regions(body, self.pool, self.cf.name, m.name, m.descriptor, clinit,
                                       self.hierarchy, budget=budget, name_prefix=prefix,
                                       interface=self.is_interface, fixed=added, first_index=self._taken(prefix))
            if not outlined:
                return None
            parts = self._write_parts(outlined, node, self_mid)
            added |= set().union(*(p.synthetic for p in outlined))
            part_calls = {id(p.call): p.sites for p in outlined}
        dead = self._instrument(m, body, node, self_mid, added=added, part_calls=part_calls)
        items = self._restoring_before_returns(body.items, node, saved_slot, dead)
        head: list = []
        if budget is not None:      # the prologue is in place already: the handler starts after it
            last = next(i for i, x in enumerate(items) if x is prologue[-1])
            head, items = items[:last + 1], items[last + 1:]
        if clinit:
            start, end, handler = Label("osi_start"), Label("osi_end"), Label("osi_handler")
            items = [start, *items, end, handler, *self._restore_slot(node, saved_slot), Instruction(-1, op.ATHROW)]
            body.handlers.append(Handler(start, end, handler, 0))   # last: original handlers come first
            if self.frames:
                self._pending_frames[handler] = Frame(-1, [Top] * node + [Object(NODE), Object(NODE)],
                                                      [Object("java/lang/Throwable")])
        body.items = head + items
        if budget is None:
            body.insert(0, prologue)
        self._handler_frames(m, body)
        self._write(m, body)
        return parts

    def _build_holder(self) -> tuple[str, bytes]:
        """The holder class: ``static final MethodId[] $jp$mids``, filled in chunks by its ``<clinit>``."""
        holder = ClassFile()
        holder.major, holder.minor = 49, 0          # no StackMapTable needed (inference verifier)
        # public when it holds interface dispatchers: callers in other packages call them
        holder.access = ACC_FINAL | ACC_SUPER | ACC_SYNTHETIC | (ACC_PUBLIC if self.holder_dispatchers else 0)
        pool = holder.pool
        holder.this_class = pool.add_class(self.mids.holder)
        holder.super_class = pool.add_class("java/lang/Object")
        wanted = [(self.cf.name, m.name, m.descriptor, self.cf.name, self.publishing) for m in self.holder_dispatchers]
        wanted += [(iface, name, desc, declaring, publishing)
                   for (iface, name, desc), (declaring, publishing) in self.caller_dispatchers.items()
                   if (iface, name, desc) not in {(w[0], w[1], w[2]) for w in wanted}]
        for iface, name, desc, declaring, publishing in wanted:
            body = self._dispatcher_body(pool, self.mids.holder_pool_loads(pool), iface, name, desc, declaring,
                                         publishing)
            d = Method(ACC_PUBLIC | ACC_STATIC | ACC_SYNTHETIC, pool.add_utf8(name),
                       pool.add_utf8(dispatcher_descriptor(iface, desc)), [], holder)
            write_body(d, body)
            holder.methods.append(d)
        holder.fields.append(Field(ACC_STATIC | ACC_FINAL | ACC_SYNTHETIC, pool.add_utf8(MIDS_FIELD),
                                   pool.add_utf8(MIDS_ARRAY), [], holder))
        n = len(self.mids.entries)
        items = []
        if self.mids.dispatchers:
            holder.fields.append(Field(ACC_STATIC | ACC_FINAL | ACC_SYNTHETIC, pool.add_utf8(SEEN_FIELD),
                                       pool.add_utf8("[Ljava/lang/Class;"), [], holder))
            items += [G.push_int(pool, self.mids.dispatchers),
                      Instruction(-1, op.ANEWARRAY, pool.add_class("java/lang/Class")),
                      Instruction(-1, op.PUTSTATIC, pool.add_fieldref(self.mids.holder, SEEN_FIELD,
                                                                      "[Ljava/lang/Class;"))]
        items += [G.push_int(pool, n), Instruction(-1, op.ANEWARRAY, pool.add_class(MID))]
        for k, start in enumerate(range(0, n, _MIDS_PER_CHUNK)):
            end = min(n, start + _MIDS_PER_CHUNK)
            name = f"fill{k}"
            desc = "(" + MIDS_ARRAY + ")" + MIDS_ARRAY
            m = Method(ACC_PRIVATE | ACC_STATIC, pool.add_utf8(name), pool.add_utf8(desc), [], holder)
            write_body(m, CodeBody(items=[Instruction(-1, op.ALOAD, 0), *self.mids.fill(pool, start, end),
                                          Instruction(-1, op.ARETURN)], max_locals=1))
            holder.methods.append(m)
            items.append(Instruction(-1, op.INVOKESTATIC, pool.add_methodref(self.mids.holder, name, desc)))
        items += [Instruction(-1, op.PUTSTATIC, pool.add_fieldref(self.mids.holder, MIDS_FIELD, MIDS_ARRAY)),
                  Instruction(-1, op.RETURN)]
        clinit = Method(ACC_STATIC, pool.add_utf8("<clinit>"), pool.add_utf8("()V"), [], holder)
        write_body(clinit, CodeBody(items=items, max_locals=0))
        holder.methods.append(clinit)
        return self.mids.holder, holder.to_bytes()

    def _add_class_method(self) -> None:
        """``$jprewrite$class()``: the class literal, or null when no ESI may trust the fast override check.

        Null in interfaces (a default: classes that implement the interface without being
        instrumented inherit it) and in classes with an uninstrumented application superclass.
        """
        pool, cf = self.pool, self.cf
        if self.is_interface or self._uninstrumented_superclass():
            value = Instruction(-1, op.ACONST_NULL)
        else:
            value = Instruction(-1, op.LDC_W, pool.add_class(cf.name))
        body = CodeBody(items=[value, Instruction(-1, op.ARETURN)], max_locals=1)
        self._new_method(ACC_PUBLIC | ESI_FLAGS, CLASS_METHOD, "()Ljava/lang/Class;", body)
        self.report.emitted[(CLASS_METHOD, "()Ljava/lang/Class;")] = None
        # what the runtime recognises an instrumented class by: a field, which subclasses that
        # generators make at run time (cglib's Enhancer overrides every visible method,
        # $jprewrite$class included) do not copy
        cf.fields.append(Field(ACC_PRIVATE | ACC_STATIC | ACC_SYNTHETIC, pool.add_utf8(MARKER_FIELD),
                               pool.add_utf8("Z"), [], cf))

    def _uninstrumented_superclass(self) -> bool:
        """Does an application superclass stay uninstrumented (its methods may override ours)?"""
        chain = list(self.hierarchy.superclasses(self.cf.name))[1:]
        if not chain or chain[-1].name != "java/lang/Object":
            return True   # a superclass is missing: assume the worst
        return any(not info.from_jdk and not self.plan.is_instrumented(info.name) for info in chain)

    # ------------------------------------------------------------------ bodies
    def _instrument(self, method: Method, body: CodeBody, node: int, self_mid: int, *, first_site: int = 0,
                    added: set[int] | frozenset = frozenset(), part_calls: dict[int, int] | None = None) -> set[int]:
        """Counters at block starts, call sites, allocations and init publishes, in one pass over ``body``.

        ``first_site``: the number of the body's first call site (an outlined part continues its
        method's numbering); ``added``: ids of instructions the splitting added (the calls of
        outlined parts, the loads and stores around them, a part's own entry and exit), which are
        not counted and are no call sites; ``part_calls``: call id -> call sites the part holds.
        Returns the ids of the ``return`` instructions in dead code (which OSI bodies leave alone).
        """
        cf, pool, opts, plan = self.cf, self.pool, self.options, self.plan
        counting = opts.counting != "none" or opts.weights is not None
        blocks = B.basic_blocks(body, opts.counting if opts.counting != "none" else "default", pool=pool)
        # dead code never runs: it gets no counters, checks or calls, and keeps its frames as they are
        live = B.reachable_blocks(blocks)
        dead = bytearray(len(body.items))
        for b in blocks:
            if b.index not in live:
                dead[b.start:b.end] = b"\x01" * (b.end - b.start)
        if not counting and not opts.activation:
            blocks = []
        blocks = [b for b in blocks if b.index in live]
        self.report.blocks += len(blocks)
        starts = {self._past_added(body, b.start, added): b for b in blocks}
        activation = self._activation_plan(method, body, blocks) if opts.activation else {}
        init_done = G.after_initialisation(cf.name, method.name, method.descriptor, body, pool)
        position = {x: i for i, x in enumerate(body.items) if isinstance(x, Label)}
        original_handlers = list(body.handlers)
        temps = self._current_temps_base = body.max_locals
        extra_locals = 0
        bytecodes_ref = pool.add_fieldref(NODE, "bytecodes", "J")
        weighted_ref = pool.add_fieldref(NODE, "weighted", "J")
        out: list = []
        tail: list = []
        first_handlers: list[Handler] = []
        last_handlers: list[Handler] = []
        site = first_site
        dead_returns: set[int] = set()
        for i, item in enumerate(body.items):
            blk = starts.get(i)
            if blk is not None:
                if blk.index in activation:
                    out += self._activation_code(node, blk, *activation[blk.index], method, body)
                size = blk.size
                if added:
                    size -= sum(1 for x in body.items[blk.start:blk.end] if id(x) in added)
                if opts.counting != "none" and size:
                    out += self._add_long(node, bytecodes_ref, size)
                if opts.weights is not None:
                    w = sum(opts.weights.get(x.opcode, 0) for x in body.items[blk.start:blk.end]
                            if not isinstance(x, Label) and id(x) not in added)
                    if w:
                        out += self._add_long(node, weighted_ref, w)
            if isinstance(item, Label):
                out.append(item)
                continue
            opc = item.opcode
            if id(item) in added:
                site += part_calls.get(id(item), 0) if part_calls else 0
                out.append(item)
                continue
            if dead[i]:
                if opc in _INVOKES:
                    site += 1   # sites are numbered in code order, dead ones included
                elif opc in B.RETURN_OPCODES:
                    dead_returns.add(id(item))
                out.append(item)
                continue
            if opc in _INVOKES:
                pre, call, post, pending = self._call_site(item, node, site, cf.name)
                site += 1
                out += pre
                if pending is not None and init_done is not None and i >= init_done:
                    start, end, handler = Label("pending_start"), Label("pending_end"), Label("pending_handler")
                    out += [start, call, end]
                    handler_end = Label("pending_handler_end")
                    tail += [handler, *pending, Instruction(-1, op.ATHROW), handler_end]
                    first_handlers.append(Handler(start, end, handler, 0))
                    for h in original_handlers:   # the rethrow must meet the handlers the call met
                        if position[h.start] <= i < position[h.end]:
                            last_handlers.append(Handler(handler, handler_end, h.handler, h.catch_type))
                else:
                    out.append(call)
                out += post
                if pending is not None:
                    extra_locals = max(extra_locals, pending_temps(item, pool))
                continue
            if opc == op.NEW:
                target = pool.class_name(item.operand)
                if plan.needs_init_publish(target, cf.name):
                    out += self._publish(node)
                if opts.allocations:
                    out += self._allocate(node, target)
            elif opc in (op.GETSTATIC, op.PUTSTATIC):
                owner, name, desc = pool.member_ref(item.operand)
                f = self.hierarchy.resolve_field(owner, name, desc)
                if f is not None and plan.needs_init_publish(f.owner, cf.name):
                    out += self._publish(node)
            elif opts.allocations and opc == op.NEWARRAY:
                out += self._allocate(node, _ARRAY_TYPES.get(item.operand, "[?"))
            elif opts.allocations and opc == op.ANEWARRAY:
                elem = pool.class_name(item.operand)
                out += self._allocate(node, "[" + (elem if elem.startswith("[") else "L" + elem + ";"))
            elif opts.allocations and opc == op.MULTIANEWARRAY:
                out += self._allocate(node, pool.class_name(item.operand))
            out.append(item)
        body.items = out + tail
        body.handlers = first_handlers + body.handlers + last_handlers
        self._pending_handlers = [(h.start, h.handler) for h in first_handlers]
        body.max_locals = max(body.max_locals, temps + extra_locals)
        return dead_returns

    @staticmethod
    def _past_added(body: CodeBody, index: int, added) -> int:
        """Where a block's counter goes: past the labels there and the rewriting's own instructions
        (an OSI prologue entering the node the counter updates)."""
        items = body.items
        while index < len(items) and (isinstance(items[index], Label) or id(items[index]) in added):
            index += 1
        return index

    def _activation_plan(self, method: Method, body: CodeBody, blocks: list) -> dict[int, tuple[int, bool]]:
        """JP section 5.2: {block: (decrement, with check)} at the entry, loop starts, handlers, subroutines.

        The decrement is the longest path (in bytecodes) to the next update point, so the counter
        stays an upper bound of what was executed; the conditional is at the entry (left out
        where JP allows) and at every loop start. ``<clinit>`` runs once: no entry check there.
        """
        if not blocks:
            return {}
        loops = B.backward_jump_targets(body, blocks)
        points = B.update_points(blocks, loops)
        try:
            lengths = B.longest_paths(body, blocks, points)
        except ValueError:   # a cycle no update point breaks (jsr/ret shapes): no activation here
            return {}
        checks = set(loops)
        if method.name != "<clinit>" and not B.omittable_checks(body, blocks, loops):
            checks.add(0)
        return {b: (lengths[b], b in checks) for b in points if lengths.get(b, 0) > 0 or b in checks}

    def _activation_code(self, node: int, blk, amount: int, check: bool, method: Method, body: CodeBody) -> list:
        pool = self.pool
        root_of = pool.add_fieldref(NODE, "root", "L" + ROOT + ";")
        counter = pool.add_fieldref(ROOT, "activation", "I")
        out = []
        if amount:
            out += [Instruction(-1, op.ALOAD, node), Instruction(-1, op.GETFIELD, root_of), Instruction(-1, op.DUP),
                    Instruction(-1, op.GETFIELD, counter), G.push_int(pool, amount), Instruction(-1, op.ISUB),
                    Instruction(-1, op.PUTFIELD, counter)]
        if check:
            if self.frames:
                frame = _frame_before(body, blk.start)
                if frame is None and blk.index != 0:
                    return out          # no frame to give the skip label (cannot happen with javac)
                if frame is None:
                    locals_ = initial_frame_locals(self.cf.name, method.name, method.descriptor,
                                                   bool(method.access & ACC_STATIC))
                    slots = sum(2 if t in (Long, Double) else 1 for t in locals_)
                    if node >= slots:   # OSI bodies: the node and the saved slot (node + 1) are locals
                        locals_ = locals_ + [Top] * (node - slots) + [Object(NODE), Object(NODE)]
                    frame = Frame(-1, locals_, [])
            skip = Label("activation_ok")
            if self.frames:
                self._pending_frames[skip] = Frame(-1, list(frame.locals), list(frame.stack))
            out += [Instruction(-1, op.ALOAD, node), Instruction(-1, op.GETFIELD, root_of),
                    Instruction(-1, op.GETFIELD, counter), Instruction(-1, op.IFGT, skip),
                    Instruction(-1, op.ALOAD, node), Instruction(-1, op.GETFIELD, root_of),
                    Instruction(-1, op.ALOAD, node),
                    Instruction(-1, op.INVOKEVIRTUAL, pool.add_methodref(ROOT, "triggerReport", "(" + NODE_DESC + ")V")),
                    skip]
        return out

    def _save_slot(self, node: int, saved: int) -> list:
        """``saved = node.root.published`` (wrappers and OSI leave the callback slot as they found it)."""
        pool = self.pool
        return [Instruction(-1, op.ALOAD, node), Instruction(-1, op.GETFIELD, pool.add_fieldref(NODE, "root", "L" + ROOT + ";")),
                Instruction(-1, op.GETFIELD, pool.add_fieldref(ROOT, "published", NODE_DESC)),
                Instruction(-1, op.ASTORE, saved)]

    def _restore_slot(self, node: int, saved: int) -> list:
        """``node.root.published = saved``."""
        pool = self.pool
        return [Instruction(-1, op.ALOAD, node), Instruction(-1, op.GETFIELD, pool.add_fieldref(NODE, "root", "L" + ROOT + ";")),
                Instruction(-1, op.ALOAD, saved), Instruction(-1, op.PUTFIELD, pool.add_fieldref(ROOT, "published", NODE_DESC))]

    def _add_long(self, node: int, ref: int, amount: int) -> list:
        return [Instruction(-1, op.ALOAD, node), Instruction(-1, op.DUP), Instruction(-1, op.GETFIELD, ref),
                Instruction(-1, op.LDC2_W, self.pool.add_long(amount)), Instruction(-1, op.LADD),
                Instruction(-1, op.PUTFIELD, ref)]

    def _publish(self, node: int) -> list:
        return [Instruction(-1, op.ALOAD, node),
                Instruction(-1, op.INVOKEVIRTUAL, self.pool.add_methodref(NODE, "publish", "()V"))]

    def _allocate(self, node: int, type_name: str) -> list:
        pool = self.pool
        return [Instruction(-1, op.ALOAD, node), Instruction(-1, op.LDC_W, pool.add_string(type_name)),
                Instruction(-1, op.INVOKEVIRTUAL, pool.add_methodref(NODE, "allocate", "(Ljava/lang/String;)V"))]

    def _call_site(self, insn: Instruction, node: int, site: int, this_class: str):
        """(code before, the call, code after, pending-handler code or None) for one invoke."""
        pool, plan = self.pool, self.plan
        site_push = G.push_int(pool, site)
        if insn.opcode == op.INVOKEDYNAMIC:
            const = pool[insn.operand]
            name, desc = pool.name_and_type(const.name_and_type_index)
            mid = self.mids.ref("invokedynamic", name, desc, KIND_JDK)
            self.report.call_sites["boundary"] += 1
            return self._boundary(node, site, mid), insn, [], None
        owner, name, desc = pool.member_ref(insn.operand)
        interface = pool.tag(insn.operand) == 11
        decision = plan.call_site(insn.opcode, owner, name, desc, interface)
        pre: list = []
        if insn.opcode == op.INVOKESTATIC and decision.resolved and plan.needs_init_publish(decision.owner, this_class):
            pre += self._publish(node)
        self.report.call_sites[decision.action] += 1
        if decision.action == PLAIN:
            return pre, insn, [], None
        if decision.action == PUBLISH:
            publish = pool.add_methodref(NODE, "publishCall", "(I)V")
            return pre + [Instruction(-1, op.ALOAD, node), site_push,
                          Instruction(-1, op.INVOKEVIRTUAL, publish)], insn, [], None
        if decision.action == PASS_INTERFACE:
            declaring = decision.owner[:-len(HOLDER_SUFFIX)]
            # the interface the call site names (accessible to this class), else the declaring one
            iface = owner if interface else declaring
            self.caller_dispatchers.setdefault((iface, name, desc),
                                               (declaring, plan.publishing_dispatcher(declaring, name, desc)))
            ref = pool.add_methodref(self.mids.holder, name, dispatcher_descriptor(iface, desc),
                                     interface=False)
            return pre + [Instruction(-1, op.ALOAD, node), site_push], Instruction(-1, op.INVOKESTATIC, ref), [], None
        if decision.action == PASS:
            if insn.opcode == op.INVOKESPECIAL and name != "<init>" and decision.owner != self.cf.name:
                site_push = G.push_int(pool, -1)   # a super call selected its method: no override check
            ref = pool.add_methodref(owner, esi_name(name), esi_descriptor(desc), interface=interface)
            if insn.opcode == op.INVOKEINTERFACE:
                call = InvokeInterface(-1, ref, insn.count + 2)
            else:
                call = Instruction(-1, insn.opcode, ref)
            return pre + [Instruction(-1, op.ALOAD, node), site_push], call, [], None
        mid = self.mids.ref(decision.owner, decision.name, decision.descriptor, decision.kind)
        if decision.action == BOUNDARY:
            return pre + self._boundary(node, site, mid), insn, [], None
        assert decision.action == PENDING
        end_pending = [Instruction(-1, op.ALOAD, node), G.push_int(pool, site), *self.mids.load(mid),
                       Instruction(-1, op.INVOKESTATIC, pool.add_methodref(
                           ROOT, "endPending", "(" + NODE_DESC + "I" + MID_DESC + ")V"))]
        return pre + self._spill_for_pending(insn, node, site, mid, desc), insn, end_pending, end_pending

    def _boundary(self, node: int, site: int, mid: int) -> list:
        pool = self.pool
        return [Instruction(-1, op.ALOAD, node), G.push_int(pool, site), *self.mids.load(mid),
                Instruction(-1, op.INVOKEVIRTUAL, pool.add_methodref(NODE, "boundary", "(I" + MID_DESC + ")V"))]

    def _spill_for_pending(self, insn, node: int, site: int, mid: int, desc: str) -> list:
        """Store the arguments in temporaries, hand the receiver to ``ThreadRoot.pending``, reload."""
        pool = self.pool
        params = parse_method_descriptor(desc).params
        base = self._current_temps_base
        slots = []
        slot = base + 1
        for p in params:
            slots.append(slot)
            slot += type_size(p)
        out = [Instruction(-1, G.store_opcode(p), s) for p, s in reversed(list(zip(params, slots)))]
        out += [Instruction(-1, op.DUP), Instruction(-1, op.ASTORE, base),
                Instruction(-1, op.ALOAD, node), G.push_int(pool, site), *self.mids.load(mid),
                Instruction(-1, op.ALOAD, base),
                Instruction(-1, op.INVOKESTATIC, pool.add_methodref(
                    ROOT, "pending", "(" + NODE_DESC + "I" + MID_DESC + "Ljava/lang/Object;)V"))]
        out += [Instruction(-1, G.load_opcode(p), s) for p, s in zip(params, slots)]
        return out


def _frame_before(body: CodeBody, index: int) -> Frame | None:
    """The frame at the run of labels just before ``body.items[index]``, if any."""
    i = index - 1
    while i >= 0 and isinstance(body.items[i], Label):
        frame = body.frames.get(body.items[i])
        if frame is not None:
            return frame
        i -= 1
    return None


def pending_temps(insn, pool) -> int:
    """Local slots a pending call site needs: the receiver and every argument."""
    _, _, desc = pool.member_ref(insn.operand)
    return 1 + parse_method_descriptor(desc).param_slots


def instrument_class(cf: ClassFile, plan: CctPlan, options: InstrumentOptions | None = None, *,
                     contract_only: bool = False, keep: frozenset[tuple[str, str]] = frozenset(),
                     keep_reason: str = "kept as it was") -> ClassReport:
    """Rewrite ``cf`` in place for CCT profiling. Raises :class:`AlreadyInstrumented` for a rewritten class.

    ``contract_only``: keep every body as it is and add only what callers rewritten under the same
    plan rely on (delegating ESI methods, dispatchers, the holder): the fallback for a class whose
    full rewrite failed after other classes were already rewritten against it (load time).
    ``keep``: (name, descriptor) of methods whose bodies stay as they are (reached through a
    delegating ESI; constructors and ``<clinit>`` not instrumented), reported with ``keep_reason``:
    what the verification gate asks for when an instrumented form failed (:mod:`.pipeline`).
    """
    if cf.access & ACC_MODULE:
        return ClassReport()
    if cf.name.endswith(HOLDER_SUFFIX) or any(m.name == CLASS_METHOD for m in cf.methods):
        raise AlreadyInstrumented(f"{cf.name} was already rewritten by jprewrite")
    return _ClassRewriter(cf, plan, options or InstrumentOptions(), contract_only, keep, keep_reason).run()
