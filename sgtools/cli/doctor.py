from __future__ import annotations

import argparse
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from sgtools.cli.common import add_json, add_root, engine, print_json, workspace
from sgtools.cli.exit_codes import EXIT_ERROR, EXIT_OK
from sgtools.cli.voice import speak
from sgtools.project.discover import find_config_dir
from sgtools.project.doctor import server_info
from sgtools.project.types import DefaultExcludes


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


def _excludes_line(ex: DefaultExcludes) -> str:
    """The default excludes and how to switch them off (or that they are off)."""
    from sgtools.project.excludes import CONFIG_KEY

    if not ex["enabled"]:
        return f"everything (default excludes off: {CONFIG_KEY}: false in sgconfig.yml)"
    return (", ".join(ex["patterns"]) + f" (off: sgtools scan --no-default-excludes, or {CONFIG_KEY}: false in "
            "sgconfig.yml)")


def run(args: argparse.Namespace) -> int:
    ws = workspace(args)
    info = server_info(ws, engine())
    # A missing sgconfig.yml is not a fault of the installation: the config line says what runs instead.
    problems = [p for p in info["problems"] if not p.startswith("[config-missing]")]
    if args.json:
        print_json(info)
    else:
        print(f"context-sherpa {info['version']} (Python {info['python']})")
        print(f"ast-grep       {info['astGrepVersion'] or 'unavailable'} {info['astGrepBinary'] or ''}".rstrip())
        print(f"root           {info['root']}")
        print(f"config         {_config_line(info, ws.root, args.subfolder)}")
        print(f"rules          {info['ruleCount']} loaded, {len(info['ruleErrors'])} with errors")
        print(f"not scanned    {_excludes_line(info['defaultExcludes'])}")
        for lang in info.get("customLanguages", []):
            state = "loaded" if lang["loaded"] else f"NOT loaded ({lang['state']}: run `sgtools trust`)"
            print(f"parser         {lang['language']}: {lang['library']} {state}")
        for err in info["ruleErrors"]:
            print(f"  ✗ {err['path']}: {speak(err['message'])}")
        for problem in problems:
            print(f"problem        {speak(problem)}")
    bad = bool(info["ruleErrors"]) or info["astGrepVersion"] is None or bool(problems)
    return EXIT_ERROR if bad else EXIT_OK
