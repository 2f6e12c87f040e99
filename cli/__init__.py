"""The ``jprewrite`` command (entry point ``jprewrite.cli.main:main``).

Each command is a module with an ``add_parser`` that registers it in :mod:`.main`; the package
exports nothing else (the commands are the interface, not their functions). Importing the package
imports no command, so a process-pool worker of ``check`` that needs :mod:`.roundtrip` stays cheap.
"""

__all__ = ["main"]  # the module: ``jprewrite.cli.main.main`` is the entry point
