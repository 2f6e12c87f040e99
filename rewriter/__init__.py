"""jprewrite: an exact and portable calling-context profiler for the JVM.

Layers, lowest first (a layer never imports a higher one):

* ``jprewrite.classfile`` -- constants, attributes, instructions, frames; read and write.
* ``jprewrite.archive``   -- containers of class files: jars, zips, directories, the JDK image.
* ``jprewrite.analysis``  -- class hierarchy and method resolution (later: blocks, type flow).
* ``jprewrite.cli``       -- the ``jprewrite`` command.
"""

__version__ = "0.1.0"
