"""The analysis catalogue (tests/analysis_catalogue.py) against the real ast-grep, with honest figures (-s):
every broken draft is broken for plain ast-grep (it misses an invalid example, reports a valid one, or is
refused), is flagged with its cause, and most get a repair that plain ast-grep confirms on the examples;
correct-but-suspicious drafts get nothing at warning level or above."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from sgtools.core import languages, yamlio
from sgtools.engine.process import Engine
from sgtools.project.workspace import Workspace
from sgtools.rules.analysis import analyse_rules, at_least
from sgtools.rules.analysis.runner import Batch, Outcome, run
from tests.analysis_catalogue import BROKEN, CORRECT, Draft

pytestmark = pytest.mark.slow


def _plain(engine: Engine, docs: list[dict[str, Any]], drafts: list[Draft]) -> tuple[Outcome, dict[int, tuple[
        list[str], list[str]]]]:
    """Each rule on its own examples, in one plain ast-grep call (the analyser's batch runner, no analysis)."""
    batch = Batch()
    files: dict[int, tuple[list[str], list[str]]] = {}
    for n, (doc, d) in enumerate(zip(docs, drafts, strict=True)):
        lang = languages.canonical(str(doc.get("language"))) or d.language
        batch.add_rule(f"d{n}", doc)
        files[n] = ([batch.add_file(f"d{n}-v{k}", lang, c) for k, c in enumerate(d.valid)],
                    [batch.add_file(f"d{n}-i{k}", lang, c) for k, c in enumerate(d.invalid)])
    return run(engine, batch), files


def _passes(outcome: Outcome, n: int, files: tuple[list[str], list[str]]) -> bool:
    if f"d{n}" in outcome.refused:
        return False
    return (not any(outcome.fired(f"d{n}", f) for f in files[0])
            and all(outcome.fired(f"d{n}", f) for f in files[1]))


def test_catalogue_of_broken_drafts(engine: Engine, ws: Workspace) -> None:
    assert len(BROKEN) >= 60
    langs = Counter(languages.canonical(d.language) for d in BROKEN)
    assert len(langs) >= 8 and langs["go"] >= 10, langs
    drafts = [yamlio.load_all(d.yaml())[0] for d in BROKEN]
    before, files = _plain(engine, drafts, BROKEN)
    not_broken = [d.name for n, d in enumerate(BROKEN) if _passes(before, n, files[n])]
    assert not_broken == [], f"drafts that plain ast-grep already gets right: {not_broken}"
    accepted = sum(f"d{n}" not in before.refused for n in range(len(BROKEN)))

    found = analyse_rules(ws, engine, drafts, examples=[{"valid": d.valid, "invalid": d.invalid} for d in BROKEN])
    flagged, wrong, repaired, unrepaired = [], [], [], []
    repairs: list[dict[str, Any]] = []
    owners: list[int] = []
    for n, (d, fs) in enumerate(zip(BROKEN, found, strict=True)):
        serious = at_least(fs, "warning")
        if serious:
            flagged.append(d.name)
        if not serious or not any(f["code"] in d.causes for f in serious):
            wrong.append(f"{d.name}: {[(f['code'], f['message'][:160]) for f in fs]}")
        repair = next((f["repair"] for f in serious if "repair" in f), None)
        if repair is not None:
            repairs.append(yamlio.load_all(repair)[0])
            owners.append(n)
        else:
            unrepaired.append(d.name)
    after, after_files = _plain(engine, repairs, [BROKEN[n] for n in owners])
    for k, n in enumerate(owners):
        (repaired if _passes(after, k, after_files[k]) else unrepaired).append(BROKEN[n].name)
    print(f"\ncatalogue: {len(BROKEN)} broken drafts over {len(langs)} languages ({langs['go']} Go); "
          f"{accepted} accepted by ast-grep, {len(BROKEN) - accepted} refused; flagged {len(flagged)}; "
          f"right cause {len(BROKEN) - len(wrong)}; verified repair passing the examples {len(repaired)} "
          f"({100 * len(repaired) // len(BROKEN)}%); without repair: {', '.join(sorted(unrepaired)) or 'none'}")
    assert wrong == []
    assert len(flagged) == len(BROKEN)
    assert len(repaired) >= 0.8 * len(BROKEN)


def test_correct_but_suspicious_drafts_raise_nothing(engine: Engine, ws: Workspace) -> None:
    assert len(CORRECT) >= 20
    drafts = [yamlio.load_all(d.yaml())[0] for d in CORRECT]
    before, files = _plain(engine, drafts, CORRECT)
    assert [d.name for n, d in enumerate(CORRECT) if not _passes(before, n, files[n])] == []
    found = analyse_rules(ws, engine, drafts, examples=[{"valid": d.valid, "invalid": d.invalid} for d in CORRECT])
    noisy = {d.name: at_least(fs, "warning") for d, fs in zip(CORRECT, found, strict=True) if at_least(fs, "warning")}
    alone = analyse_rules(ws, engine, drafts)
    noisy.update({d.name + " (no examples)": at_least(fs, "warning")
                  for d, fs in zip(CORRECT, alone, strict=True) if at_least(fs, "warning")})
    print(f"\ncorrect-but-suspicious drafts: {len(CORRECT)}, with a finding at warning or above: {len(noisy)}")
    assert noisy == {}
