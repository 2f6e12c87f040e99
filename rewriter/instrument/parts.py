"""Outlined parts as instrumented methods: what a method split to fit in 64 KB is made of.

The parts (:mod:`.outline` chooses and cuts the regions) run with their method's node in a
local and continue its call-site numbering; they have no node of their own.

A method is also split when instrumenting it would take it past HotSpot's limit for JIT
compilation (:data:`JIT_HUGE_METHOD_LIMIT`) while the original is within it: HotSpot never compiles
a method of more code bytes (``-XX:+DontCompileHugeMethods``, the default), so such a method runs
in the interpreter for good. commons-math3's ``SingularValueDecomposition`` constructor, 11,633
bytes with precise counting, made the shared ``math`` workload 7x slower than plain instead of 2x.
"""

from __future__ import annotations

from typing import Final

from ..classfile.model import ACC_PRIVATE, ACC_STATIC, ACC_SYNTHETIC, Method
from .body_pass import instrument_body
from .context import ClassContext
from .emit import assemble
from .outline import OutlinedPart

__all__ = [
    "JIT_HUGE_METHOD_LIMIT",
    "JIT_SPLIT_BUDGETS",
    "SPLIT_BUDGETS",
    "code_length",
    "jit_refuses",
    "report_interpreted",
    "split_attempts",
    "write_parts",
]

#: region sizes (original code bytes) tried in turn when a method must be split to fit in 64 KB
SPLIT_BUDGETS: Final = (24_000, 12_000, 6_000, 3_000)

#: HotSpot's ``HugeMethodLimit``: methods of more code bytes are never JIT-compiled
#: (``DontCompileHugeMethods`` is on by default in every release since JDK 6)
JIT_HUGE_METHOD_LIMIT: Final = 8000

#: region sizes (original code bytes) tried in turn when instrumenting would pass that limit; an
#: instrumented region is up to about 2.5x its original size (precise counting, many short blocks)
JIT_SPLIT_BUDGETS: Final = (3_000, 1_500, 750)


def split_attempts(budgets: tuple[int, ...]) -> list[tuple[int, bool]]:
    """The splits tried in turn, ``(budget, switches)``: ordinary regions at each budget, then runs of
    big switches' cases (:mod:`.outline_switches`) with ordinary regions in the rest. A method
    that splits the first way keeps the split it always had."""
    return [(b, False) for b in budgets] + [(b, True) for b in budgets]


def code_length(m: Method) -> int:
    """``m``'s code bytes (0 without code)."""
    code = m.code()
    return 0 if code is None else len(code.code)


def jit_refuses(original_length: int, methods: list[Method]) -> bool:
    """Would HotSpot refuse to compile one of ``methods`` (an instrumented method and its parts)
    although it compiles the original, of ``original_length`` code bytes?"""
    return original_length <= JIT_HUGE_METHOD_LIMIT and any(code_length(x) > JIT_HUGE_METHOD_LIMIT for x in methods)


def report_interpreted(ctx: ClassContext, m: Method, length: int) -> None:
    """``m`` is instrumented whole at ``length`` code bytes, past the JIT's limit, although its
    original is within it: no split keeps it compilable (a big ``switch`` of small cases)."""
    ctx.report.past_jit_limit.append(
        f"{ctx.where(m)}: {length:,} code bytes once instrumented, past HotSpot's limit for compiling "
        f"(HugeMethodLimit, {JIT_HUGE_METHOD_LIMIT:,}), and no split keeps it within: it runs interpreted"
    )


def write_parts(ctx: ClassContext, parts: list[OutlinedPart], node: int) -> list[Method]:
    """The outlined parts as instrumented methods (the caller adds them once everything fits)."""
    methods = []
    for part in parts:
        pm = Method(
            ACC_PRIVATE | ACC_STATIC | ACC_SYNTHETIC,
            ctx.pool.add_utf8(part.name),
            ctx.pool.add_utf8(part.descriptor),
            [],
            ctx.cf,
        )
        result = instrument_body(ctx, pm, part.body, node, first_site=part.first_site, added=part.added, entry=False)
        assemble(ctx, pm, part.body, result.needs)
        methods.append(pm)
    return methods
