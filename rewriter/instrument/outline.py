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
  ``monitorenter``/``monitorexit`` (structured locking is per frame), ``invokespecial``
  of another class's method (a super call needs an instance method), or write to a final field
  of the class (the JVM allows one only in ``<init>``, or ``<clinit>`` for a static one: h2's
  ``Database`` constructor, split for the JIT's limit, failed with ``IllegalAccessError``);
* branches and switches in it stay in it or go to its end; nothing outside jumps in;
* an exception handler either covers all of it (and then does not read a local the region
  stores, whose value it would see too early), or lies inside it with its handler code.
"""

from __future__ import annotations

from ..editor import CodeBody
from .outline_parts import OutlinedPart, PartCutter
from .outline_regions import MethodSite, Region, region_finder
from .outline_switch_parts import SwitchCutter
from .outline_switches import SwitchFinder

__all__ = ["OutlinedPart", "outline_regions"]


def outline_regions(
    body: CodeBody,
    pool,
    this_class: str,
    method_name: str,
    descriptor: str,
    is_static: bool,
    hierarchy,
    *,
    budget: int,
    name_prefix: str,
    interface: bool = False,
    fixed: set[int] | frozenset = frozenset(),
    first_index: int = 0,
    final_fields: frozenset[tuple[str, str]] = frozenset(),
    switches: bool = False,
) -> list[OutlinedPart]:
    """Move regions of at most about ``budget`` code bytes out of ``body``; returns the parts.

    ``body`` (with its frames) is changed in place: each region becomes loads of the slots,
    ``invokestatic this_class.<name_prefix><first_index + k>``, and stores of what it returns. Returns an
    empty list (and leaves ``body`` unchanged) when no region qualifies. ``hierarchy`` decides
    which reference types are interfaces (no checkcast on the way back: the verifier treats
    interface types as Object). ``fixed``: ids of instructions the rewriting put there already
    (an OSI prologue): they never move and are not call sites. ``final_fields``: (name,
    descriptor) of the class's final fields, whose writes never move. ``switches``: runs of the
    cases of big switches first (:mod:`.outline_switches`), each part with a switch of its own, then
    ordinary regions in the rest.

    Choosing (:mod:`.outline_regions`, :mod:`.outline_switches`) leaves the code as it is (it only
    sets the labels' offsets); cutting (:mod:`.outline_parts`, :mod:`.outline_switch_parts`) changes
    it, once every region is known.
    """
    site = MethodSite(this_class, method_name, descriptor, is_static)
    finder = region_finder(body, pool, site, hierarchy, fixed=fixed, final_fields=final_fields)
    if finder is None:
        return []
    regions: list = []
    if switches:
        regions = SwitchFinder(finder, body).regions(budget)
        if not regions:
            return []
    regions = sorted([*regions, *finder.regions(budget)], key=lambda r: r.start)
    if not regions:
        return []
    return _cut(
        body,
        regions,
        PartCutter(body, pool, this_class, hierarchy, interface=interface, fixed=fixed),
        name_prefix,
        first_index,
    )


def _cut(body: CodeBody, regions: list, cutter: PartCutter, name_prefix: str, first_index: int) -> list[OutlinedPart]:
    """Replace each region of ``body`` by a call to a new part ``<name_prefix><first_index + k>``.

    The parts are built in code order (the pool's order is part of the output); the items are
    replaced last, from the end back, so the regions' indices stay valid while the parts are built.
    """
    switch_cutter = SwitchCutter(cutter)
    parts: list[OutlinedPart] = []
    calls: list[list] = []
    for k, region in enumerate(regions):
        name = f"{name_prefix}{first_index + k}"
        part, seq = cutter.cut(region, name) if isinstance(region, Region) else switch_cutter.cut(region, name)
        parts.append(part)
        calls.append(seq)
    for k in range(len(regions) - 1, -1, -1):
        body.items[regions[k].start : regions[k].end] = calls[k]
    switch_cutter.finish()
    return parts
