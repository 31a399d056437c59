"""Audit companions (issue 21): a rule at warning reports the forms with evidence of harm and its `-audit-` companion
at info lists the rest, so nothing goes silent. The companion names its base (`metadata.auditOf`) and shares its
equivalents, tags (plus `audit`) and url; over both rules' `valid` and `invalid` snippets the pair never reports the
same site."""

from __future__ import annotations

from pathlib import Path

import pytest

from sgtools.core import yamlio
from sgtools.core.bundled import bundled_dir
from sgtools.core.languages import LANGUAGES
from sgtools.engine.process import Engine
from sgtools.project.config import load_config
from sgtools.project.workspace import Workspace
from sgtools.scan.rulefiles import cached_ruleset, rule_file

ROOT = bundled_dir()


def _doc(path: Path) -> dict[str, object]:
    return dict(yamlio.load_one(path.read_bytes()))


def _pairs() -> list[tuple[dict[str, object], dict[str, object]]]:
    docs = {str(d["id"]): d for d in map(_doc, sorted((ROOT / "rules").rglob("*.yml")))}
    audits = [d for d in docs.values() if "auditOf" in (d.get("metadata") or {})]  # type: ignore[operator]
    return [(docs[str(d["metadata"]["auditOf"])], d) for d in audits]  # type: ignore[index]


def test_each_audit_rule_names_its_base_and_shares_its_metadata() -> None:
    pairs = _pairs()
    assert any(base["id"] == "unquoted-variable-expansion-bash" for base, _ in pairs)
    for base, audit in pairs:
        meta, base_meta = audit["metadata"], base["metadata"]
        assert audit["id"] == str(base["id"]).replace(f"-{base['language']}", f"-audit-{base['language']}")
        assert audit["severity"] == "info" and base["severity"] in ("warning", "error"), audit["id"]
        assert audit["language"] == base["language"] and audit.get("url") == base.get("url"), audit["id"]
        assert meta.get("equivalents") == base_meta.get("equivalents"), audit["id"]  # type: ignore[union-attr]
        tags = [t for t in meta.get("tags") or [] if t != "audit"]  # type: ignore[union-attr]
        assert tags == base_meta.get("tags"), f"{audit['id']}: the base's tags (and `audit`)"  # type: ignore[union-attr]


@pytest.mark.slow
def test_an_audit_rule_and_its_base_never_report_the_same_site(engine: Engine, tmp_path: Path) -> None:
    cfg = load_config(Workspace(ROOT))
    pairs = {str(a["id"]): str(b["id"]) for b, a in _pairs()}
    rules = [r for r in cached_ruleset(Workspace(ROOT), cfg, engine).rules if r.id in pairs or r.id in pairs.values()]
    by_id = {r.id: r for r in rules}
    for audit, base in pairs.items():
        ext = LANGUAGES[by_id[base].language][1][0] if by_id[base].language != "bash" else "sh"
        for rid in (audit, base):
            tests = _doc(ROOT / "rule-tests" / f"{rid}-test.yml")
            for kind in ("valid", "invalid"):
                for n, code in enumerate(tests.get(kind) or []):  # type: ignore[arg-type]
                    (tmp_path / f"{base}.{rid}.{kind}{n}.{ext}").write_text(str(code), encoding="utf-8")
    found = engine.scan(config=cfg.path, cwd=tmp_path, rule_file=rule_file(rules, keep_globs=False), paths=["."])
    sites: dict[tuple[str, int, int], set[str]] = {}
    for f in found:
        key = (str(f["file"]), f["range"]["byteOffset"]["start"], f["range"]["byteOffset"]["end"])
        sites.setdefault(key, set()).add(str(f["ruleId"]))
    both = sorted(f"{file} {ids}" for (file, _s, _e), ids in sites.items()
                  if any(a in ids and b in ids for a, b in pairs.items()))
    assert not both, "sites both rules of a pair report:\n" + "\n".join(both)
    assert {str(f["ruleId"]) for f in found} >= set(pairs) | set(pairs.values())
