"""`sgtools explain RULE`: what a project rule checks, why, with its YAML and examples."""

from __future__ import annotations

import argparse
from typing import Any

from sgtools import rulestore
from sgtools.cli.common import add_json, add_root, engine, print_json, workspace
from sgtools.cli.rule import print_explanation


def register(subs: Any) -> None:
    p: argparse.ArgumentParser = subs.add_parser("explain", help="explain one rule of the project")
    p.add_argument("rule_id", metavar="RULE")
    add_root(p)
    add_json(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    info = rulestore.explain_rule(workspace(args), engine(), args.rule_id)
    if args.json:
        print_json(info)
    else:
        print_explanation(info)
    return 0
