"""Whole-program rewriting: jars in, jars out, with the embedded Java runtime.

* :mod:`.offline` -- :func:`rewrite`: several inputs rewritten together (the hierarchy rules see
  every instrumented class), each class through :class:`jprewrite.instrument.pipeline.ClassPipeline`
  with the offline failure policy (a class that fails stays uninstrumented and the run is planned
  again without it).
* :mod:`.runtime_build` -- the Java runtime the rewritten classes call, compiled from
  ``runtime-java/src`` on first use and cached (:func:`runtime_classes`).
"""

from .offline import RewriteReport, rewrite
from .runtime_build import runtime_classes, runtime_source_dir

__all__ = ["RewriteReport", "rewrite", "runtime_classes", "runtime_source_dir"]
