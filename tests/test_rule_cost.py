"""The bundled rules' cost budget (issue 18): on a fixed corpus per language, no rule costs more than 3x the median
rule of its language, and the whole set scans within 1.5x the time of its cheaper half.

The corpus is real code at pinned versions from the package registries, fetched at install time by
`python bin/cost_corpus.py` into `.ci-cache/cost-corpus/` (.ci/run does it; `SGTOOLS_COST_CORPUS` names another
folder); where it is absent, as in a user's clone, the test skips. Per language it takes the corpus's files of
that language in path order, skipping files over 100 kB (generated tables), up to about 300 kB.

Costs are the engine's own figures (scan/profile.py): each rule run alone minus a parse-only run of its language.
A noisy two-core CI machine moves them, so: a rule's budget is 3x the larger of its language's median cost and a
floor (a tenth of that language's parse-only time, at least 20 ms), so that near-zero medians, where most cheap
rules sit, do not turn timer noise into a ratio; a rule over budget is measured twice more (with a fresh
baseline each time) and keeps its cheapest figure, since interference only ever adds time. The whole-set check
times the full set and its cheaper half (the cheaper half of each language's rules, so that both runs parse the
same files and the difference is what the costlier rules add), interleaved, five times each, and compares the
minimums of their matching time: each run's time less the time the same rules take on one empty file per language
(loading and compiling the rules: a fixed cost per scan, not per file, which B6 of bin/bench budgets; with the
audit companions the whole set's load grew to ~160 ms against the half's ~55 ms, and on a 300 kB-per-language
corpus that fixed part alone moved the plain ratio from 1.3x to 1.5-1.75x). The old math/rand rule (a whole-file
search from every call) cost 20-40x all the other Go rules together: it fails both.
"""

from __future__ import annotations

import os
import statistics
import time
from collections import defaultdict
from pathlib import Path

import pytest

from sgtools.contracts.scan import RuleCost
from sgtools.core.bundled import bundled_dir
from sgtools.core.languages import from_path
from sgtools.engine.process import Engine
from sgtools.project.config import load_config
from sgtools.project.workspace import Workspace
from sgtools.rules.ruleset import Rule
from sgtools.scan.profile import profile_rules
from sgtools.scan.rulefiles import cached_ruleset, rule_file

REPO = Path(__file__).resolve().parent.parent
COST_CORPUS = Path(os.environ.get("SGTOOLS_COST_CORPUS") or REPO / ".ci-cache" / "cost-corpus" / "src")
BYTES_PER_LANGUAGE = 300_000
MAX_FILE_BYTES = 100_000
RULE_RATIO = 3.0
# Issue 18's bound. Measured on this corpus with 180 rules on an idle two-core machine: 1.29x (0.468 s against
# 0.364 s); under load one run measured 1.58x, so the set comparison takes the minimum of SET_REPEATS interleaved
# runs (interference only ever adds time). The old math/rand rule (19.6 s against 0.14 s) is far beyond it.
SET_RATIO = 1.5
SET_REPEATS = 5
FLOOR_SHARE, FLOOR_SECONDS = 0.1, 0.02
REPEATS = 3

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not COST_CORPUS.is_dir(), reason=f"no cost corpus at {COST_CORPUS} "
                       "(fetch it with `python bin/cost_corpus.py`, as .ci/run does)"),
]


def corpus_files() -> dict[str, list[Path]]:
    """Each language's share of the corpus: its files in path order, big generated ones left out."""
    chosen: dict[str, list[Path]] = defaultdict(list)
    used: dict[str, int] = defaultdict(int)
    for path in sorted(p for p in COST_CORPUS.rglob("*") if p.is_file() and not p.is_symlink()):
        lang = from_path(path.name)
        size = path.stat().st_size
        if lang is None or size > MAX_FILE_BYTES or used[lang] >= BYTES_PER_LANGUAGE:
            continue
        chosen[lang].append(path)
        used[lang] += size
    return chosen


