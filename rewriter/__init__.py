"""jprewrite: an exact and portable calling-context profiler for the JVM.

Layers, lowest first (a layer never imports a higher one; ``tests/test_layering.py`` checks it):

* ``jprewrite.errors``     -- the one-line errors about input (file, entry, byte offset).
* ``jprewrite.classfile``  -- constants, attributes, instructions, frames; read and write.
* ``jprewrite.archive``    -- containers of class files: jars, zips, directories, the JDK image.
* ``jprewrite.editor``     -- method bodies as labelled instruction lists; assembling them again.
* ``jprewrite.analysis``   -- class hierarchy, basic blocks, type flow, frames, the verifier.
* ``jprewrite.instrument`` -- the rewriting rules and the one class pipeline.
* ``jprewrite.rewrite``    -- offline: jars in, jars out, with the embedded Java runtime.
* ``jprewrite.agent``      -- load time: the ``-javaagent`` jar and its Python worker.
* ``jprewrite.cli``        -- the ``jprewrite`` command.

The root package imports nothing (every layer may be imported on its own); it holds the version.
"""

__version__ = "0.1.0"

__all__ = ["__version__"]
