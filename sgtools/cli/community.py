"""`sgtools community search|show|import|update|sources|build-index`: community rules from a terminal."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from sgtools.cli.common import add_json, add_root, engine, needs_subcommand, print_json, workspace
from sgtools.cli.exit_codes import EXIT_ERROR, EXIT_OK
from sgtools.cli.voice import speak
from sgtools.present.community import render_details, render_search
from sgtools.present.rules import render_saved


def register(subs: Any) -> None:
    p: argparse.ArgumentParser = subs.add_parser("community", help="search, show, import and index community rules")
    csubs = p.add_subparsers(dest="community_command", metavar="ACTION", parser_class=type(p))
    needs_subcommand(p)

    s = csubs.add_parser("search", help="ranked search over every community source")
    s.add_argument("query", metavar="QUERY", nargs="+", help="words, e.g. `hardcoded password`")
    s.add_argument("--language", help="only rules for this language (any alias: py, ts, golang…)")
    s.add_argument("--source", help="only rules from this source (its name as results show it)")
    s.add_argument("--tags", help="comma-separated tags that must all be present, e.g. security,cwe-89")
    s.add_argument("--limit", type=int, help="how many results (default 10)")
    add_json(s)
    s.set_defaults(func=run_search)

    show = csubs.add_parser("show", help="one community rule: YAML, tests, source, licence, digest")
    show.add_argument("rule_id", metavar="ID")
    add_json(show)
    show.set_defaults(func=run_show)

    imp = csubs.add_parser("import", help="fetch, verify, migrate and add a community rule to this project")
    imp.add_argument("rule_id", metavar="ID")
    imp.add_argument("--overwrite", action="store_true", help="replace a local rule with the same id")
    imp.add_argument("--globs", choices=("keep", "drop"), default="keep",
                     help="the source repository's files/ignores globs: keep (default, with a warning) or drop")
    add_root(imp)
    add_json(imp)
    imp.set_defaults(func=run_import)

    up = csubs.add_parser("update", help="revalidate every remote source now (ignores the cache TTL)")
    add_json(up)
    up.set_defaults(func=run_update)

    src = csubs.add_parser("sources", help="the configured sources in priority order, with their status")
    add_json(src)
    src.set_defaults(func=run_sources)

    b = csubs.add_parser("build-index", help="write index.json for a rule repository")
    b.add_argument("directory", metavar="DIR", help="the repository (rules/ and rule-tests/ or tests/)")
    b.add_argument("-o", "--out", metavar="OUT", help="where to write it (default DIR/index.json)")
    b.add_argument("--source", help="source name recorded on each rule (default: DIR's name)")
    b.add_argument("--license", help="SPDX licence for rules without metadata.license (default: DIR's LICENSE)")
    b.add_argument("--name", help="the index's name (default: '<source> community')")
    b.add_argument("--force", action="store_true", help="replace OUT even if it is not a context-sherpa index")
    add_json(b)
    b.set_defaults(func=run_build)


def _warn(result: Mapping[str, Any]) -> None:
    for w in result.get("warnings") or []:
        print(f"warning: {w}", file=sys.stderr)


def _print_result(args: argparse.Namespace, result: Mapping[str, Any], text: Callable[[], str]) -> None:
    """The whole result as JSON, or its warnings on stderr and its text (the shared rendering)."""
    if args.json:
        print_json(result)
    else:
        _warn(result)
        print(text())


def run_search(args: argparse.Namespace) -> int:
    from sgtools.community.service import search_community_rules

    result = search_community_rules(" ".join(args.query), language=args.language, tags=args.tags, limit=args.limit,
                                    source=args.source)
    if args.json:
        print_json(result)
        return EXIT_OK
    _warn(result)
    print(render_search(result, say=speak))
    return EXIT_OK


def run_show(args: argparse.Namespace) -> int:
    from sgtools.community.service import get_community_rule_details

    details = get_community_rule_details(args.rule_id)
    _print_result(args, details, lambda: render_details(details))  # the rule's YAML: printed as it is
    return EXIT_OK


def run_import(args: argparse.Namespace) -> int:
    from sgtools.community.service import import_community_rule

    done = import_community_rule(workspace(args), engine(), args.rule_id, overwrite=args.overwrite,
                                 globs=args.globs)
    _print_result(args, done, lambda: render_saved(done, say=speak))
    return EXIT_OK


def _print_sources(items: Sequence[Mapping[str, Any]]) -> None:
    for s in items:
        count = f"{s['ruleCount']} rules" if s["status"] != "error" else s.get("error", "error")
        print(f"{s['status']:<6} {s['kind']:<8} {s['location']}  {count}")
        if s.get("warning"):
            print(f"       {speak(s['warning'])}")


def run_update(args: argparse.Namespace) -> int:
    from sgtools.community.service import update_community_sources

    result = update_community_sources()
    if args.json:
        print_json(result)
    else:
        _print_sources(result["sources"])
        print(result["message"])
    return EXIT_OK if result["success"] else EXIT_ERROR


def run_sources(args: argparse.Namespace) -> int:
    from sgtools.community.service import community_sources
    from sgtools.community.sources import SOURCES_ENV, config_path

    items = community_sources()
    if args.json:
        print_json({"sources": items, "configFile": str(config_path())})
    else:
        _print_sources(items)
        print(f"More sources: {SOURCES_ENV}=<url or path>,… or `community_sources = [\"…\"]` in {config_path()}")
    return EXIT_OK


def run_build(args: argparse.Namespace) -> int:
    from sgtools.community.build import build_index

    result = build_index(args.directory, args.out, source=args.source, license=args.license, name=args.name,
                         force=args.force)
    if args.json:
        print_json(result)
    else:
        print(result["message"])
        for s in result["skipped"]:
            print(f"  skipped {s['path']}: {s['reason']}", file=sys.stderr)
    return EXIT_OK
