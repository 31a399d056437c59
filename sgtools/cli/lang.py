"""`sgtools lang add NAME --from SOURCE --ext EXT...`: build a tree-sitter grammar and register it."""

from __future__ import annotations

import argparse
from typing import Any

from sgtools.cli.common import add_json, add_root, engine, needs_subcommand, print_json, workspace
from sgtools.cli.exit_codes import EXIT_OK


def register(subs: Any) -> None:
    p: argparse.ArgumentParser = subs.add_parser("lang", help="custom languages: build and register a grammar")
    group = p.add_subparsers(dest="lang_command", metavar="SUBCOMMAND")
    needs_subcommand(p)
    add = group.add_parser("add", help="compile a tree-sitter grammar (source dir, sdist or npm tarball) with the "
                                       "system C compiler, register it in sgconfig.yml and trust it")
    add.add_argument("name", help="the language name rules use (`language: NAME`)")
    add.add_argument("--from", dest="source", required=True, metavar="SOURCE",
                     help="a directory or archive holding src/parser.c (and an optional scanner.c)")
    add.add_argument("--ext", dest="extensions", action="append", required=True, metavar="EXT",
                     help="a file extension of the language (repeatable): --ext adb --ext ads")
    add.add_argument("--sample", help="a file to parse as proof that the grammar works")
    add_root(add)
    add_json(add)
    add.set_defaults(func=run_add)


def run_add(args: argparse.Namespace) -> int:
    from sgtools.project.grammar import add_language

    result = add_language(workspace(args), engine(), args.name, args.source, args.extensions, args.sample)
    if args.json:
        print_json(result)
    else:
        print(result["message"])
    return EXIT_OK
