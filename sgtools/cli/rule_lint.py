"""`sgtools rule lint [IDS] [--json]`: does every rule really fire? Exit 1 when one can never fire."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from sgtools.cli.common import add_json, add_root, engine, print_json, workspace
from sgtools.cli.exit_codes import EXIT_FINDINGS, EXIT_OK


def register(rule_subs: Any) -> None:
    p: argparse.ArgumentParser = rule_subs.add_parser(
        "lint", help="analyse the project's rules: which can never fire, and verified repairs",
        description="Analyse each rule (all, or the IDs given) with the real ast-grep and its tests' examples: "
        "patterns read as another node kind, relational rules without stopBy, $X for $$$X, unanchored regexes, "
        "globs that match no file... Prints each finding with its rule path and, where one was verified, the "
        "repaired rule. Exit 0 when every rule can fire, 1 when one can never fire, 2 on an error.")
    p.add_argument("rule_ids", nargs="*", metavar="ID", help="only these rules")
    p.add_argument("--all", action="store_true", help="also print info-level notes")
    add_root(p)
    add_json(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from sgtools.rules.analysis.lint import lint_rules

    result = lint_rules(workspace(args), engine(), args.rule_ids)
    if args.json:
        print_json(result)
    else:
        _print(result, show_info=args.all)
    return EXIT_FINDINGS if result["neverFire"] else EXIT_OK


def _print(result: dict[str, Any], *, show_info: bool) -> None:
    shown = 0
    for rule in result["rules"]:
        for f in rule["analysis"]:
            if f["severity"] == "info" and not show_info:
                continue
            shown += 1
            print(f"{rule['path']}: {f['severity']}[{f['code']}] {rule['id']} {f['path']}: {f['message']}")
            if "repair" in f:
                print("  verified repair:")
                print("".join(f"    {line}\n" for line in f["repair"].splitlines()), end="")
    for err in result["ruleErrors"]:
        print(f"✗ {err['path']}: {err['message']}", file=sys.stderr)
    never = result["neverFire"]
    print(f"{len(result['rules'])} rules analysed: {len(never)} can never fire"
          + (f" ({', '.join(never)})" if never else "") + f", {len(result['withWarnings'])} with warnings"
          + ("" if shown or not result["rules"] else "; no problems found") + ".")
