"""apply_fixes: the fix selection and the write, on diagnostics shaped as the SPEC's Diagnostic."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from sgtools.core.errors import ConfigMissing, Conflict, OutsideWorkspace, TooLarge
from sgtools.core.settings import Settings
from sgtools.edit.text import LineIndex, combined_diff
from sgtools.engine.process import Engine
from sgtools.project.workspace import Workspace
from sgtools.scan import paths
from sgtools.workflows.apply_fixes import (
    DUPLICATE,
    NOT_VERIFIED,
    OVERLAPS,
    UNSAFE,
    apply_fixes,
    fix_diagnostics,
    plan_fixes,
)
from tests.conftest import snapshot_tree


def put(ws: Workspace, rel: str, data: str | bytes) -> Path:
    p = ws.root / rel
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_bytes(data.encode() if isinstance(data, str) else data)
    return p


def diag(ws: Workspace, file: str, old: str, new: str | None, *, rule: str = "r", verified: bool = True,
         nth: int = 0, extra_edits: list[dict[str, Any]] | None = None, safety: str = "safe") -> dict[str, Any]:
    """A Diagnostic for the `nth` occurrence of `old` in the file, with a fix replacing it by `new`."""
    data = (ws.root / file).read_bytes()
    start = -1
    for _ in range(nth + 1):
        start = data.index(old.encode(), start + 1)
    end = start + len(old.encode())
    index = LineIndex(data)
    pos = index.span(start, end)
    fixits: list[dict[str, Any]] = []
    if new is not None:
        edits = [{"file": file, **pos, "byteStart": start, "byteEnd": end, "newText": new}, *(extra_edits or [])]
        fixits.insert(0, {"title": f"Replace with {new}", "kind": "fix", "confidence": 0.9 if verified else 0.2,
                          "verified": verified, "safety": safety, "edits": edits})
    return {"ruleId": rule, "severity": "warning", "message": "m", "note": None, "url": None, "file": file,
            **pos, "byteStart": start, "byteEnd": end, "text": old, "labels": [], "fixits": fixits,
            "suppress": {"line": pos["line"], "comment": f"# ast-grep-ignore: {rule}"}}


@pytest.fixture
def proj(ws: Workspace) -> Workspace:
    put(ws, "src/a.py", "x == None\nprint(1)\ny == None\n")
    put(ws, "src/b.py", 's = "héllo😀"; t == None\r\n')
    return ws


def test_preview_writes_nothing_and_apply_writes_exactly_the_diff(proj: Workspace) -> None:
    diags = [
        diag(proj, "src/a.py", "x == None", "x is None"),
        diag(proj, "src/a.py", "y == None", "y is None"),
        diag(proj, "src/b.py", "t == None", "t is None"),
        diag(proj, "src/a.py", "print(1)", None),  # no fix at all: only a suppress comment, never applied
    ]
    before = snapshot_tree(proj.root)
    preview = fix_diagnostics(proj, diags)
    assert snapshot_tree(proj.root) == before
    assert preview["applied"] is False and preview["fixesApplied"] == 3 and preview["skipped"] == []
    assert preview["changedFiles"] == ["src/a.py", "src/b.py"]

    done = fix_diagnostics(proj, diags, apply=True)
    assert done["applied"] is True and done["diff"] == preview["diff"]
    after = snapshot_tree(proj.root)
    assert after["src/a.py"] == b"x is None\nprint(1)\ny is None\n"
    assert after["src/b.py"] == 's = "héllo😀"; t is None\r\n'.encode()  # byte offsets past 4-byte chars, CRLF kept
    changed = {p for p in after if after[p] != before[p]}
    assert combined_diff({p: (before[p].decode(), after[p].decode()) for p in changed}) == preview["diff"]


def test_unverified_fixes_are_never_applied(proj: Workspace) -> None:
    diags = [diag(proj, "src/a.py", "x == None", "x is None", verified=False, rule="eq-none")]
    for include_unsafe in (False, True):
        out = fix_diagnostics(proj, diags, apply=True, include_unsafe=include_unsafe)
        assert out["applied"] is False and out["diff"] == "" and out["fixesApplied"] == 0
        assert out["skipped"] == [{"ruleId": "eq-none", "file": "src/a.py", "line": 1, "column": 1,
                                   "title": "Replace with x is None", "reason": NOT_VERIFIED}]
    assert (proj.root / "src/a.py").read_text().startswith("x == None\n")


@pytest.mark.parametrize("safety", ["unsafe", None])  # a fix-it with no class at all counts as unsafe
def test_unsafe_fixes_need_include_unsafe(proj: Workspace, safety: str | None) -> None:
    diags = [diag(proj, "src/a.py", "x == None", "x is None", rule="eq-none", safety=str(safety))]
    if safety is None:
        del diags[0]["fixits"][0]["safety"]
    out = fix_diagnostics(proj, diags, apply=True)
    assert out["fixesApplied"] == 0 and [s["reason"] for s in out["skipped"]] == [UNSAFE]
    out = fix_diagnostics(proj, diags, apply=True, include_unsafe=True)
    assert out["applied"] is True and out["fixesApplied"] == 1 and out["skipped"] == []
    assert (proj.root / "src/a.py").read_text().startswith("x is None\n")


def test_overlapping_fixes_keep_the_first_and_report_the_rest(proj: Workspace) -> None:
    first = diag(proj, "src/a.py", "x == None", "x is None", rule="a")
    inner = diag(proj, "src/a.py", "None", "NONE", rule="b")  # the first "None" lies inside the first fix
    same = diag(proj, "src/a.py", "x == None", "x is None", rule="c")
    plan = plan_fixes([first, inner, same])
    assert [d["ruleId"] for d, _ in plan.accepted] == ["a"]
    assert [(s["ruleId"], s["reason"]) for s in plan.skipped] == [("b", OVERLAPS), ("c", DUPLICATE)]
    out = fix_diagnostics(proj, [first, inner, same], apply=True)
    assert out["fixesApplied"] == 1
    assert (proj.root / "src/a.py").read_text() == "x is None\nprint(1)\ny == None\n"


def test_a_fix_with_several_edits_goes_in_whole_or_not_at_all(proj: Workspace) -> None:
    data = (proj.root / "src/a.py").read_bytes()
    p = data.index(b"print")
    first = diag(proj, "src/a.py", "print(1)", "log(1)", rule="a")
    # b rewrites `y == None` and also imports at the top of the file, which touches a's span: all of b is skipped
    b_extra = [{"file": "src/a.py", "byteStart": p, "byteEnd": p + 5, "newText": "LOG"}]
    second = diag(proj, "src/a.py", "y == None", "y is None", rule="b", extra_edits=b_extra)
    out = fix_diagnostics(proj, [first, second], apply=True)
    assert [s["ruleId"] for s in out["skipped"]] == ["b"]
    assert (proj.root / "src/a.py").read_text() == "x == None\nlog(1)\ny == None\n"


def test_a_file_changed_since_the_scan_is_refused(proj: Workspace) -> None:
    diags = [diag(proj, "src/a.py", "x == None", "x is None"), diag(proj, "src/b.py", "t == None", "t is None")]
    put(proj, "src/b.py", 's = "hello"; t == None\r\n')  # offsets now point elsewhere
    before = snapshot_tree(proj.root)
    with pytest.raises(Conflict, match=r"src/b\.py changed"):
        fix_diagnostics(proj, diags, apply=True)
    assert snapshot_tree(proj.root) == before


def test_a_diff_other_than_the_preview_is_refused(proj: Workspace) -> None:
    preview = fix_diagnostics(proj, [diag(proj, "src/a.py", "x == None", "x is None")])
    put(proj, "src/a.py", "zz == None\nx == None\n")
    diags = [diag(proj, "src/a.py", "x == None", "x is None")]
    before = snapshot_tree(proj.root)
    with pytest.raises(Conflict, match="preview"):
        fix_diagnostics(proj, diags, apply=True, expected_diff=preview["diff"])
    assert snapshot_tree(proj.root) == before


def test_a_fix_editing_a_file_outside_the_root_is_refused(proj: Workspace, tmp_path: Path) -> None:
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside/x.py").write_text("x == None\n")
    os.symlink(tmp_path / "outside/x.py", proj.root / "link.py")
    evil = {"file": "link.py", "byteStart": 0, "byteEnd": 1, "newText": "pwned"}
    diags = [diag(proj, "src/a.py", "x == None", "x is None", extra_edits=[evil])]
    before = snapshot_tree(proj.root)
    with pytest.raises(OutsideWorkspace):
        fix_diagnostics(proj, diags, apply=True)
    assert snapshot_tree(proj.root) == before
    assert (tmp_path / "outside/x.py").read_text() == "x == None\n"


def test_a_huge_file_is_refused(proj: Workspace, monkeypatch: pytest.MonkeyPatch) -> None:
    put(proj, "src/big.py", "x == None\n" + "# pad\n" * 100)
    diags = [diag(proj, "src/a.py", "x == None", "x is None"), diag(proj, "src/big.py", "x == None", "x is None")]
    monkeypatch.setattr(proj, "settings", Settings(max_file_bytes=100))
    before = snapshot_tree(proj.root)
    with pytest.raises(TooLarge, match=r"src/big\.py"):
        fix_diagnostics(proj, diags, apply=True)
    assert snapshot_tree(proj.root) == before


# ---- end to end: the real scanner and binary ------------------------------------------------------------

RULES = {
    "eq-none": "id: eq-none\nlanguage: python\nseverity: warning\nmessage: use is\nrule:\n  pattern: $X == None\n"
               "fix: $X is None\n",
    "no-eval": "id: no-eval\nlanguage: python\nseverity: error\nmessage: no eval\nrule:\n  pattern: eval($A)\n",
    "wrap": "id: wrap\nlanguage: python\nseverity: info\nmessage: wrap\nrule:\n  pattern: wrap($A)\nfix: w($A)\n",
    # overlaps eq-none's fix on `not a == None`, and comes first in the file
    "not-eq": "id: not-eq\nlanguage: python\nseverity: info\nmessage: ne\nrule:\n  pattern: not $X == $Y\n"
              "fix: $X != $Y\n",
    # a fix that breaks the syntax: the scanner cannot verify it
    "bad-fix": "id: bad-fix\nlanguage: python\nseverity: info\nmessage: bad\nrule:\n  pattern: exec($A)\n"
               "fix: exec($A\n",
}


PROVEN = ("eq-none", "wrap", "not-eq")  # declared safe here; a rule that declares nothing is unsafe


@pytest.fixture
def scanned(initialized: Workspace) -> Workspace:
    for rule_id, text in RULES.items():
        put(initialized, f"rules/{rule_id}.yml", text + ("metadata:\n  fixSafety: safe\n" if rule_id in PROVEN else ""))
    put(initialized, "src/m.py", "if a == None:\n    eval(b)\nc = d == None\n")
    put(initialized, "src/n.py", "wrap(wrap(1))\nexec(code)\n")
    put(initialized, "src/p.py", "z = not a == None\n")
    put(initialized, "other/o.py", "e = f == None\n")
    return initialized


def test_apply_fixes_end_to_end(scanned: Workspace, engine: Engine) -> None:
    before = snapshot_tree(scanned.root)
    preview = apply_fixes(scanned, engine)
    assert snapshot_tree(scanned.root) == before
    assert preview["applied"] is False and preview["ruleErrors"] == []
    assert preview["changedFiles"] == ["other/o.py", "src/m.py", "src/n.py", "src/p.py"]
    assert preview["fixesApplied"] == 5  # 3 x eq-none, not-eq, the inner wrap
    # each fix in the diff says what it claims
    assert {(f["ruleId"], f["safety"]) for f in preview["fixes"]} == {("eq-none", "safe"), ("not-eq", "safe"),
                                                                    ("wrap", "safe")}
    assert all(0.3 <= f["confidence"] <= 1 for f in preview["fixes"]) and len(preview["fixes"]) == 5
    reasons = sorted((s["ruleId"], s["file"], s["reason"]) for s in preview["skipped"])
    assert reasons == [
        ("bad-fix", "src/n.py", NOT_VERIFIED),
        ("eq-none", "src/p.py", OVERLAPS),  # inside not-eq's fix, which starts first
        ("wrap", "src/n.py", NOT_VERIFIED),  # the outer wrap still has a wrap inside until that one is fixed
    ]

    done = apply_fixes(scanned, engine, apply=True)
    assert done["applied"] is True and done["diff"] == preview["diff"]
    assert (scanned.root / "src/m.py").read_text() == "if a is None:\n    eval(b)\nc = d is None\n"
    assert (scanned.root / "src/p.py").read_text() == "z = a != None\n"
    assert (scanned.root / "src/n.py").read_text() == "wrap(w(1))\nexec(code)\n"
    # the outer fix was left for later, not lost: the next run can verify and apply it
    again = apply_fixes(scanned, engine, apply=True)
    assert again["fixesApplied"] == 1 and again["changedFiles"] == ["src/n.py"]
    assert (scanned.root / "src/n.py").read_text() == "w(w(1))\nexec(code)\n"
    assert [s["ruleId"] for s in again["skipped"]] == ["bad-fix"]


def test_apply_fixes_narrowed_by_paths_and_rule_ids(scanned: Workspace, engine: Engine) -> None:
    out = apply_fixes(scanned, engine, paths=["other"], apply=True)
    assert out["changedFiles"] == ["other/o.py"]
    assert (scanned.root / "src/m.py").read_text().startswith("if a == None")
    out = apply_fixes(scanned, engine, rule_ids=["wrap"], apply=True)
    assert out["changedFiles"] == ["src/n.py"] and out["fixesApplied"] == 1
    assert (scanned.root / "src/m.py").read_text().startswith("if a == None")


def test_apply_fixes_never_applies_unverified_fixes(scanned: Workspace, engine: Engine) -> None:
    out = apply_fixes(scanned, engine, rule_ids=["bad-fix"], apply=True, include_unsafe=True)
    assert out["fixesApplied"] == 0 and [s["reason"] for s in out["skipped"]] == [NOT_VERIFIED]
    assert (scanned.root / "src/n.py").read_text() == "wrap(wrap(1))\nexec(code)\n"


def test_apply_fixes_applies_unsafe_rules_only_when_asked(scanned: Workspace, engine: Engine) -> None:
    put(scanned, "rules/wrap.yml", RULES["wrap"] + "metadata:\n  fixSafety: unsafe\n")
    found = paths.scan_path(scanned, engine, paths=["src/n.py"], rule_ids=["wrap"])["issues"]
    assert {fx["safety"] for d in found for fx in d["fixits"] if fx["kind"] == "fix"} == {"unsafe"}
    # the suppression is the finding's `suppress`, never a fix-it, and carries no safety to be applied by
    assert {fx["kind"] for d in found for fx in d["fixits"]} == {"fix"}
    assert all(set(d["suppress"]) == {"line", "comment"} for d in found)
    out = apply_fixes(scanned, engine, rule_ids=["wrap"], apply=True)
    assert out["fixesApplied"] == 0 and UNSAFE in [s["reason"] for s in out["skipped"]]
    assert (scanned.root / "src/n.py").read_text() == "wrap(wrap(1))\nexec(code)\n"
    out = apply_fixes(scanned, engine, rule_ids=["wrap"], apply=True, include_unsafe=True)
    assert out["fixesApplied"] == 1
    assert (scanned.root / "src/n.py").read_text() == "wrap(w(1))\nexec(code)\n"


@pytest.mark.parametrize("bad", ["../x", "/etc", "link"])
def test_apply_fixes_outside_the_root_is_refused(scanned: Workspace, engine: Engine, tmp_path: Path,
                                                 bad: str) -> None:
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside/x.py").write_text("g == None\n")
    os.symlink(tmp_path / "outside", scanned.root / "link")
    before = snapshot_tree(scanned.root)
    with pytest.raises(OutsideWorkspace):
        apply_fixes(scanned, engine, paths=[bad], apply=True)
    assert snapshot_tree(scanned.root) == before
    assert (tmp_path / "outside/x.py").read_text() == "g == None\n"


def test_apply_fixes_needs_a_project(ws: Workspace, engine: Engine) -> None:
    put(ws, "a.py", "a == None\n")
    with pytest.raises(ConfigMissing):
        apply_fixes(ws, engine, apply=True)
    assert (ws.root / "a.py").read_text() == "a == None\n"


def test_a_project_rule_that_declares_no_safety_is_unsafe(scanned: Workspace, engine: Engine) -> None:
    """Safe means proven: the project's own rule without `metadata.fixSafety` is not applied by default, and the
    reason says how to mark it safe."""
    put(scanned, "rules/wrap.yml", RULES["wrap"])
    out = apply_fixes(scanned, engine, rule_ids=["wrap"], apply=True)
    assert out["fixesApplied"] == 0 and out["fixes"] == []
    reasons = {s["reason"] for s in out["skipped"] if s["ruleId"] == "wrap"}
    assert reasons == {UNSAFE, NOT_VERIFIED}  # the inner wrap: unsafe; the outer: not verified
    assert "fixSafety: safe" in UNSAFE and "--unsafe-fixes" in UNSAFE
    assert (scanned.root / "src/n.py").read_text() == "wrap(wrap(1))\nexec(code)\n"
