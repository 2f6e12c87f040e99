"""The instrument layer: the rewriting rules of JP/CCCP, one class at a time.

The path of a class: :class:`ClassPipeline`/:func:`rewrite_class` (read, pin
serialVersionUID, :func:`instrument_class`, verification gate, bytes). The plan
(:class:`CctPlan`) decides once per run which methods get which shape and what every call
site does, so that callers and callees rewritten in different classes agree. Every name the
rewriting injects is in :mod:`.support`; every runtime entry point it calls in
:mod:`.runtime_api`. The editor's exercise transformation (:func:`exercise_class`) tests the
editor on real code.
"""

from .context import AlreadyInstrumented, ClassReport
from .exercise import ExerciseStats, exercise_class
from .instrumenter import instrument_class
from .options import COUNTING_MODES, MODES, InstrumentOptions, instrument_options, read_weights
from .pipeline import (
    ClassOutcome,
    ClassPipeline,
    FailurePolicy,
    GateError,
    RewrittenClass,
    rewrite_class,
    verify_by_default,
)
from .plan import CallAction, CctPlan, ClassPatterns
from .runtime_api import RUNTIME_API, RuntimeMember, contract_table
from .support import HOLDER_SUFFIX, RUNTIME_PACKAGE, esi_descriptor, esi_name

__all__ = [
    "AlreadyInstrumented",
    "ClassReport",
    "instrument_class",
    "InstrumentOptions",
    "COUNTING_MODES",
    "MODES",
    "read_weights",
    "instrument_options",
    "ClassPipeline",
    "ClassOutcome",
    "FailurePolicy",
    "GateError",
    "RewrittenClass",
    "rewrite_class",
    "verify_by_default",
    "CallAction",
    "CctPlan",
    "ClassPatterns",
    "RUNTIME_API",
    "RuntimeMember",
    "contract_table",
    "HOLDER_SUFFIX",
    "RUNTIME_PACKAGE",
    "esi_name",
    "esi_descriptor",
    "ExerciseStats",
    "exercise_class",
]
