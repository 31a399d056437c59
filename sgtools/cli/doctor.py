from __future__ import annotations

import argparse
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from sgtools.cli.common import add_json, add_root, engine, print_json, workspace
from sgtools.cli.exit_codes import EXIT_ERROR, EXIT_OK
from sgtools.cli.voice import speak
from sgtools.present.doctor import render_info
from sgtools.project.discover import find_config_dir
from sgtools.workflows.doctor import server_info


def register(subs: Any) -> None:
    p: argparse.ArgumentParser = subs.add_parser("doctor", help="check the installation and the project's rules")
    add_root(p)
    add_json(p)
    p.set_defaults(func=run)


def _config_line(info: Mapping[str, Any], root: Path, subfolder: Path | None) -> str:
    """Which sgconfig.yml the commands use, by its full path; without one, what runs instead and what to do."""
    if info["config"]:
        found = f" (found above {subfolder})" if subfolder is not None else ""
        return f"{root / info['config']}{found}"
    above = find_config_dir(root.parent) if root.parent != root else None
    if above is not None:  # --root named a folder inside a project: never suggest a second config
        return (f"none in {root}; the project above uses {above / 'sgconfig.yml'}: run from there, or pass "
                f"--root {above}")
    return "none: scans use the bundled community rules (run `sgtools init` to set up your own)"


def run(args: argparse.Namespace) -> int:
    ws = workspace(args)
    info = server_info(ws, engine())
    # A missing sgconfig.yml is not a fault of the installation: the config line says what runs instead.
    problems = [p for p in info["problems"] if not p.startswith("[config-missing]")]
    if args.json:
        print_json(info)
    else:
        print(render_info(info, config_line=_config_line(info, ws.root, args.subfolder), problems=problems, say=speak))
    bad = (bool(info["ruleErrors"]) or info["astGrepVersion"] is None or bool(problems)
           or bool(info.get("ruleAnalysis", {}).get("neverFire")))
    return EXIT_ERROR if bad else EXIT_OK
