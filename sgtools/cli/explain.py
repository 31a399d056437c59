"""`sgtools explain RULE`: what a project rule checks, why, with its YAML and examples (= `sgtools rule show`)."""

from __future__ import annotations

import argparse
from typing import Any

from sgtools.cli.common import add_json, add_root
from sgtools.cli.rule import run_show


def register(subs: Any) -> None:
    p: argparse.ArgumentParser = subs.add_parser("explain", help="explain one rule of the project")
    p.add_argument("rule_id", metavar="RULE")
    add_root(p)
    add_json(p)
    p.set_defaults(func=run_show)
