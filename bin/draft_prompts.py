"""Print, for each request of a set, what an agent drafting a rule for suggest_rule (`draft_rule`) reads.

    .venv/bin/python -m bin.draft_prompts --half SET [--out FILE]

One JSON object per line: the request id, the system text (the drafting guidance the MCP server gives as its
`draft_rule` prompt) and the user message, as `sgtools.workflows.suggest.drafted.prompt` builds them from what
suggest_rule is given (the 2 + 2 examples, and the request's words for the sets that give them). A model's
replies, collected as a YAML mapping of id to reply, are scored with `bin.intent_eval --drafts FILE`: the
held-out snippets never reach the model.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from sgtools.workflows.suggest import drafted
from tests import intent_catalogue as cat


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--half", choices=cat.SETS, action="append", required=True, help="a set (repeatable)")
    parser.add_argument("--out", type=Path, help="write here instead of stdout")
    args = parser.parse_args(argv)
    lines = []
    for req in cat.load_all():
        if req.half in args.half:
            asked = drafted.prompt(req.language, req.invalid, req.valid, cat.words(req))
            lines.append(json.dumps({"id": req.id, "system": asked.system, "user": asked.user}))
    text = "\n".join(lines) + "\n"
    if args.out:
        args.out.write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
