"""Analysis of classes and code: the class hierarchy, basic blocks, type flow and frames, and the
project's own bytecode verifier (the gate every rewritten method passes before it is emitted).

Submodules are imported by name (``jprewrite.analysis.hierarchy``, ``.typeflow``, ...); the
verifier's small API is also available here.
"""

from __future__ import annotations

from .verifier import VerifyProblem, verify_class, verify_method

__all__ = ["VerifyProblem", "verify_class", "verify_method"]
