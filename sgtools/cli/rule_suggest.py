"""`sgtools rule suggest`: verified rules from code that must and must not be flagged (the suggest_rule twin)."""

from __future__ import annotations

import argparse
from typing import Any

from sgtools.cli.common import add_json, add_root, engine, print_json, read_rule_file, workspace
from sgtools.cli.exit_codes import EXIT_FINDINGS, EXIT_OK
from sgtools.cli.voice import speak
from sgtools.contracts.common import SEVERITIES

# Exit codes: EXIT_OK when at least one verified rule came out, EXIT_FINDINGS when none could separate the
# examples (the reason is printed).


def register(rule_subs: Any) -> None:
    p: argparse.ArgumentParser = rule_subs.add_parser(
        "suggest", help="propose verified rules from examples of code to flag and code to leave alone",
        description="Generalise what the --invalid examples share into ast-grep rules (and try the rules already "
        "written for common requests: SGTOOLS_SUGGEST_KNOWN_RULES=0 turns those off), check each with ast-grep "
        "against every example, and print the verified ones best first (with the examples they were checked "
        "on). Exit 0 when a rule was found, 1 when none separates the examples (the reason is printed), "
        "2 on bad input.")
    p.add_argument("--language", "-l", required=True, help="the examples' language")
    p.add_argument("--invalid", action="append", required=True, metavar="CODE",
                   help="code the rule must flag (repeatable; at least one)")
    p.add_argument("--valid", action="append", metavar="CODE", help="code the rule must not flag (repeatable)")
    p.add_argument("--fix", action="append", nargs=2, metavar=("BEFORE", "AFTER"),
                   help="a before/after pair to infer the rule's fix from (repeatable)")
    p.add_argument("--id", dest="rule_id", help="the rule id (default: derived from the pattern)")
    p.add_argument("--message", help="the rule's message")
    p.add_argument("--severity", choices=SEVERITIES, help="default: warning")
    p.add_argument("--path", help="a virtual file path for the examples (e.g. app.tsx)")
    p.add_argument("--max-candidates", type=int, default=None, metavar="N", help="how many rules to print (3)")
    p.add_argument("--request", metavar="WORDS",
                   help="what the rule is for, in words ('in library code' / 'only in tests' scopes it by path)")
    p.add_argument("--draft", metavar="FILE",
                   help="your own rule YAML for the request ('-' for stdin): proven on the examples, printed first")
    p.add_argument("--prompt", action="store_true",
                   help="print what a model needs to draft the rule (the guidance, the request, the examples) and "
                   "exit; pipe its answer back with --draft -")
    add_root(p)
    add_json(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from sgtools.workflows.suggest.service import suggest_rule

    if args.prompt:
        return _print_prompt(args)
    draft = read_rule_file(args.draft) if args.draft else None
    result = suggest_rule(
        workspace(args), engine(), args.language, args.invalid, args.valid, path=args.path, message=args.message,
        severity=args.severity, rule_id=args.rule_id,
        fix_examples=[{"before": b, "after": a} for b, a in args.fix or []], max_candidates=args.max_candidates,
        request=args.request, draft_rule=draft)
    if args.json:
        print_json(result)
    else:
        from sgtools.present.rules import render_suggest

        print(render_suggest(result, say=speak))
    return EXIT_OK if result["success"] else EXIT_FINDINGS


def _print_prompt(args: argparse.Namespace) -> int:
    """The drafting prompt, as the guide resource gives it to an agent (drafted.py), for a model of the user's."""
    from sgtools.core import languages
    from sgtools.workflows.suggest.drafted import prompt

    asked = prompt(languages.require(args.language), args.invalid, args.valid or [], args.request)
    if args.json:
        print_json({"system": asked.system, "user": asked.user})
    else:
        print(f"{asked.system}\n{asked.user}")
    return EXIT_OK
