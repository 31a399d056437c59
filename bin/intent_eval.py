"""Score suggest_rule on the intent catalogue (tests/data/intent_catalogue.yml), per half.

    .venv/bin/python -m bin.intent_eval [--half dev|dev2|dev3|dev4|dev5|dev6|dev7|test|all] [--show] [--only ID]

For each request the top candidate suggest_rule returns (from the 2 + 2 given examples) is run by plain ast-grep
over the 4 held-out instances and 4 held-out fine snippets. Per half it prints: right (all 4 instances flagged
and no fine snippet flagged), held-out recall, false alarms, requests with no rule, median latency.
The development half (even indexes) and the second to fifth development sets (tests/data/intent_dev2.yml, `dev2`;
tests/data/intent_dev3.yml, `dev3`, tests/data/intent_dev4.yml, `dev4`, and tests/data/intent_dev5.yml, `dev5`, which
also judge the path scope their requests ask for) are the ones to tune on; the test half (odd indexes) is the
headline: never run it with --show. tests/data/intent_dev6.yml (`dev6`, scoped like dev5) is sealed: its first run
is the held-out estimate; report it before looking at any of its misses. tests/data/intent_dev7.yml (`dev7`) is
sealed the same way.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from sgtools.engine.process import Engine
from sgtools.project.workspace import Workspace
from tests import intent_catalogue as cat


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--half", choices=(*cat.SETS, "all"), default="all")
    parser.add_argument("--show", action="store_true", help="print each miss with its top candidate")
    parser.add_argument("--only", action="append", default=[], help="only this request id (repeatable)")
    args = parser.parse_args(argv)
    every = cat.load_all()
    requests = [r for r in every if args.half in ("all", r.half) and (not args.only or r.id in args.only)]
    engine = Engine()
    summaries = {h: cat.Summary(f"{h} half" if h in cat.HALVES else f"{h} set") for h in cat.SETS}
    with tempfile.TemporaryDirectory(prefix="intent-eval-") as tmp:
        ws = Workspace(Path(tmp))
        for req in requests:
            result = cat.score(ws, engine, req)
            summaries[req.half].scores.append(result)
            if args.show and not result.right:
                scope = "" if result.scope_ok else f", scope wanted: {req.scope or 'none'}"
                held = f"recall {result.flagged_invalid}/4, false alarms {result.flagged_valid}/4{scope}"
                what = f"no rule: {result.explanation[:300]}" if not result.found else f"{held}\n{result.yaml}"
                print(f"--- {req.half} {req.id} ({req.request}): {what}", flush=True)
    for half in cat.SETS:
        if summaries[half].scores:
            print(summaries[half].line())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
