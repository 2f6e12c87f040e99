"""One class through the rewriting: read, pin serialVersionUID, instrument, verify, bytes.

:class:`ClassPipeline` is used by the offline rewriter and the agent's worker alike, so both emit
the same classes and keep the same promise: **a method the verification gate rejects is not
emitted instrumented.** The gate (:func:`jprewrite.analysis.verify_method`, the project's own
JVMS 4.10.1 verifier) checks every method the rewriting wrote, independently of how a transform
built it; a method that fails is rewritten again kept as it was (reached through a delegating
ESI, as a method past 64 KB once was; a constructor or ``<clinit>`` simply not instrumented),
and the reason is reported once. Should a method the class cannot do without fail (a
delegating ESI, ``$jprewrite$class``, the holder class), or the rewriting raise anything else,
the class fails as a whole and the pipeline's :class:`FailurePolicy` decides what follows:

* offline (:attr:`FailurePolicy.EXCLUDE`): the class is left uninstrumented and the caller
  plans the run again without it, so no caller passes a node to a method without its ESI twin;
* load time (:attr:`FailurePolicy.CONTRACT_ONLY`): classes rewritten before it may already pass
  it nodes, so it gets the contract-only form (bodies unchanged behind delegating ESI methods);
  should that fail too, the agent falls back to its Java contract.

Fault injection, for tests only: ``JPREWRITE_BREAK_METHOD`` (a binary class name and method
name, ``com.acme.Foo.bar``) makes the gate see that method's instrumented ESI with
``max_stack`` 0, as a faulty transform would write it; ``JPREWRITE_AGENT_FAIL`` and
``JPREWRITE_AGENT_FAIL_CONTRACT`` (class-name globs separated by ``:``) make the full or the
contract-only rewrite of those classes raise under the load-time policy.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from enum import Enum

from ..analysis.verifier import VerifyProblem, verify_class, verify_method
from ..classfile.model import ClassFile, Method, read_class
from . import serial_uid
from .context import AlreadyInstrumented, ClassReport
from .instrumenter import instrument_class
from .options import InstrumentOptions
from .plan import CctPlan, ClassPatterns
from .support import esi_name

__all__ = [
    "AGENT_FAIL_CONTRACT_ENV",
    "AGENT_FAIL_ENV",
    "FAULT_ENV",
    "VERIFY_ENV",
    "ClassOutcome",
    "ClassPipeline",
    "FailurePolicy",
    "GateError",
    "RewrittenClass",
    "rewrite_class",
    "verify_by_default",
]

FAULT_ENV = "JPREWRITE_BREAK_METHOD"
#: Class-name globs whose full / contract-only rewrite raises (load-time policy; tests of the fallbacks).
AGENT_FAIL_ENV, AGENT_FAIL_CONTRACT_ENV = "JPREWRITE_AGENT_FAIL", "JPREWRITE_AGENT_FAIL_CONTRACT"
#: ``JPREWRITE_VERIFY=1`` turns the gate on where no option says otherwise (the test suite sets it).
#: It is off by default: it costs about 30 % of rewrite time (bench/verifier_cost.py), over the
#: 15 % at which it would be on by default.
VERIFY_ENV = "JPREWRITE_VERIFY"
_MAX_ROUNDS = 4


class GateError(Exception):
    """A method the class cannot do without failed verification: the class stays uninstrumented."""


class FailurePolicy(Enum):
    """What becomes of a class whose full rewrite fails (see the module docstring)."""

    EXCLUDE = "exclude"  #: offline: uninstrumented, and the run is planned again without it
    CONTRACT_ONLY = "contract-only"  #: load time: the contract-only form, else the agent's Java contract


@dataclass
class RewrittenClass:
    cf: ClassFile
    data: bytes
    report: ClassReport
    serial_uid_pinned: bool
    rejected: list[VerifyProblem]  #: what the gate rejected (the methods kept as they were)


@dataclass
class ClassOutcome:
    """What :meth:`ClassPipeline.run` made of one class; ``rewritten`` None: the class stays as it was."""

    rewritten: RewrittenClass | None = None
    already_instrumented: str | None = None  #: rewritten by jprewrite before: the error's message
    failure: str | None = None  #: why the full rewrite failed (``Type: message``)
    fallback_failure: str | None = None  #: why the contract-only form failed too (load-time policy)

    @property
    def contract_only(self) -> bool:
        """The full rewrite failed and the contract-only form stands in for it."""
        return self.rewritten is not None and self.failure is not None

    def note(self) -> str:
        """One line on what went wrong ("" when nothing did), as the agent reports it."""
        if self.failure is not None:
            if self.rewritten is not None:
                return f"{self.failure}; its bodies run unchanged behind delegating ESI methods"
            if self.fallback_failure is not None:
                return f"{self.failure} (and its contract-only form failed too: {self.fallback_failure})"
            return self.failure
        if self.rewritten is not None and self.rewritten.rejected:
            return (
                "stays uninstrumented in part: the verification gate rejected "
                + "; ".join(str(p) for p in self.rewritten.rejected)
                + " (kept as it was)"
            )
        return ""


def verify_by_default() -> bool:
    """The gate's setting when no option gives one: ``JPREWRITE_VERIFY`` (1/true/yes), else off."""
    return os.environ.get(VERIFY_ENV, "").lower() in ("1", "true", "yes")


