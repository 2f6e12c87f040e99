"""Containers of class files: jars and zips, class directories, single class files, the JDK image.

A container only moves bytes (it never parses a class: it sniffs the magic itself), so the layers
above get entries with their metadata and write new archives that keep what they did not change.

* :mod:`.jars` -- :func:`open_container` for any input, the manifest, and :func:`write_jar` /
  :func:`write_directory` / :func:`rewrite_container` for output (signature files handled).
* :mod:`.jdk_image` -- the JDK's ``lib/modules`` image, read directly (:class:`JdkImage`), and
  :func:`find_java_home`.
* :mod:`.zipformat` -- the zip format itself, record by record (what :mod:`.jars` is built on).
"""

from .jars import (
    ArchiveWarning,
    Attributes,
    Container,
    DirectoryWriter,
    Entry,
    JarWriter,
    Manifest,
    ReleaseView,
    open_container,
    rewrite_container,
    write_directory,
    write_jar,
)
from .jdk_image import JdkImage, find_java_home
from .zipformat import DEFLATED, STORED

__all__ = [
    "DEFLATED",
    "STORED",
    "ArchiveWarning",
    "Attributes",
    "Container",
    "DirectoryWriter",
    "Entry",
    "JarWriter",
    "JdkImage",
    "Manifest",
    "ReleaseView",
    "find_java_home",
    "open_container",
    "rewrite_container",
    "write_directory",
    "write_jar",
]
