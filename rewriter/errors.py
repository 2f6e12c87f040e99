"""Errors that jprewrite reports to people, not tracebacks.

Every problem with *input* (a class file, an archive, a path) is raised as a
:class:`JprewriteError` subclass that knows where it happened: the file, the
entry inside an archive, and the byte offset. The command line turns any such
error into one line on stderr and exit code 2.
"""

from __future__ import annotations


class JprewriteError(Exception):
    """Base of all errors about input that jprewrite reports in one line."""

    def __init__(
        self, message: str, *, path: str | None = None, entry: str | None = None, offset: int | None = None
    ) -> None:
        super().__init__(message)
        self.message = message
        self.path = path
        self.entry = entry
        self.offset = offset

    def located(self, *, path: str | None = None, entry: str | None = None) -> JprewriteError:
        """Fill in the file/entry if not known yet (errors raised deep in a parser do not know them)."""
        if self.path is None and path is not None:
            self.path = path
        if self.entry is None and entry is not None:
            self.entry = entry
        return self

    def __str__(self) -> str:
        where = []
        if self.path:
            where.append(self.path)
        if self.entry:
            where.append(self.entry)
        loc = "!".join(where)
        if self.offset is not None:
            loc = f"{loc} at byte {self.offset}" if loc else f"at byte {self.offset}"
        return f"{loc}: {self.message}" if loc else self.message


class ClassFormatError(JprewriteError):
    """A class file that is truncated, malformed or inconsistent."""


class UnsupportedVersionError(ClassFormatError):
    """A class file whose version this jprewrite does not know."""


class ArchiveError(JprewriteError):
    """A jar/zip/directory/JDK image that cannot be read or written."""
