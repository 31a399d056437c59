"""`sgtools rule list|show|add|remove|test|suggest`: the rule store from a terminal, printing the services' dicts.

Each action imports its own service and renderer: `rule add` does not pay for the listing and analysis modules."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from sgtools.cli import rule_lint, rule_suggest
from sgtools.cli.common import add_json, add_root, engine, needs_subcommand, print_json, read_rule_file, workspace
from sgtools.cli.exit_codes import EXIT_FINDINGS, EXIT_OK
from sgtools.cli.voice import speak


def register(subs: Any) -> None:
    p: argparse.ArgumentParser = subs.add_parser("rule", help="list, show, add, remove and test project rules")
    rule_subs = p.add_subparsers(dest="rule_command", metavar="ACTION", parser_class=type(p))
    needs_subcommand(p)

    ls = rule_subs.add_parser("list", help="the project's rules and the rule files that cannot be loaded")
    ls.add_argument("--language", help="only rules for this language")
    _common(ls, run_list)

    show = rule_subs.add_parser("show", help="one rule: YAML, examples, where it comes from")
    show.add_argument("rule_id", metavar="ID")
    _common(show, run_show)

    add = rule_subs.add_parser(
        "add", help="check a rule and write it to rules/<ID>.yml (with its examples)",
        description="Check the rule (YAML, structure, id, language, ast-grep itself, the project, the examples) and "
        "write it only if every check passes; then run its tests. Exit 0 when written and the tests pass, 1 when "
        "written but the tests fail, 2 when refused (nothing written).")
    add.add_argument("rule_id", metavar="ID")
    add.add_argument("--file", required=True, metavar="F", help="the rule YAML file ('-' for stdin)")
    add.add_argument("--valid", action="append", metavar="CODE", help="code the rule must not match (repeatable)")
    add.add_argument("--invalid", action="append", metavar="CODE", help="code the rule must match (repeatable)")
    add.add_argument("--no-overwrite", action="store_true", help="refuse if the rule already exists")
    add.add_argument("--force", action="store_true",
                     help="save it even with no --invalid example it flags (unproven) or when it can never fire")
    _common(add, run_add)

    rm = rule_subs.add_parser("remove", help="remove a rule, its tests and snapshots")
    rm.add_argument("rule_id", metavar="ID")
    _common(rm, run_remove)

    test = rule_subs.add_parser("test", help="try a rule on code without writing anything")
    test.add_argument("--file", required=True, metavar="F", help="the rule YAML file ('-' for stdin)")
    test.add_argument("--code", help="code to scan with the rule")
    test.add_argument("--language", help="language of --code when the rule does not say")
    test.add_argument("--valid", action="append", metavar="CODE", help="code the rule must not match (repeatable)")
    test.add_argument("--invalid", action="append", metavar="CODE", help="code the rule must match (repeatable)")
    _common(test, run_test)

    rule_suggest.register(rule_subs)
    rule_lint.register(rule_subs)


def _common(p: argparse.ArgumentParser, func: Any) -> None:
    add_root(p)
    add_json(p)
    p.set_defaults(func=func)


def run_list(args: argparse.Namespace) -> int:
    from sgtools.present import rules as present_rules
    from sgtools.present.results import rule_errors_lines
    from sgtools.rules.listing import list_rules

    result = list_rules(workspace(args), engine(), args.language)
    if args.json:
        print_json(result)
        return EXIT_OK
    print(present_rules.render_rules(result, errors=False))
    for line in rule_errors_lines(result["ruleErrors"], say=speak):
        print(line, file=sys.stderr)
    return EXIT_OK


def run_show(args: argparse.Namespace) -> int:
    from sgtools.present import rules as present_rules
    from sgtools.rules.listing import explain_rule

    info = explain_rule(workspace(args), engine(), args.rule_id)
    if args.json:
        print_json(info)
    else:
        print(present_rules.render_explanation(info, say=speak))
    return EXIT_OK


def run_add(args: argparse.Namespace) -> int:
    from sgtools.present import rules as present_rules
    from sgtools.rules.store import add_or_update_rule

    result = add_or_update_rule(
        workspace(args), engine(), args.rule_id, read_rule_file(args.file), args.valid, args.invalid,
        overwrite=not args.no_overwrite, force=args.force, flags=("--invalid", "--force"),
    )
    if args.json:
        print_json(result)
    else:
        print(present_rules.render_saved(result, say=speak))
    test = result["testResult"]
    return EXIT_OK if test is None or test["passed"] else EXIT_FINDINGS


def run_remove(args: argparse.Namespace) -> int:
    from sgtools.present import rules as present_rules
    from sgtools.rules.store import remove_rule

    result = remove_rule(workspace(args), engine(), args.rule_id)
    if args.json:
        print_json(result)
    else:
        print(present_rules.render_saved(result, say=speak))
    return EXIT_OK


def run_test(args: argparse.Namespace) -> int:
    from sgtools.present import rules as present_rules
    from sgtools.workflows.rule_testing import test_rule

    result = test_rule(
        workspace(args), engine(), read_rule_file(args.file), code=args.code, language=args.language,
        valid_examples=args.valid, invalid_examples=args.invalid,
    )
    if args.json:
        print_json(result)
    else:
        print(present_rules.render_test(result, say=speak))
    return EXIT_OK if result["success"] else EXIT_FINDINGS
