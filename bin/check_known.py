"""Prove the known rules (sgtools/workflows/suggest/known_rules/<language>.yml) on their own tests.

    .venv/bin/python -m bin.check_known [LANGUAGE ...]

Each rule must flag every `flags` snippet and none of its `passes` snippets under the real ast-grep; a line per
rule that does not, with what it missed or flagged (or ast-grep's refusal). Exit 1 when any fails.
"""
from __future__ import annotations

import sys

from sgtools.engine.process import Engine
from sgtools.project.languages import file_name_for
from sgtools.workflows.suggest import known
from sgtools.workflows.suggest.verify import run_rules

MIN_TESTS = 3  # each side: one example per side proves little about a rule meant for unseen code


def problems(engine: Engine, language: str) -> list[str]:
    """What is wrong with `language`'s known rules, a line each."""
    rules = known.own(language)
    out: list[str] = []
    seen: set[str] = set()
    for r in rules:
        if r.id in seen:
            out.append(f"{language}/{r.id}: id used twice")
        seen.add(r.id)
        if len(r.flags) < MIN_TESTS or len(r.passes) < MIN_TESTS:
            out.append(f"{language}/{r.id}: give at least {MIN_TESTS} flags and {MIN_TESTS} passes")
        if not r.words:
            out.append(f"{language}/{r.id}: no words")
    name = file_name_for(language, None)
    for r in rules:
        texts = [*r.flags, *r.passes]
        outcome = run_rules(engine, language, name, [r.body], texts)[0]
        if outcome.refused:
            out.append(f"{language}/{r.id}: ast-grep refuses it: {outcome.why}")
            continue
        missed = [i for i in range(len(r.flags)) if not outcome.hits[i]]
        flagged = [i for i in range(len(r.passes)) if outcome.hits[len(r.flags) + i]]
        if missed:
            out.append(f"{language}/{r.id}: misses flags{missed}")
        if flagged:
            out.append(f"{language}/{r.id}: flags passes{flagged}")
    return out


def main(argv: list[str] | None = None) -> int:
    langs = (argv if argv is not None else sys.argv[1:]) or list(known.languages())
    engine = Engine()
    bad = 0
    for language in langs:
        found = problems(engine, language)
        print(f"{language}: {len(known.own(language))} rules, {len(found)} problem(s)")
        for line in found:
            print("  " + line)
        bad += len(found)
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
