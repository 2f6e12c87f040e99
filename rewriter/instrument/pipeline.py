"""One class through the rewriting: read, pin serialVersionUID, instrument, verify, bytes.

Used by the offline rewriter and the agent's worker alike, so both emit the same classes and
keep the same promise: **a method the verification gate rejects is not emitted
instrumented.** The gate (:func:`jprewrite.analysis.verify_method`, the project's own JVMS
4.10.1 verifier) checks every method the rewriting wrote, independently of how a transform
built it; a method that fails is rewritten again kept as it was (reached through a delegating
ESI, as a method past 64 KB once was; a constructor or ``<clinit>`` simply not instrumented),
and the reason is reported once. Should a method the class cannot do without fail (a
delegating ESI, ``$jprewrite$class``, the holder class), the class fails as a whole and the
caller's own fallback applies (offline: the class is left uninstrumented and the run planned
again without it; load time: the contract-only form, then the agent's Java contract).

``JPREWRITE_BREAK_METHOD`` (a binary class name and method name, ``com.acme.Foo.bar``) is a
fault injection for tests: the gate then sees that method's instrumented ESI with
``max_stack`` 0, as a faulty transform would write it.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from ..analysis.verifier import VerifyProblem, verify_class, verify_method
from ..classfile.model import ClassFile, read_class
from . import serial_uid
from .context import ClassReport
from .instrumenter import instrument_class
from .options import InstrumentOptions
from .plan import CctPlan
from .support import esi_name

__all__ = ["RewrittenClass", "GateError", "rewrite_class", "verify_by_default", "FAULT_ENV", "VERIFY_ENV"]

FAULT_ENV = "JPREWRITE_BREAK_METHOD"
#: ``JPREWRITE_VERIFY=1`` turns the gate on where no option says otherwise (the test suite sets it).
#: It is off by default: it costs about 30 % of rewrite time (bench/verifier_cost.py), over the
#: 15 % at which it would be on by default.
VERIFY_ENV = "JPREWRITE_VERIFY"
_MAX_ROUNDS = 4


class GateError(Exception):
    """A method the class cannot do without failed verification: the class stays uninstrumented."""


@dataclass
class RewrittenClass:
    cf: ClassFile
    data: bytes
    report: ClassReport
    serial_uid_pinned: bool
    rejected: list[VerifyProblem]   #: what the gate rejected (the methods kept as they were)


def verify_by_default() -> bool:
    """The gate's setting when no option gives one: ``JPREWRITE_VERIFY`` (1/true/yes), else off."""
    return os.environ.get(VERIFY_ENV, "").lower() in ("1", "true", "yes")


def rewrite_class(data: bytes, plan: CctPlan, options: InstrumentOptions, *, contract_only: bool = False,
                  verify: bool = True, cf: ClassFile | None = None) -> RewrittenClass:
    """Rewrite one class file; with ``verify`` every written method passes the gate first.

    ``cf``: ``data`` already read by the caller, rewritten in place by the first round (a round
    the gate sends back reads ``data`` again).

    Raises :class:`GateError` when the gate rejects what cannot be kept as it was, and lets
    :class:`jprewrite.instrument.cct.AlreadyInstrumented` and the rewriter's other errors through.
    """
    keep: set[tuple[str, str]] = set()
    rejected: list[VerifyProblem] = []
    fault = os.environ.get(FAULT_ENV)
    for _ in range(_MAX_ROUNDS):
        cf = cf if cf is not None else read_class(data)
        pinned = serial_uid.pin_serial_version_uid(cf, plan.hierarchy) is not None
        reason = "rejected by the verification gate; kept as it was" + (
            f" ({'; '.join(str(p) for p in rejected)})" if rejected else "")
        report = instrument_class(cf, plan, options, contract_only=contract_only, keep=frozenset(keep),
                                  keep_reason=reason)
        if fault:
            _break(cf, fault, report)
        if not verify:
            return RewrittenClass(cf, cf.to_bytes(), report, pinned, rejected)
        problems = _check(cf, report, plan)
        if not problems:
            return RewrittenClass(cf, cf.to_bytes(), report, pinned, rejected)
        origins = set()
        for (name, desc), problem in problems:
            origin = report.emitted.get((name, desc))
            if origin is None or origin in keep:
                raise GateError(f"the verification gate rejected {problem}")
            origins.add(origin)
            rejected.append(problem)
        keep |= origins
        cf = None
    raise GateError("the verification gate kept rejecting the class's methods")  # pragma: no cover


def _check(cf: ClassFile, report: ClassReport, plan: CctPlan) -> list[tuple[tuple[str, str], VerifyProblem]]:
    """Problems of the methods the rewriting wrote (and of the classes it added beside the class)."""
    out = []
    for m in cf.methods:
        key = (m.name, m.descriptor)
        if key in report.emitted:
            problems = verify_method(cf, m, plan.hierarchy)
            if problems and cf.major == 50:
                problems = _old_verifier(cf, m, plan)
            if problems:
                out.append((key, problems[0]))
    for name, extra in report.extra_classes.items():
        problems = verify_class(read_class(extra), plan.hierarchy)
        if problems:
            raise GateError(f"the verification gate rejected {problems[0]} (class {name} the rewriting adds)")
    return out


def _old_verifier(cf: ClassFile, m, plan: CctPlan) -> list[VerifyProblem]:
    """HotSpot's rule for version 50: a method its type checker rejects is verified again by
    inference (FailOverToOldVerifier), ignoring the StackMapTable. Compilers whose frames HotSpot
    rejects (jython's) run that way; the rewritten method is held to what the JVM will do."""
    major = cf.major
    cf.major = 49
    try:
        return verify_method(cf, m, plan.hierarchy)
    finally:
        cf.major = major


def _break(cf: ClassFile, spec: str, report: ClassReport) -> None:
    """Fault injection: the instrumented ESI of method ``spec`` (``com.acme.Foo.bar``) gets ``max_stack`` 0."""
    cls, _, method = spec.rpartition(".")
    if cls.replace(".", "/") != cf.name:
        return
    for m in cf.methods:
        code = m.code()
        if m.name == esi_name(method) and code is not None and report.emitted.get((m.name, m.descriptor)):
            code.max_stack = 0
