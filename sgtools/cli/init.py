from __future__ import annotations

import argparse
from typing import Any

from sgtools.cli.common import add_json, add_root, print_json, workspace
from sgtools.cli.exit_codes import EXIT_OK
from sgtools.cli.voice import speak
from sgtools.present.rules import render_init
from sgtools.project.config import initialize


def register(subs: Any) -> None:
    p: argparse.ArgumentParser = subs.add_parser("init", help="create sgconfig.yml, rules/, utils/, rule-tests/")
    add_root(p)
    add_json(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    ws = workspace(args)
    result = initialize(ws).to_result()
    if args.json:
        print_json(result)
    else:
        print(render_init(result, say=speak))
        if args.subfolder is not None:  # run below a project: that project, never a second config here
            print(f"Project: {ws.root} (its sgconfig.yml was found above {args.subfolder}; pass --root to start "
                  "a separate project here)")
    return EXIT_OK
