"""Fix safety as data: the class a rule declares reaches every fix-it, imports without one count as unsafe, and
the two bundled fixes found wrong on real code (ripgrep's `is_empty`, ansible's own YAML loader) are fixed at
the rule: neither yields a `safe` wrong fix any more."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from sgtools.community import service
from sgtools.core import yamlio
from sgtools.engine.process import Engine
from sgtools.fixits import safety
from sgtools.project.workspace import Workspace
from sgtools.scan import paths
from sgtools.workflows.apply_fixes import apply_fixes


def put(ws: Workspace, rel: str, text: str) -> Path:
    p = ws.root / rel
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(text, encoding="utf-8")
    return p


def fixes(result: dict[str, Any]) -> list[tuple[int, str, str, bool]]:
    return [(d["line"], fx["edits"][0]["newText"], fx["safety"], fx["verified"])
            for d in result["issues"] for fx in d["fixits"] if fx["kind"] == "fix"]


@pytest.mark.parametrize(("meta", "expected"), [
    ({}, "unsafe"),  # the project's own rule that declares nothing: safe means proven, and nothing says so
    ({"fixSafety": "safe"}, "safe"),
    ({"fixSafety": "unsafe"}, "unsafe"),
    ({"fixSafety": "Safe"}, "safe"),
    ({"communityId": "x"}, "unsafe"),  # imported, nobody here judged it
    ({"communityId": "x", "fixSafety": "safe"}, "safe"),
    ({"fixSafety": "maybe"}, "unsafe"),  # declared but not valid: the safe side
])
def test_rule_fix_safety(meta: dict[str, Any], expected: str) -> None:
    assert safety.rule_fix_safety({"id": "r", "fix": "x", "metadata": meta}) == expected
    assert (safety.problem({"metadata": meta}) is None) == (meta.get("fixSafety") != "maybe")


def test_an_imported_rule_without_a_class_is_stamped_unsafe(initialized: Workspace, engine: Engine,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    from sgtools.community import service as svc

    real = svc._rule_text

    def undeclared(src: Any, entry: Any) -> str:  # the bundled rules all declare one; a remote rule may not
        return str(real(src, entry)).replace("  fixSafety: safe\n", "")

    monkeypatch.setattr(svc, "_rule_text", undeclared)
    out = service.import_community_rule(initialized, engine, "range-blank-value-go")
    doc = yamlio.load_one((initialized.root / out["path"]).read_text())
    assert doc["metadata"]["fixSafety"] == "unsafe"


def test_len_zero_never_fires_inside_is_empty(initialized: Workspace, engine: Engine) -> None:
    service.import_community_rule(initialized, engine, "len-zero-is-empty-rust")
    put(initialized, "src/lib.rs", (
        "impl Stack {\n"
        "    pub fn is_empty(&self) -> bool {\n"
        "        self.len() == 0\n"  # clippy's len_zero skips this body: the fix would recurse forever
        "    }\n"
        "    pub fn ready(&self) -> bool {\n"
        "        self.items.len() != 0\n"
        "    }\n"
        "}\n"))
    got = fixes(paths.scan_path(initialized, engine, paths=["src"]))
    assert got == [(6, "!self.items.is_empty()", "unsafe", True)]


def test_yaml_load_keeps_safe_and_custom_loaders(initialized: Workspace, engine: Engine) -> None:
    service.import_community_rule(initialized, engine, "yaml-unsafe-load-python")
    put(initialized, "src/conf.py", (
        "import yaml\n"
        "a = yaml.load_all(s, Loader=AnsibleLoader)\n"  # the caller's own loader: not ours to drop
        "b = yaml.load(s, Loader=yaml.SafeLoader)\n"
        "c = yaml.load(s, yaml.CSafeLoader)\n"
        "d = yaml.load(s, Loader=yaml.UnsafeLoader)\n"
        "e = yaml.load(s)\n"
        "f = yaml.load_all(s, yaml.FullLoader)\n"))
    got = fixes(paths.scan_path(initialized, engine, paths=["src"]))
    assert got == [(5, "yaml.safe_load(s)", "unsafe", True), (6, "yaml.safe_load(s)", "unsafe", True),
                   (7, "yaml.safe_load_all(s)", "unsafe", True)]
    # neither a plain --fix nor apply_fixes touches an unsafe fix; include_unsafe does
    assert apply_fixes(initialized, engine, apply=True)["fixesApplied"] == 0
    assert apply_fixes(initialized, engine, apply=True, include_unsafe=True)["fixesApplied"] == 3
    text = (initialized.root / "src/conf.py").read_text()
    assert "Loader=AnsibleLoader" in text and "yaml.CSafeLoader" in text and "UnsafeLoader" not in text


# ---- confidence that means something: capped by what the harness measured --------------------------------


def test_lower_bound_needs_many_verdicts_for_a_high_confidence() -> None:
    assert safety.lower_bound(0, 0) == 0.0
    assert round(safety.lower_bound(2, 2), 2) == 0.34  # two right verdicts prove little
    assert round(safety.lower_bound(37, 37), 2) == 0.91
    assert safety.lower_bound(370, 370) > 0.98
    assert safety.lower_bound(26, 37) < 26 / 37


def test_the_verdict_file_names_bundled_rules_with_fixes() -> None:
    from sgtools.core.bundled import bundled_dir

    ids = {p.stem: yamlio.load_one(p.read_bytes()) for p in (bundled_dir() / "rules").rglob("*.yml")}
    verdicts = safety.bundled_verdicts()
    assert sum(judged for judged, _right in verdicts.values()) >= 200
    for rule_id in verdicts:
        assert rule_id in ids and "fix" in ids[rule_id], rule_id
    lines = (bundled_dir() / safety.VERDICTS_FILE).read_text().splitlines()
    body = [ln.split("\t") for ln in lines if not ln.startswith("#")]
    assert all(len(f) == 3 and f[1] in ("right", "wrong") and f[2].strip() for f in body)


def test_a_measured_rule_caps_the_confidence_of_its_fixes(initialized: Workspace, engine: Engine) -> None:
    service.import_community_rule(initialized, engine, "loose-equality-javascript")
    put(initialized, "src/a.js", "if (a == b) { go(); }\n")
    fx = next(fx for d in paths.scan_path(initialized, engine, paths=["src"])["issues"]
              for fx in d["fixits"] if fx["kind"] == "fix")
    judged, right = safety.bundled_verdicts()["loose-equality-javascript"]
    assert fx["verified"] is True and fx["confidenceCap"]["judged"] == judged
    assert fx["confidence"] == fx["confidenceCap"]["value"] == round(safety.lower_bound(right, judged), 2) < 0.9


def test_an_unmeasured_unsafe_fix_is_capped_and_an_own_safe_fix_is_not(initialized: Workspace,
                                                                          engine: Engine) -> None:
    put(initialized, "rules/w.yml", "id: w\nlanguage: python\nseverity: info\nmessage: w\nrule:\n  pattern: "
        "wrap($A)\nfix: w($A)\nmetadata:\n  fixSafety: safe\n")
    put(initialized, "rules/n.yml", "id: n\nlanguage: python\nseverity: info\nmessage: n\nrule:\n  pattern: "
        "nowrap($A)\nfix: n($A)\n")
    put(initialized, "rules/u.yml", "id: u\nlanguage: python\nseverity: info\nmessage: u\nrule:\n  pattern: "
        "unwrap($A)\nfix: u($A)\nmetadata:\n  fixSafety: unsafe\n")
    put(initialized, "src/a.py", "wrap(1)\nunwrap(2)\nnowrap(3)\n")
    got = {d["ruleId"]: fx for d in paths.scan_path(initialized, engine, paths=["src"])["issues"]
           for fx in d["fixits"] if fx["kind"] == "fix"}
    assert "confidenceCap" not in got["w"] and got["w"]["confidence"] == 0.95
    assert got["u"]["confidenceCap"]["value"] == safety.UNMEASURED_UNSAFE_CAP == got["u"]["confidence"]
    # a project's own rule that declares nothing is unsafe, and capped like one (issue 30: safe means proven)
    assert got["n"]["safety"] == "unsafe" and got["n"]["confidence"] == safety.UNMEASURED_UNSAFE_CAP


# ---- safe means proven (issue 30, point 4) ---------------------------------------------------------------


def test_every_safe_bundled_fix_is_proven_by_the_harness_or_argued_syntactic() -> None:
    """A bundled rule is `fixSafety: safe` only with the fix harness's evidence (community_index/fix_evidence.tsv:
    >= 20 applications on real code accepted by the language's own tool before the fix, 0 failures after it) or an
    argument in `metadata.fixSafetyArgument` that the fix is purely syntactic; a rule whose fix failed anywhere
    is never safe, argued or not."""
    from bin import fix_evidence
    from sgtools.core.bundled import bundled_dir

    evidence = fix_evidence.load()
    assert evidence, "no fix evidence: run `python -m bin.fix_harness --evidence`"
    docs = {str(d["id"]): d
            for d in (yamlio.load_one(p.read_bytes()) for p in (bundled_dir() / "rules").rglob("*.yml"))}
    for rule_id, row in evidence.items():
        assert rule_id in docs and "fix" in docs[rule_id], f"evidence for {rule_id}, which is no bundled fix"
        assert row.checked <= row.applied and row.failures <= row.applied, row
    unproven = []
    for rule_id, doc in sorted(docs.items()):
        if "fix" not in doc or safety.rule_fix_safety(doc) != "safe":
            continue
        row = evidence.get(rule_id)
        argued = str((doc.get("metadata") or {}).get("fixSafetyArgument") or "")
        assert row is None or row.failures == 0, f"{rule_id} is safe but its fix failed on real code: {row}"
        if not (row is not None and row.proven) and not (argued.startswith("Purely syntactic:") and len(argued) > 80):
            unproven.append(f"{rule_id}: {row or 'never applied by the harness'}")
    assert not unproven, unproven
    safe = [r for r, d in docs.items() if "fix" in d and safety.rule_fix_safety(d) == "safe"]
    assert sum(1 for r in safe if r in evidence and evidence[r].proven) >= 1  # some are proven, not only argued
