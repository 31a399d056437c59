"""Score suggest_rule on the intent catalogue (tests/data/intent_catalogue.yml), per half.

    .venv/bin/python -m bin.intent_eval [--half SET|all]... [--show] [--only ID] [--by-form] [--drafts FILE]
                                          [--no-known]

For each request the top candidate suggest_rule returns (from the 2 + 2 given examples) is run by plain ast-grep
over the 4 held-out instances and 4 held-out fine snippets. Per set it prints: right (all 4 instances flagged
and no fine snippet flagged), held-out recall, false alarms, requests with no rule, median latency.
The development half (even indexes) and the development sets dev2 to dev9 (tests/data/intent_dev2.yml ...; dev3
on also judge the path scope their requests ask for) are the ones to tune on; `--half all` (the default) runs
them. The held-out sets (`cat.HELD_OUT`) run only when named and never with --show: the test half (odd indexes)
is the headline. A set written blind (dev6 to dev13) is held out until its first run, which is reported before
anyone looks at its misses. `--by-form` adds, over the sets run, how often the top rule was right per its form
(counts only, so a held-out set may be named: docs/suggest-rule.md, "How far a suggestion carries").
`--drafts FILE` (a YAML mapping of request id to a model's reply to bin/draft_prompts.py's prompt) scores
suggest_rule as an agent that drafts gets it: each reply given as its `draft_rule`. `--no-known` scores the
generaliser alone, with no known rule (known.py) offered.
"""

from __future__ import annotations

import argparse
import re
import sys
import tempfile
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from sgtools.core.settings import Settings
from sgtools.engine.process import Engine
from sgtools.project.workspace import Workspace
from tests import intent_catalogue as cat


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--half", choices=(*cat.SETS, "all"), action="append",
                        help="a set to run (repeatable; default: all, every set not held out)")
    parser.add_argument("--show", action="store_true", help="print each miss with its top candidate")
    parser.add_argument("--only", action="append", default=[], help="only this request id (repeatable)")
    parser.add_argument("--by-form", action="store_true", help="also count right top rules per form, over the sets")
    parser.add_argument("--no-known", action="store_true",
                        help="the generaliser alone: no known rule offered (suggest_known_rules=0)")
    parser.add_argument("--drafts", type=Path,
                        help="YAML: request id -> a model's reply to the drafting prompt, given as draft_rule")
    args = parser.parse_args(argv)
    drafts = _drafts(args.drafts) if args.drafts else {}
    halves = args.half or ["all"]
    for held in set(halves) & set(cat.HELD_OUT) if args.show else ():
        parser.error(f"--half {held} is held out: score it without --show, and never tune on its misses")
    every = cat.load_all()
    wanted = {h for half in halves for h in ([h for h in cat.SETS if h not in cat.HELD_OUT] if half == "all"
                                             else [half])}
    requests = [r for r in every if r.half in wanted and (not args.only or r.id in args.only)]
    engine = Engine()
    summaries = {h: cat.Summary(f"{h} half" if h in cat.HALVES else f"{h} set") for h in cat.SETS}
    with tempfile.TemporaryDirectory(prefix="intent-eval-") as tmp:
        ws = Workspace(Path(tmp), settings=Settings(suggest_known_rules=0) if args.no_known else None)
        for req in requests:
            result = cat.score(ws, engine, req, drafts.get(req.id))
            summaries[req.half].scores.append(result)
            if args.show and not result.right:
                scope = "" if result.scope_ok else f", scope wanted: {req.scope or 'none'}"
                held = f"recall {result.flagged_invalid}/4, false alarms {result.flagged_valid}/4{scope}"
                what = f"no rule: {result.explanation[:300]}" if not result.found else f"{held}\n{result.yaml}"
                print(f"--- {req.half} {req.id} ({req.request}): {what}", flush=True)
    for half in cat.SETS:
        if summaries[half].scores:
            print(summaries[half].line())
    if args.by_form:
        _by_form([s for summary in summaries.values() for s in summary.scores])
    return 0


def _drafts(path: Path) -> dict[str, str]:
    try:
        return cat.load_drafts(path)
    except ValueError as exc:
        raise SystemExit(str(exc)) from None


def _by_form(scores: list[cat.Score]) -> None:
    """Right top rules per form (or no rule), most frequent form first."""
    seen = Counter(_form(s.form) if s.found else "no rule" for s in scores)
    right = Counter(_form(s.form) for s in scores if s.right)
    for form, n in seen.most_common():
        print(f"  {right[form]}/{n} {form}")


def _form(form: str) -> str:
    """A form without the id a known rule's form names (one form for every known rule)."""
    return re.sub(r"\(`[^`]*`\)", "(...)", form)


if __name__ == "__main__":
    raise SystemExit(main())
