"""Options and output helpers shared by the subcommands."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from sgtools.cli.exit_codes import EXIT_ERROR
from sgtools.core.errors import BadInput
from sgtools.core.settings import get_settings
from sgtools.engine.process import Engine
from sgtools.project.discover import default_root
from sgtools.project.workspace import Workspace


def add_root(parser: argparse.ArgumentParser, *, discover: bool = True) -> None:
    parser.add_argument("--root", help="workspace root (default: $SGTOOLS_ROOT, else the nearest folder above "
                        "holding sgconfig.yml, up to the repository root, else the current directory)" if discover
                        else "workspace root (default: $SGTOOLS_ROOT or the current directory)")


def add_json(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print the result as JSON")


def needs_subcommand(parser: argparse.ArgumentParser) -> None:
    """A command group run without its subcommand prints its help and exits 2 (a usage error)."""

    def usage(_args: argparse.Namespace) -> int:
        parser.print_help(sys.stderr)
        return EXIT_ERROR

    parser.set_defaults(func=usage)


def workspace(args: argparse.Namespace) -> Workspace:
    """The project the command works on: `--root`, `SGTOOLS_ROOT`, or the one found above the current directory
    (as ast-grep finds it); `args.subfolder` is set to where it was run from when that is below the root."""
    root, subfolder = default_root(getattr(args, "root", None))
    args.subfolder = subfolder
    return Workspace(root, get_settings())


def engine() -> Engine:
    return Engine(settings=get_settings())


def print_json(data: Any) -> None:
    json.dump(data, sys.stdout, indent=2, ensure_ascii=False)
    sys.stdout.write("\n")


def read_rule_file(name: str) -> str:
    """The rule text from a file the user names on the command line (not confined: it is input, not output)."""
    from sgtools.core import bounded

    what = "The rule on stdin" if name == "-" else f"The rule file {name}"
    try:
        data = (bounded.read_stream(sys.stdin.buffer, what, "max_rule_bytes") if name == "-"
                else bounded.read_file(name, what, "max_rule_bytes"))
    except OSError as exc:
        raise BadInput(f"Cannot read {name}: {exc.strerror or exc}. Pass an existing rule YAML file.") from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise BadInput(f"{name} is not UTF-8 text. Pass a rule YAML file.") from None
