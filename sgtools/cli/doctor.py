from __future__ import annotations

import argparse
from typing import Any

from sgtools.cli.common import add_json, add_root, engine, print_json, workspace
from sgtools.cli.exit_codes import EXIT_ERROR, EXIT_OK
from sgtools.project.doctor import server_info


def register(subs: Any) -> None:
    p: argparse.ArgumentParser = subs.add_parser("doctor", help="check the installation and the project's rules")
    add_root(p)
    add_json(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    info = server_info(workspace(args), engine())
    if args.json:
        print_json(info)
    else:
        print(f"context-sherpa {info['version']} (Python {info['python']})")
        print(f"ast-grep       {info['astGrepVersion'] or 'unavailable'} {info['astGrepBinary'] or ''}".rstrip())
        print(f"root           {info['root']}")
        print(f"config         {info['config'] or 'none (run `sgtools init`)'}")
        print(f"rules          {info['ruleCount']} loaded, {len(info['ruleErrors'])} with errors")
        for err in info["ruleErrors"]:
            print(f"  ✗ {err['path']}: {err['message']}")
        for problem in info["problems"]:
            print(f"problem        {problem}")
    bad = bool(info["ruleErrors"]) or (info["astGrepVersion"] is None)
    return EXIT_ERROR if bad else EXIT_OK
