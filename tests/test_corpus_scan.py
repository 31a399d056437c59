"""The ast-grep-essentials corpus through `scan_code`: every invalid case reported by its rule, no valid one.

The corpus is read in place. Its rules were written for ast-grep 0.31 and carry keys 0.51 refuses, so each
document goes through `sgtools.community.migrate.migrate_rule` (the importer's own migration) before it is
written into a temp project. Every case is a separate `scan_code` call in the rule's language, exactly as
an agent would make it; the calls run on a few threads since each one is an ast-grep process.
"""

from __future__ import annotations

from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from sgtools.core import yamlio
from sgtools.edit.text import apply_edits
from sgtools.engine.process import Engine
from sgtools.project import config as project
from sgtools.project.workspace import Workspace
from sgtools.scan import rulefiles, snippet
from tests.conftest import CORPUS, needs_corpus

migrate = pytest.importorskip("sgtools.community.migrate", reason="migrate_rule is needed to load the corpus")

EXPECTED_RULES = 184
EXPECTED_INVALID = 482
EXPECTED_VALID = 221
WORKERS = 4

# Cases whose outcome differs from the corpus' expectation, each with the reason. Keys are
# "<rule id>/<valid|invalid>/<index>". None are known today: the corpus passes completely.
KNOWN_EXCEPTIONS: dict[str, str] = {}

pytestmark = [needs_corpus, pytest.mark.slow]


def _project(root: Path) -> tuple[Workspace, dict[str, str]]:
    root.mkdir(parents=True)
    ws = Workspace(root)
    project.initialize(ws)
    languages: dict[str, str] = {}
    for src in sorted((CORPUS / "rules").rglob("*.yml")):
        docs = []
        for doc in yamlio.load_all(src.read_text(encoding="utf-8")):
            if doc is None:
                continue
            migrated, _notes = migrate.migrate_rule(doc)
            docs.append(migrated)
            languages[str(migrated["id"])] = str(migrated["language"])
        dest = root / "rules" / src.relative_to(CORPUS / "rules")
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.write_text("\n---\n".join(yamlio.dump(d) for d in docs), encoding="utf-8")
    return ws, languages


def _cases() -> list[tuple[str, str, int, str]]:
    cases: list[tuple[str, str, int, str]] = []
    for path in sorted((CORPUS / "tests").rglob("*.yml")):
        if "__snapshots__" in path.parts:
            continue
        doc = yamlio.load_one(path.read_text(encoding="utf-8"))
        for kind in ("invalid", "valid"):
            for i, code in enumerate(doc.get(kind) or []):
                cases.append((str(doc["id"]), kind, i, str(code)))
    return cases


def test_essentials_corpus_through_scan_code(tmp_path: Path, engine: Engine) -> None:
    ws, languages = _project(tmp_path / "essentials")
    ruleset = rulefiles.cached_ruleset(ws, project.load_config(ws), engine)
    assert ruleset.errors == [], ruleset.error_dicts()[:5]
    assert len(ruleset.rules) == EXPECTED_RULES

    cases = _cases()
    kinds = Counter(kind for _, kind, _, _ in cases)
    assert kinds == {"invalid": EXPECTED_INVALID, "valid": EXPECTED_VALID}

    def run(case: tuple[str, str, int, str]) -> tuple[str, str | None, dict[str, Any] | None]:
        rule_id, kind, index, code = case
        key = f"{rule_id}/{kind}/{index}"
        if rule_id not in languages:
            return key, "no rule with this id in the corpus", None
        result = snippet.scan_code(ws, engine, code, language=languages[rule_id])
        hit = any(d["ruleId"] == rule_id for d in result["issues"])
        if kind == "invalid" and not hit:
            return key, "invalid case not reported", result
        if kind == "valid" and hit:
            return key, "valid case reported", result
        return key, None, result

    with ThreadPoolExecutor(max_workers=WORKERS) as pool:
        outcomes = list(pool.map(run, cases))

    failures = {key: why for key, why, _ in outcomes if why is not None}
    reported = sum(1 for (_, kind, _, _), (_, why, _) in zip(cases, outcomes, strict=True)
                   if kind == "invalid" and why is None)
    quiet = sum(1 for (_, kind, _, _), (_, why, _) in zip(cases, outcomes, strict=True)
                if kind == "valid" and why is None)
    print(f"\nessentials corpus: {len(languages)} rules; invalid cases reported {reported}/{kinds['invalid']}; "
          f"valid cases quiet {quiet}/{kinds['valid']}; exceptions {len(failures)}")
    for key, why in sorted(failures.items()):
        print(f"  {key}: {why} (known: {KNOWN_EXCEPTIONS.get(key, 'NO')})")
    unexpected = {k: v for k, v in failures.items() if k not in KNOWN_EXCEPTIONS}
    stale = sorted(set(KNOWN_EXCEPTIONS) - set(failures))
    assert not unexpected, unexpected
    assert not stale, f"known exceptions that now pass; remove them: {stale}"

    # Verified fix-its really remove their diagnostic: apply every one and scan the edited snippet again. Since
    # issue 30 a suppression is no fix-it: the 20 this once asked for were mostly suppressions. The corpus has one
    # rule with a `fix` (fix-format-security-error-cpp, 3 invalid cases): each of its cases yields one fix-it, and
    # every fix-it of the corpus is verified (none lost its verification to a limit or a language it lacks).
    with_fix = {str(d["id"]) for src in (CORPUS / "rules").rglob("*.yml")
                for d in yamlio.load_all(src.read_text(encoding="utf-8")) if isinstance(d, dict) and d.get("fix")}
    samples: list[tuple[str, str, dict[str, Any], dict[str, Any]]] = []
    per_bucket: Counter[tuple[str, str]] = Counter()
    unverified = []
    for (rule_id, _kind, _i, code), (_, _, res) in zip(cases, outcomes, strict=True):
        for d in (res or {}).get("issues", []):
            for fx in d["fixits"]:
                if not fx["verified"]:
                    unverified.append((d["ruleId"], (fx.get("verification") or {}).get("reason")))
                    continue
                per_bucket[(languages[rule_id].lower(), fx["kind"])] += 1
                samples.append((code, languages[rule_id], d, fx))
    assert unverified == []
    fixable = sum(1 for rule_id, kind, _i, _c in cases if kind == "invalid" and rule_id in with_fix)
    assert len(samples) == fixable and fixable >= 3, (per_bucket, fixable)

    def recheck(sample: tuple[str, str, dict[str, Any], dict[str, Any]]) -> str | None:
        code, language, d, fx = sample
        new = apply_edits(code, fx["edits"])
        edit = fx["edits"][0]
        lo, hi = edit["byteStart"], edit["byteStart"] + len(edit["newText"].encode("utf-8"))
        again = snippet.scan_code(ws, engine, new, language=language)["issues"]
        left = [x for x in again if x["ruleId"] == d["ruleId"] and x["byteStart"] <= hi and x["byteEnd"] >= lo]
        return None if not left else f"{d['ruleId']} {fx['kind']} still reported after applying it"

    with ThreadPoolExecutor(max_workers=WORKERS) as pool:
        problems = [p for p in pool.map(recheck, samples) if p]
    print(f"  re-checked {len(samples)} verified fix-its: {dict(per_bucket)}")
    assert not problems, problems
