"""The bundled community rules: every one passes its own tests in the real ast-grep, follows the house layout,
and the committed index.json is exactly what build-index makes of them today."""

from __future__ import annotations

from pathlib import Path

from sgtools.community.build import make_index
from sgtools.community.index import parse_index, render_index
from sgtools.core import yamlio
from sgtools.core.bundled import bundled_dir
from sgtools.core.languages import canonical
from sgtools.engine.process import Engine

ROOT = bundled_dir()
CATEGORIES = {"security", "correctness", "performance", "api-hygiene"}


def rule_files() -> list[Path]:
    return sorted((ROOT / "rules").rglob("*.yml"))


def test_the_committed_index_is_current_and_byte_identical() -> None:
    committed = (ROOT / "index.json").read_bytes()
    rebuilt = render_index(make_index(ROOT, source="context-sherpa", license="MIT").index)
    assert rebuilt == committed, ("community_index/index.json is stale: run `sgtools community build-index "
                                  "community_index --source context-sherpa --license MIT`")
    index = parse_index(committed, "bundled")
    assert index["name"] == "context-sherpa community" and len(index["rules"]) == len(rule_files())
    assert all(r["license"] == "MIT" and r["source"] == "context-sherpa" for r in index["rules"])


def test_every_bundled_rule_follows_the_layout() -> None:
    files = rule_files()
    assert len(files) >= 100
    problems: list[str] = []
    for path in files:
        text = path.read_text(encoding="utf-8")
        doc = yamlio.load_one(path.read_bytes())
        folder = path.parent.name
        rid = doc.get("id")
        if rid != path.stem:
            problems.append(f"{path.name}: id {rid} differs from the file name")
        if canonical(folder) != folder or canonical(str(doc.get("language"))) != folder:
            problems.append(f"{path.name}: language {doc.get('language')} is not its folder {folder}")
        if not str(rid).endswith(f"-{folder}"):
            problems.append(f"{path.name}: id does not end in -{folder}")
        meta = doc.get("metadata") or {}
        if not str(meta.get("description", "")).strip() or not meta.get("tags"):
            problems.append(f"{path.name}: metadata.description and metadata.tags are required")
        elif meta["tags"][0] not in CATEGORIES:  # SARIF's category (present/sarif_props.py)
            problems.append(f"{path.name}: the first tag is the rule's category, one of {sorted(CATEGORIES)}")
        if doc.get("severity") not in ("error", "warning", "info", "hint"):
            problems.append(f"{path.name}: severity {doc.get('severity')!r}")
        if "fix" in doc and meta.get("fixSafety") not in ("safe", "unsafe"):
            problems.append(f"{path.name}: a rule with a fix declares metadata.fixSafety: safe or unsafe")
        if not (ROOT / "rule-tests" / f"{rid}-test.yml").is_file():
            problems.append(f"{path.name}: no rule-tests/{rid}-test.yml")
        problems += [f"{path.name}: {why}" for why in _costly_regex_classes(text)]
    assert not problems, "\n".join(problems)


def _costly_regex_classes(text: str) -> list[str]:
    """Regex classes whose Unicode tables cost compile time on every scan that loads the rule (bin/bench_cost.py):
    `\\w` ~0.4 ms per regex (identifiers and SQL words here are ASCII: write [0-9A-Za-z_]); `[\\s\\S]` under (?i)
    ~10 ms (sql-injection-sprintf-go loaded in 30 ms; write (?s:.))."""
    found = []
    if "\\w" in text:
        found.append("\\w in a regex: write [0-9A-Za-z_] (Unicode \\w costs compile time at every load)")
    if "[\\s\\S]" in text:
        found.append("[\\s\\S] in a regex: write (?s:.) (the Unicode class costs ~10 ms to compile under (?i))")
    return found


def test_every_bundled_rule_passes_its_tests(engine: Engine) -> None:
    report = engine.test(ROOT / "sgconfig.yml", cwd=ROOT)
    ids = {p.stem for p in rule_files()}
    failures = [f"{f.kind} {f.rule_id}: {f.code[:80]!r}" for f in report.failures]
    assert report.passed, report.summary + "\n" + "\n".join(failures)
    assert not report.not_found, f"test files for unknown rules: {report.not_found}"
    assert set(report.statuses) == ids, set(report.statuses) ^ ids
    thin = [rid for rid, status in report.statuses.items() if len(status) < 2]
    assert not thin, f"rules with fewer than two test cases: {thin}"
