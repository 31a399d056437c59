"""`sgtools hook claude`: the Claude Code PostToolUse (or PreToolUse) hook (docs/ci.md has the settings.json entry).

Every failure of our own ends in exit 0 with a note: a hook that breaks must never stop the agent's work.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from sgtools.cli.common import add_root, engine, needs_subcommand
from sgtools.cli.exit_codes import EXIT_ERROR
from sgtools.contracts.common import SEVERITIES


def register(subs: Any) -> None:
    p: argparse.ArgumentParser = subs.add_parser("hook", help="agent hooks (Claude Code PostToolUse)")
    kinds = p.add_subparsers(dest="hook", metavar="AGENT")
    claude = kinds.add_parser(
        "claude",
        help="PostToolUse hook: scan the file Claude just wrote; exit 2 with the findings so it fixes them",
        description="Reads Claude Code's hook JSON on stdin. For Write, Edit and MultiEdit on a code file inside "
        "the project, scans that file with the project's rules (the bundled community rules without an "
        "sgconfig.yml) and exits 2 with the findings at or above --fail-on on stderr. Otherwise exits 0. "
        "As a PreToolUse hook it checks the edits applied in memory and exits 2 only for findings they add.",
    )
    add_root(claude)
    claude.add_argument("--fail-on", choices=SEVERITIES, default="warning",
                        help="lowest severity handed back to the agent (default: warning)")
    claude.set_defaults(func=run_claude)

    needs_subcommand(p)


def run_claude(args: argparse.Namespace) -> int:
    from sgtools.cli.hook_protocol import PASS, claude_post_tool_use
    from sgtools.core import bounded
    from sgtools.core.errors import TooLarge

    try:
        raw = bounded.read_stream(sys.stdin.buffer, "The hook input on stdin", "max_input_bytes").decode(
            "utf-8", "replace")
    except TooLarge as exc:  # an endless or huge stdin: answered at once, never read to the end
        print(exc.render(), file=sys.stderr)
        return EXIT_ERROR
    try:
        outcome = claude_post_tool_use(raw, engine(), root=args.root, fail_on=args.fail_on)
    except Exception as exc:  # a bug of ours must not block the agent either
        print(f"sgtools hook: internal error, file not checked: {type(exc).__name__}: {exc}", file=sys.stderr)
        return PASS
    if outcome.stderr:
        sys.stderr.write(outcome.stderr)
    return outcome.exit_code
