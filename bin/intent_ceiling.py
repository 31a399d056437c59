"""Set suggest_rule's intent figures beside their ceiling: the rules experienced authors wrote for the same requests
from the same input (tests/data/intent_expert.yml; tests/data/intent_expert_plain.yml without any fact about an API
the input does not show), judged the same way.

    .venv/bin/python -m bin.intent_ceiling [--show]

Per set (dev12 to dev25, and the catalogue's test half, which is held out: totals only) it prints how many requests
the authors' rules get right (they wrote for dev12 to dev15 and the test half; how many of those need a fact neither
the request nor the 4 examples show, by the authors' own notes), how many the knowledge-free authors' rules get right
(what a generaliser that knows no APIs could reach at best), and suggest_rule's top candidate on the same requests,
also on those the knowledge-free authors got right. `--show` lists the requests of the development sets where the
knowledge-free authors and suggest_rule differ.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from sgtools.engine.process import Engine
from sgtools.project.workspace import Workspace
from tests import intent_catalogue as cat
from tests import intent_expert


def _order(item: tuple[str, list[int]]) -> int:
    return cat.SETS.index(item[0])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--show", action="store_true",
                        help="list the requests where the knowledge-free authors and suggest_rule differ")
    args = parser.parse_args(argv)
    engine = Engine()
    experts = {e.request.id: e for e in intent_expert.load()}
    # n, expert covered, expert right, of them with an outside fact, knowledge-free right, suggest_rule right, both
    counts: dict[str, list[int]] = defaultdict(lambda: [0] * 7)
    with tempfile.TemporaryDirectory(prefix="intent-ceiling-") as tmp:
        ws = Workspace(Path(tmp))
        for plain in intent_expert.load(intent_expert.PLAIN_PATH):
            req, expert = plain.request, experts.get(plain.request.id)
            theirs = expert is not None and intent_expert.right(engine, expert)
            bare, ours = intent_expert.right(engine, plain), cat.score(ws, engine, req).right
            row = counts[req.half]
            hits = (True, expert is not None, theirs, theirs and expert is not None and expert.used_knowledge, bare,
                    ours, bare and ours)
            for i, hit in enumerate(hits):
                row[i] += int(hit)
            if args.show and bare != ours and req.half not in cat.HELD_OUT:  # a held-out set: its totals only
                print(f"{req.half} {req.id}: knowledge-free author {'right' if bare else 'wrong'}, suggest_rule "
                      f"{'right' if ours else 'wrong'}")
    total = [sum(c[i] for c in counts.values()) for i in range(7)]
    for name, (n, covered, expert_n, known, bare_n, ours_n, both) in [*sorted(counts.items(), key=_order),
                                                                       ("all", total)]:
        expert_part = (f"expert right {expert_n}/{covered} ({known} of them with an outside fact); " if covered
                       else "no expert author; ")
        print(f"{name}: {expert_part}knowledge-free author right {bare_n}/{n}; suggest_rule right {ours_n}/{n} "
              f"({both} of the knowledge-free author's)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
