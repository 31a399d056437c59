"""`sgtools trust [--revoke]`: let ast-grep load the native parser libraries this project's sgconfig.yml names.

Until then (ast-grep's own default) they are not loaded: a cloned repository's library would run its code.
"""

from __future__ import annotations

import argparse
from typing import Any

from sgtools.cli.common import add_json, add_root, print_json, workspace
from sgtools.cli.exit_codes import EXIT_ERROR, EXIT_OK
from sgtools.engine import trust
from sgtools.project.config import load_config


def register(subs: Any) -> None:
    p: argparse.ArgumentParser = subs.add_parser(
        "trust", help="trust (or --revoke) the native parser libraries named by customLanguages in sgconfig.yml")
    add_root(p)
    add_json(p)
    p.add_argument("--revoke", action="store_true", help="forget the trust: the libraries are not loaded again")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    cfg = load_config(workspace(args))
    statuses = trust.revoke(cfg.path) if args.revoke else trust.trust(cfg.path)
    if args.json:
        print_json({"success": True, "config": str(cfg.path), "customLanguages": statuses})
        return EXIT_OK
    if not statuses:
        print(f"{cfg.path} names no customLanguages library: nothing to trust.")
        return EXIT_OK
    for s in statuses:
        print(f"{s['language']}: {s['library']} ({s['path']}) {s['state']}")
    missing = [s for s in statuses if s["state"] == "missing"]
    if missing:
        print("A library that does not exist cannot be trusted; build it, then run `sgtools trust` again.")
        return EXIT_ERROR
    verb = "revoked: these libraries will not be loaded" if args.revoke else \
        "trusted: ast-grep may load them until they change"
    print(f"{len(statuses)} parser librar{'y' if len(statuses) == 1 else 'ies'} {verb}.")
    return EXIT_OK
