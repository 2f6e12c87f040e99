"""Outlined parts as instrumented methods: what a method split to fit in 64 KB is made of.

The parts (:mod:`.outline` chooses and cuts the regions) run with their method's node in a
local and continue its call-site numbering; they have no node of their own.
"""

from __future__ import annotations

from typing import Final

from ..classfile.model import ACC_PRIVATE, ACC_STATIC, ACC_SYNTHETIC, Method
from .body_pass import instrument_body
from .context import ClassContext
from .emit import assemble
from .outline import OutlinedPart

__all__ = ["SPLIT_BUDGETS", "write_parts"]

#: region sizes (original code bytes) tried in turn when a method must be split to fit in 64 KB
SPLIT_BUDGETS: Final = (24_000, 12_000, 6_000, 3_000)


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
