"""Set suggest_rule's intent figures beside their ceiling: the rules an experienced author wrote for the same
requests from the same input (tests/data/intent_expert.yml), judged the same way.

    .venv/bin/python -m bin.intent_ceiling [--show]

Per set (dev12 to dev15) it prints how many requests the authors' rules get right, how many of those rules need a
fact neither the request nor the 4 examples show (by the authors' own notes), and suggest_rule's top candidate on
the same requests: on all of them, and on those the authors got right with no outside fact, the part of the task a
generaliser with no knowledge of the APIs can be asked to do. `--show` lists the requests where they differ.
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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--show", action="store_true",
                        help="list the requests where the expert and suggest_rule differ")
    args = parser.parse_args(argv)
    engine = Engine()
    counts: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0, 0, 0, 0])
    with tempfile.TemporaryDirectory(prefix="intent-ceiling-") as tmp:
        ws = Workspace(Path(tmp))
        for expert in intent_expert.load():
            req = expert.request
            theirs, ours = intent_expert.right(engine, expert), cat.score(ws, engine, req).right
            plain = theirs and not expert.used_knowledge
            row = counts[req.half]
            for i, hit in enumerate((True, theirs, theirs and expert.used_knowledge, ours, plain, plain and ours)):
                row[i] += hit
            if args.show and theirs != ours:
                print(f"{req.half} {req.id}: expert {'right' if theirs else 'wrong'}, suggest_rule "
                      f"{'right' if ours else 'wrong'}; outside fact: {expert.knowledge}")
    total = [sum(c[i] for c in counts.values()) for i in range(6)]
    for name, (n, theirs, known, ours, plain, plain_ours) in [*sorted(counts.items()), ("all", total)]:
        print(f"{name}: expert right {theirs}/{n} ({known} of them with an outside fact); suggest_rule right "
              f"{ours}/{n}; on the {plain} the expert got right with no outside fact, suggest_rule right {plain_ours}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
