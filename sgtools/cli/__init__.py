"""The `sgtools` command line: argument parsing only; every subcommand calls a service and prints its data.

Each command group lives in its own module with a `register(subparsers)` function, as pre-commit does
with `commands/`. Nothing here imports `mcp`: `sgtools serve` imports the server lazily.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence
from typing import Any

from sgtools import __version__
from sgtools.cli.error_handler import run_guarded
from sgtools.cli.exit_codes import EXIT_ERROR
from sgtools.core.gcpause import collector_paused
from sgtools.core.settings import get_settings

# Modules under sgtools.cli that register subcommands, in help order.
COMMAND_MODULES = ("init", "scan", "rule", "explain", "community", "lang", "trust", "serve", "doctor", "hook", "setup")


def _columns() -> int:
    """The terminal width as `shutil.get_terminal_size` reads it (COLUMNS, else stdout's terminal, else 80)."""
    try:
        columns = int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        columns = 0
    if columns <= 0:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns  # type: ignore[union-attr]
        except (AttributeError, ValueError, OSError):
            columns = 0
    return columns or 80


class _Formatter(argparse.HelpFormatter):
    """argparse's help formatter, given its width: left to itself it imports `shutil` for it (with zlib, bz2 and
    lzma, ~7 million instructions) on every `add_argument`, though a run that prints no help never uses it."""

    def __init__(self, prog: str, indent_increment: int = 2, max_help_position: int = 24,
                 width: int | None = None) -> None:
        super().__init__(prog, indent_increment, max_help_position, _columns() - 2 if width is None else width)


class _Parser(argparse.ArgumentParser):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", _Formatter)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> None:  # type: ignore[override]
        self.print_usage(sys.stderr)
        print(f"[bad-input] {message}. Run `{self.prog} --help` for usage.", file=sys.stderr)
        raise SystemExit(EXIT_ERROR)


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """All subcommands, or just `only`: a run imports one command module, so `sgtools scan` does not pay for
    the imports of `rule`, `community` or `serve`. Those imports run with the cycle collector paused."""
    with collector_paused():
        return _parser_of(only)


def _parser_of(only: str | None) -> argparse.ArgumentParser:
    parser = _Parser(prog="sgtools", description="Rule-driven code checks on ast-grep, for agents and CI.")
    parser.add_argument("--version", action="version", version=f"sgtools {__version__}")
    subs = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for name in COMMAND_MODULES:
        if only is not None and name != only:
            continue
        try:
            module = importlib.import_module(f"sgtools.cli.{name}")
        except ModuleNotFoundError as exc:
            if exc.name != f"sgtools.cli.{name}":
                raise
            continue
        module.register(subs)
    return parser


def _command_of(argv: Sequence[str]) -> str | None:
    first = next((a for a in argv if not a.startswith("-")), None)
    return first if first in COMMAND_MODULES else None


def main(argv: Sequence[str] | None = None) -> int:
    args_list = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser(_command_of(args_list))
    args = parser.parse_args(args_list)
    if not getattr(args, "func", None):
        parser.print_help(sys.stderr)
        return EXIT_ERROR

    def command() -> int:
        with collector_paused():  # like the parser's build: many small objects made, no cycle among them
            get_settings()  # every SGTOOLS_* setting checked before any work: a bad one is one [bad-input] line
        return int(args.func(args) or 0)

    code = run_guarded(command)
    if argv is None:  # the `sgtools` command itself, about to exit (a caller passing argv keeps its collector as is)
        _skip_exit_collection()
    return code


def _skip_exit_collection() -> None:
    """Moves every live object out of the cycle collector's reach (`gc.freeze`) just before the process exits: the
    interpreter's shutdown would otherwise collect the reference cycles of every module, class and function only to
    free memory the exit frees anyway (~17 million instructions of a one-file `sgtools scan`). Output is flushed
    and atexit handlers run as before; objects freed by reference counting are still freed."""
    import gc

    gc.freeze()


def serve_main() -> int:
    """`context-sherpa`: the MCP server on stdio, same as `sgtools serve`."""
    return main(["serve", *sys.argv[1:]])
