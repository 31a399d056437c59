"""No false alarms on real rules: the analyser reports nothing at warning level or above on the bundled community
rules, the ast-grep-essentials corpus after migration, and this repository's own rules, each checked with its own
tests' examples. Figures print with -s."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from sgtools.core import bundled, yamlio
from sgtools.engine.process import NO_CONFIG, Engine
from sgtools.project import config as project
from sgtools.project.workspace import Workspace
from sgtools.rules.analysis import Examples, analyse_rules, at_least
from tests.conftest import CORPUS, REPO, needs_corpus
from tests.essentials import Essentials

pytestmark = pytest.mark.slow


# Rule and test files are read as bytes into yamlio.load_all_cached, whose parse is remembered in the process by
# content digest: the bundled rules were parsed by the product's own loads, the migrated essentials rules by the
# fixture that wrote them (tests/essentials.py); parsing them again in pure-Python YAML cost ~12 CPU s here.
def _docs(rules_dir: Path) -> list[dict[str, Any]]:
    return [d for p in sorted(rules_dir.rglob("*.yml")) for d in yamlio.load_all_cached(p.read_bytes())
            if isinstance(d, dict) and "rule" in d]


def _examples(tests_dir: Path) -> dict[str, Examples]:
    out: dict[str, Examples] = {}
    for p in sorted(tests_dir.rglob("*.yml")):
        if "__snapshots__" in p.parts:
            continue
        for doc in yamlio.load_all_cached(p.read_bytes()):
            if isinstance(doc, dict) and doc.get("id"):
                out[str(doc["id"])] = {"valid": [str(c) for c in doc.get("valid") or []],
                                       "invalid": [str(c) for c in doc.get("invalid") or []]}
    return out


def _check(name: str, ws: Workspace | None, engine: Engine, docs: list[dict[str, Any]], tests: Path,
           config: Path | str = NO_CONFIG, expected: int | None = None) -> None:
    examples = _examples(tests)
    found = analyse_rules(ws, engine, docs, examples=[examples.get(str(d.get("id"))) for d in docs], config=config)
    noisy = {str(d.get("id")): at_least(fs, "warning") for d, fs in zip(docs, found, strict=True)
             if at_least(fs, "warning")}
    codes = Counter(f"{f['code']}/{f['severity']}" for fs in found for f in fs)
    print(f"\n{name}: {len(docs)} rules ({sum(str(d.get('id')) in examples for d in docs)} with examples); "
          f"findings at warning or above: {sum(len(v) for v in noisy.values())}; all findings: {dict(codes)}")
    if expected is not None:
        assert len(docs) == expected
    assert noisy == {}
    # Nothing skipped: a rule left out (engine-call budget, engine failure) would pass this test vacuously.
    assert codes["not-analysed/info"] == 0


def test_bundled_rules_raise_nothing(engine: Engine) -> None:
    root = bundled.bundled_dir()
    # Every rule file yields one rule: a document that failed to load would shrink the set and pass vacuously.
    _check("bundled community rules", None, engine, _docs(root / "rules"), root / "rule-tests",
           expected=len(list((root / "rules").rglob("*.yml"))))


def test_repository_rules_raise_nothing(engine: Engine) -> None:
    ws = Workspace(REPO)
    _check("this repository's rules", ws, engine, _docs(REPO / "rules"), REPO / "rule-tests",
           config=REPO / "sgconfig.yml")


@needs_corpus
def test_essentials_rules_after_migration_raise_nothing(engine: Engine, essentials: Essentials) -> None:
    ws, root = essentials.workspace(), essentials.root
    _check("ast-grep-essentials (migrated)", ws, engine, _docs(root / "rules"), CORPUS / "tests",
           config=project.load_config(ws).path, expected=184)