def _describe(err: BaseException) -> str:
    return f"{type(err).__name__}: {err}"


class ClassPipeline:
    """Rewrites the classes of one plan with one set of options, one gate setting and one failure policy.

    ``verify`` None: as ``JPREWRITE_VERIFY`` says, else off. The pipeline holds no state between
    classes, so forked workers may share one.
    """

    def __init__(
        self, plan: CctPlan, options: InstrumentOptions, *, on_failure: FailurePolicy, verify: bool | None = None
    ) -> None:
        self.plan = plan
        self.options = options
        self.on_failure = on_failure
        self.verify = verify_by_default() if verify is None else verify

    def run(self, data: bytes, cf: ClassFile | None = None) -> ClassOutcome:
        """Rewrite the class in ``data`` (``cf``: already read from it, and then rewritten in place).

        Errors reading ``data`` are the caller's (it knows where the bytes came from); a class the
        plan does not instrument comes back unchanged; every other failure is in the outcome.
        """
        cf = cf if cf is not None else read_class(data)
        name = cf.name
        if not self.plan.is_instrumented(name):
            return ClassOutcome()
        try:
            return ClassOutcome(self._rewrite(name, data, cf, contract_only=False))
        except AlreadyInstrumented as already:
            return ClassOutcome(already_instrumented=str(already))
        except Exception as err:  # noqa: BLE001 - one class must not sink the run; the policy decides
            failure = _describe(err)
        if self.on_failure is FailurePolicy.EXCLUDE:
            return ClassOutcome(failure=failure)
        try:
            return ClassOutcome(self._rewrite(name, data, None, contract_only=True), failure=failure)
        except Exception as err:  # noqa: BLE001 - the agent's Java contract is the last resort
            return ClassOutcome(failure=failure, fallback_failure=_describe(err))

    def _rewrite(self, name: str, data: bytes, cf: ClassFile | None, *, contract_only: bool) -> RewrittenClass:
        if self.on_failure is FailurePolicy.CONTRACT_ONLY:
            env = AGENT_FAIL_CONTRACT_ENV if contract_only else AGENT_FAIL_ENV
            injected = os.environ.get(env)
            if injected and ClassPatterns(injected.split(":"))(name):
                raise RuntimeError(f"failure injected by {env}")
        return rewrite_class(data, self.plan, self.options, contract_only=contract_only, verify=self.verify, cf=cf)


def rewrite_class(
    data: bytes,
    plan: CctPlan,
    options: InstrumentOptions,
    *,
    contract_only: bool = False,
    verify: bool = True,
    cf: ClassFile | None = None,
) -> RewrittenClass:
    """Rewrite one class file; with ``verify`` every written method passes the gate first.

    ``cf``: ``data`` already read by the caller, rewritten in place by the first round (a round
    the gate sends back reads ``data`` again).

    Raises :class:`GateError` when the gate rejects what cannot be kept as it was, and lets
    :class:`jprewrite.instrument.AlreadyInstrumented` and the rewriter's other errors through.
    """
    keep: set[tuple[str, str]] = set()
    rejected: list[VerifyProblem] = []
    fault = os.environ.get(FAULT_ENV)
    for _ in range(_MAX_ROUNDS):
        cf = cf if cf is not None else read_class(data)
        pinned = serial_uid.pin_serial_version_uid(cf, plan.hierarchy) is not None
        reason = "rejected by the verification gate; kept as it was" + (
            f" ({'; '.join(str(p) for p in rejected)})" if rejected else ""
        )
        report = instrument_class(
            cf, plan, options, contract_only=contract_only, keep=frozenset(keep), keep_reason=reason
        )
        if fault:
            _break(cf, fault, report)
        _refuse_duplicates(cf)
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


def _refuse_duplicates(cf: ClassFile) -> None:
    """Raise :class:`GateError` if the rewritten class declares a method or field twice.

    The JVM refuses such a class when it is defined (``ClassFormatError``), so it must never be
    written, gate or no gate: a class that already declared a name the rewriting adds (a generator
    that implemented a rewritten interface's ESI methods, see ``CctPlan``) stays as it was instead.
    """
    for kind, members in (("method", cf.methods), ("field", cf.fields)):
        seen: set[tuple[str, str]] = set()
        for m in members:
            key = (m.name, m.descriptor)
            if key in seen:
                raise GateError(f"the rewriting would declare {kind} {cf.name}.{m.name}{m.descriptor} twice")
            seen.add(key)


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


def _old_verifier(cf: ClassFile, m: Method, plan: CctPlan) -> list[VerifyProblem]:
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
