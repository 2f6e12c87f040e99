"""What the instrumentation adds, as one options object parsed once for every entry point.

The offline rewriter (``--counting``, ``--weights FILE``…), the agent (``counting=…,weights=…``)
and the tests all build an :class:`InstrumentOptions`; the layers above never interpret a
counting mode or a weights file themselves.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from ..classfile import opcodes as op
from ..errors import JprewriteError

__all__ = ["COUNTING_MODES", "MODES", "InstrumentOptions", "instrument_options", "leaf_bodies", "read_weights"]

COUNTING_MODES = ("none", "default", "precise")
#: exact: the CCT and counters; sample: yieldpoints only (a sampled time profile); hybrid: both
MODES = ("exact", "sample", "hybrid")


@dataclass
class InstrumentOptions:
    counting: str = "default"  #: none | default | precise (JP section 4)
    allocations: bool = False  #: count allocations per type per context
    weights: dict[int, int] | None = None  #: opcode -> cost (CCCP 5.2); None: no weighted counter
    activation: bool = False  #: JP 5.2 periodic activation of the profiling agent
    mode: str = "exact"  #: exact | sample | hybrid (see :mod:`.yieldpoints`)
    #: the node is published before the first resolution of each class a body names: for classes
    #: that a class loader written in the program defines (the agent sets it per class, see
    #: ``body_pass``), whose resolutions run that loader's code
    resolutions: bool = False

    def __post_init__(self) -> None:
        if self.counting not in COUNTING_MODES:
            raise ValueError(f"counting must be one of {', '.join(COUNTING_MODES)}, not {self.counting!r}")
        if self.mode not in MODES:
            raise ValueError(f"mode must be one of {', '.join(MODES)}, not {self.mode!r}")

    @property
    def yieldpoints(self) -> bool:
        """Does the rewriting place yieldpoints (sample and hybrid modes)?"""
        return self.mode != "exact"


def instrument_options(
    *,
    counting: str = "default",
    allocations: bool = False,
    weights: str | os.PathLike[str] | None = None,
    activation: bool = False,
    mode: str = "exact",
    resolutions: bool = False,
) -> InstrumentOptions:
    """The options as a person gives them, a weights *file* included: the one way the command line
    and the agent build them, so both read a weights file (and report its mistakes) alike."""
    return InstrumentOptions(
        counting=counting,
        allocations=allocations,
        weights=read_weights(weights) if weights else None,
        activation=activation,
        mode=mode,
        resolutions=resolutions,
    )


def read_weights(path: str | os.PathLike[str]) -> dict[int, int]:
    """A weights file: lines ``<mnemonic> <cost>`` (``#`` comments); ``default <cost>`` for the rest."""
    weights: dict[int, int] = {}
    default: int | None = None
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise JprewriteError(
            f"cannot read weights file: {getattr(e, 'strerror', None) or e}", path=os.fspath(path)
        ) from None
    for n, line in enumerate(text.splitlines(), 1):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        parts = line.split()
        if len(parts) != 2:
            raise JprewriteError(f"line {n}: expected '<opcode> <cost>', got {line!r}", path=os.fspath(path))
        name, cost_text = parts
        try:
            cost = int(cost_text)
        except ValueError:
            raise JprewriteError(f"line {n}: cost {cost_text!r} is not an integer", path=os.fspath(path)) from None
        if cost < 0:
            raise JprewriteError(f"line {n}: cost must not be negative", path=os.fspath(path))
        if name == "default":
            default = cost
            continue
        opcode = op.OPCODES_BY_NAME.get(name.lower())
        if opcode is None:
            raise JprewriteError(f"line {n}: unknown opcode {name!r}", path=os.fspath(path))
        weights[opcode] = cost
    if default is not None:
        for code, mnemonic in enumerate(op.OPCODE_NAMES):
            if mnemonic is not None and code not in weights:
                weights[code] = default
    return weights


def leaf_bodies(options: InstrumentOptions) -> bool:
    """Do ``options`` let an application leaf count into its caller's slots (``shape_slot``)? Only
    exact mode with the plain counters: a yieldpoint, an activation counter, a weight, an allocation
    count or a resolution's publish would need a node of the leaf's own."""
    return (
        options.mode == "exact"
        and not options.activation
        and options.weights is None
        and not options.allocations
        and not options.resolutions
    )
