"""The ``jprewrite`` command: dispatch to subcommands, turn input errors into one line and exit 2.

Tracebacks are for bugs in jprewrite, not for bad input: every
:class:`~jprewrite.errors.JprewriteError` becomes ``jprewrite: <where>: <what>``
on stderr with exit code 2, and nothing is written.
"""

from __future__ import annotations

import argparse
import sys
import warnings
from collections.abc import Mapping
from typing import NoReturn, TextIO

from .. import __build__, __version__
from ..errors import JprewriteError
from . import (
    agent_command,
    check_command,
    compare_command,
    diff_command,
    export_command,
    flamegraph_command,
    import_jfr_command,
    info_command,
    junit_command,
    merge_command,
    report_command,
    rewrite_command,
)

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_BAD_INPUT = 2


class _OneLineErrors(argparse.ArgumentParser):
    """Usage mistakes are bad input too: one line (``jprewrite <command>: <what>``), exit 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_BAD_INPUT, f"{self.prog}: {message} (see {self.prog} --help)\n")


class CommandParser(_OneLineErrors):
    """``jprewrite``'s own parser: it knows its commands, so ``jprewrite IN OUT`` can mean ``rewrite IN OUT``."""

    commands: Mapping[str, argparse.ArgumentParser] = {}


def build_parser() -> CommandParser:
    parser = CommandParser(prog="jprewrite", description="Exact and portable JVM profiling by class-file rewriting.")
    parser.add_argument("--version", action="version", version=f"jprewrite {__version__} ({__build__})")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_OneLineErrors)
    parser.commands = sub.choices  # filled in as each command registers below
    rewrite_command.add_parser(sub)
    report_command.add_parser(sub)
    export_command.add_parser(sub)
    flamegraph_command.add_parser(sub)
    diff_command.add_parser(sub)
    compare_command.add_parser(sub)
    merge_command.add_parser(sub)
    import_jfr_command.add_parser(sub)
    info_command.add_parser(sub)
    check_command.add_parser(sub)
    agent_command.add_parsers(sub)
    junit_command.add_parser(sub)
    return parser


def _with_default_command(args: list[str], commands: Mapping[str, object]) -> list[str]:
    """``jprewrite IN OUT`` means ``jprewrite rewrite IN OUT``."""
    for a in args:
        if a in ("-h", "--help", "--version"):
            return args
        if not a.startswith("-"):
            return args if a in commands else ["rewrite", *args]
    return args


_python_showwarning = warnings.showwarning


def _one_line_warning(
    message: Warning | str,
    category: type[Warning],
    filename: str,
    lineno: int,
    file: TextIO | None = None,
    line: str | None = None,
) -> None:
    """The library's own warnings (``UserWarning`` subclasses, e.g. a signed jar's signature removed)
    as one ``jprewrite: ...`` line, like every other message of the command; others as Python shows them."""
    if issubclass(category, UserWarning):
        print(f"jprewrite: {message}", file=file or sys.stderr)
    else:
        _python_showwarning(message, category, filename, lineno, file, line)


def main(argv: list[str] | None = None) -> int:
    warnings.showwarning = _one_line_warning
    args_list = sys.argv[1:] if argv is None else argv
    parser = build_parser()
    args_list = _with_default_command(list(args_list), parser.commands)
    try:
        args = parser.parse_args(args_list)
    except SystemExit as e:  # argparse already printed a one-line usage error
        return EXIT_BAD_INPUT if e.code not in (0, None) else EXIT_OK
    if args.command is None:
        parser.print_help(sys.stderr)
        return EXIT_BAD_INPUT
    try:
        return int(args.run(args))
    except JprewriteError as e:
        print(f"jprewrite: {e}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        print("jprewrite: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
