from __future__ import annotations

import argparse
from typing import Any

from sgtools.cli.common import add_json, add_root, print_json, workspace
from sgtools.project import config as project


def register(subs: Any) -> None:
    p: argparse.ArgumentParser = subs.add_parser("init", help="create sgconfig.yml, rules/, utils/, rule-tests/")
    add_root(p)
    add_json(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    result = project.initialize(workspace(args))
    if args.json:
        print_json({"success": True, "message": result.message, "created": result.created,
                    "existing": result.existing})
    else:
        print(result.message)
        if result.existing:
            print("Already present: " + ", ".join(result.existing))
    return 0