def _over_budget(ws: Workspace, engine: Engine, rules: list[Rule], files: list[Path],
                 costs: dict[str, RuleCost], baseline: float) -> tuple[float, list[str]]:
    """The language's budget, and its rules still over it after REPEATS measurements (cheapest kept)."""
    cfg = load_config(Workspace(bundled_dir()))
    floor = max(FLOOR_SHARE * baseline, FLOOR_SECONDS)
    budget = RULE_RATIO * max(statistics.median(c["cost"] for c in costs.values()), floor)
    for _ in range(REPEATS - 1):
        suspects = [r for r in rules if costs[r.id]["cost"] > budget]
        if not suspects:
            break
        for c in profile_rules(ws, engine, cfg, files, suspects)["rules"]:
            if c["cost"] < costs[c["ruleId"]]["cost"]:
                costs[c["ruleId"]] = c
    return budget, [r.id for r in rules if costs[r.id]["cost"] > budget]


def _empty_files(folder: Path, files: dict[str, list[Path]]) -> list[Path]:
    """One empty file per corpus language, named as that language's first corpus file is."""
    made = []
    for lang, paths in sorted(files.items()):
        path = folder / f"empty-{lang}{paths[0].suffix}"
        path.write_bytes(b"")
        made.append(path)
    return made


def _scan_seconds(ws: Workspace, engine: Engine, rules: list[Rule], files: list[Path]) -> float:
    cfg = load_config(Workspace(bundled_dir()))
    start = time.perf_counter()
    engine.scan(config=cfg.path, cwd=ws.root, rule_file=rule_file(rules, keep_globs=True),
                paths=[os.path.relpath(f, ws.root) for f in files], timeout=engine.settings.path_scan_timeout)
    return time.perf_counter() - start


def test_every_bundled_rule_and_the_whole_set_stay_within_the_cost_budget(engine: Engine, tmp_path: Path) -> None:
    ws = Workspace(COST_CORPUS)
    cfg = load_config(Workspace(bundled_dir()))
    rules = [r for r in cached_ruleset(ws, cfg, engine).rules if r.enabled]
    files = corpus_files()
    costs: dict[str, RuleCost] = {}
    problems: list[str] = []
    for lang in sorted({r.language for r in rules} & set(files)):
        mine = [r for r in rules if r.language == lang]
        prof = profile_rules(ws, engine, cfg, files[lang], mine)
        mine_costs = {c["ruleId"]: c for c in prof["rules"]}
        budget, over = _over_budget(ws, engine, mine, files[lang], mine_costs, prof["baseline"][lang])
        costs.update(mine_costs)
        problems += [f"{rid} ({lang}): costs {mine_costs[rid]['cost']:.3f}s, budget {budget:.3f}s (3x the "
                     f"median rule or floor; parse-only {prof['baseline'][lang]:.3f}s)" for rid in over]
    assert len({costs[r]["language"] for r in costs}) >= 10, f"corpus covers too few languages: {sorted(files)}"
    assert not problems, "bundled rules over their language's cost budget:\n" + "\n".join(problems)

    measured = [r for r in rules if r.id in costs]
    langs = sorted({r.language for r in measured})
    cheap: list[Rule] = []  # each language's cheaper half, so both runs parse the same files
    for lang in langs:
        mine = sorted((r for r in measured if r.language == lang), key=lambda r: (costs[r.id]["cost"], r.id))
        cheap += mine[: max(1, len(mine) // 2)]
    every = [f for lang in langs for f in files[lang]]
    empty = _empty_files(tmp_path, {lang: files[lang] for lang in langs})
    whole, half, whole_load, half_load = [], [], [], []
    for _ in range(SET_REPEATS):
        whole.append(_scan_seconds(ws, engine, measured, every))
        half.append(_scan_seconds(ws, engine, cheap, every))
        whole_load.append(_scan_seconds(ws, engine, measured, empty))
        half_load.append(_scan_seconds(ws, engine, cheap, empty))
    whole_match, half_match = min(whole) - min(whole_load), min(half) - min(half_load)
    assert whole_match <= SET_RATIO * half_match, (
        f"the whole bundled set ({len(measured)} rules) matched in {whole_match:.3f}s ({min(whole):.3f}s less "
        f"{min(whole_load):.3f}s of loading), over {SET_RATIO}x its cheaper half's ({len(cheap)} rules) "
        f"{half_match:.3f}s ({min(half):.3f}s less {min(half_load):.3f}s); slowest rules: "
        + ", ".join(f"{c['ruleId']} {c['cost']:.3f}s" for c in sorted(costs.values(), key=lambda c: -c["cost"])[:5]))
