"""How many re-scan rounds fix-it verification takes when one fix-it spoils a combined copy (issue 31 part 4).

Fix-its whose edits do not touch are checked together in one edited copy; a copy showing something unexpected
is split. The re-scan says where the trouble is: when every unexpected match touches a few members' edits,
those are checked alone and the others together, so one bad fix among n costs one more round instead of
log2(n). Real ast-grep (spawn path) and real rule files; the recorder only counts the calls."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from sgtools.engine import texts as engine_texts
from sgtools.engine.process import Engine
from sgtools.project import config as project
from sgtools.project.workspace import Workspace
from sgtools.scan import checker
from sgtools.scan.snippet import scan_code

RULES = {
    "no-baz": "rule: {pattern: baz($X)}\nfix: qux($X)\n",
    "no-foo": "rule: {pattern: foo($X)}\nfix: bar($X)\n",  # its fix makes a no-bar finding where it edits
    "no-bar": "rule: {pattern: bar($X)}\n",
}
# Seven good fixes and one that brings a new finding, all in one combined copy (their edits do not touch).
CODE = "".join(f"a{i} = baz({i})\n" for i in range(4)) + "b = foo(1)\n" + "".join(
    f"c{i} = baz({i})\n" for i in range(3))


def _project(root: Path, rules: dict[str, str], language: str = "python") -> Workspace:
    root.mkdir()
    ws = Workspace(root)
    project.initialize(ws)
    for rid, body in rules.items():
        (root / "rules" / f"{rid}.yml").write_text(f"id: {rid}\nlanguage: {language}\nseverity: warning\n"
                                                   f"message: {rid}\n{body}")
    return ws


def _count_warm_scans(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """From now on, how many documents each warm-engine call carries (the real call still runs)."""
    from sgtools.engine.warm import WarmEngine

    calls: list[int] = []
    real = WarmEngine.scan

    def counting(self: WarmEngine, spec: Any, texts: Sequence[str], *a: Any, **k: Any) -> Any:
        calls.append(len(texts))
        return real(self, spec, texts, *a, **k)

    monkeypatch.setattr(WarmEngine, "scan", counting)
    return calls


def _rounds(monkeypatch: pytest.MonkeyPatch) -> list[list[str]]:
    calls: list[list[str]] = []
    real = engine_texts.scan_texts

    def recording(engine: Engine, cfg: Any, rules_path: Path, file_name: str,
                  texts: Sequence[str]) -> list[list[dict[str, Any]]]:
        calls.append(list(texts))
        return real(engine, cfg, rules_path, file_name, texts)

    monkeypatch.setattr(checker, "scan_texts", recording)
    return calls


def _fixits(result: Any) -> dict[str, dict[str, Any]]:
    return {f"{d['ruleId']}@{d['line']}": fx for d in result["issues"] for fx in d.get("fixits", [])
            if fx["kind"] == "fix"}


def test_one_fix_bringing_a_new_finding_costs_no_more_round(tmp_path: Path,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    ws = _project(tmp_path / "p", RULES)
    calls = _rounds(monkeypatch)
    fixits = _fixits(scan_code(ws, Engine(), CODE, language="python"))
    assert len(fixits) == 8
    # one round: the eight together; the new no-bar finding touches the culprit's edit alone, so it is the
    # culprit's (it took a second round, the culprit alone and the seven others together; halving took 4)
    assert [len(batch) for batch in calls] == [1]
    culprit = fixits.pop("no-foo@5")
    assert culprit["verified"] and culprit["verification"]["newDiagnostics"] == 1
    assert culprit["verification"]["stillFires"] is False
    assert all(fx["verified"] and fx["verification"]["newDiagnostics"] == 0 for fx in fixits.values())


def test_judged_in_the_combined_copy_as_each_alone(tmp_path: Path) -> None:
    """Each fix-it checked in a copy of its own (one fix-it per finding, checked one at a time by scanning the
    findings one by one) gets the same verdict and verification block as in the combined copy."""
    ws = _project(tmp_path / "p", RULES)
    together = _fixits(scan_code(ws, Engine(), CODE, language="python"))
    for key, fx in together.items():
        line = int(key.split("@")[1])
        alone = _fixits(scan_code(ws, Engine(), CODE.splitlines(keepends=True)[line - 1], language="python"))
        [single] = alone.values()
        assert (single["verified"], single["verification"], single["confidence"]) == (
            fx["verified"], fx["verification"], fx["confidence"]), key


def test_a_new_finding_touching_two_edits_checks_those_two_alone(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """A new match over two members' edits cannot be told to be either's: those two are checked alone and the
    others together in one more round."""
    rules = {**RULES, "no-bar": "rule: {kind: block, has: {pattern: bar($X), stopBy: end}}\n"}
    code = CODE + "if x:\n    b = foo(2)\n    c = baz(9)\n"
    ws = _project(tmp_path / "p", rules)
    calls = _rounds(monkeypatch)
    fixits = _fixits(scan_code(ws, Engine(), code, language="python"))
    assert len(fixits) == 10 and all(fx["verified"] for fx in fixits.values())
    assert [len(batch) for batch in calls] == [1, 3]
    assert fixits["no-foo@10"]["verification"]["newDiagnostics"] == 1
    assert fixits["no-baz@11"]["verification"]["newDiagnostics"] == 0


def test_a_new_finding_touching_every_edit_still_halves(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A rule matching the whole module once `bar(...)` appears touches every member's edit: nothing singles out
    a culprit, so the copy is halved (log2(8) = 3 more rounds), never split into one copy per fix-it."""
    rules = {**RULES, "no-bar": "rule: {kind: module, has: {pattern: bar($X), stopBy: end}}\n"}
    ws = _project(tmp_path / "p", rules)
    calls = _rounds(monkeypatch)
    fixits = _fixits(scan_code(ws, Engine(), CODE, language="python"))
    assert len(fixits) == 8 and all(fx["verification"]["checked"] for fx in fixits.values())
    assert [len(batch) for batch in calls] == [1, 2, 2, 2]


# A fix that could drop a token (a `,` goes), so its MISSING-token count before and after is checked; and one
# whose copy does lose one without any ERROR node (tree-sitter inserts the `}` that `{ z()` lacks).
@pytest.mark.parametrize(("language", "rule", "code", "verified", "rounds"), [
    ("python", "rule: {pattern: '$D.get($K, None)'}\nfix: $D.get($K)\n", "v = d.get(k, None)\n", True, [1, 1]),
    ("javascript", "rule: {kind: statement_block, regex: 'y'}\nfix: '{ z()'\n", "if (x) { y() }\n", False,
     [1, 1, 1]),  # the copy does not parse cleanly: opened again with the counting rule
])
def test_warm_rescans_count_missing_tokens_in_the_same_round(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                             warm: Engine, language: str, rule: str, code: str,
                                                             verified: bool, rounds: list[int]) -> None:
    """On the warm path the documents tell the MISSING-token counts (scan/missing.py: 0 where the clean rule
    matched, else the counting rule's): the snippet's count is kept from its own scan and the copy's read from
    its round, so the check costs the snippet's scan and one round of one document (and the copy once more when
    it does not parse cleanly), not a warm call per count, nor the original scanned again beside its copy."""
    ws = _project(tmp_path / "p", {"r": rule}, language)
    assert warm.warm is not None
    scan_code(ws, warm, code, language=language)  # starts the warm process
    calls = _count_warm_scans(monkeypatch)
    [fx] = _fixits(scan_code(ws, warm, code, language=language)).values()
    assert warm.warm.stats.last == "warm", warm.warm.stats.last_reason
    assert calls == rounds  # the snippet; then its copy (the original was counted by its own scan)
    v = fx["verification"]
    assert fx["verified"] is verified and v["parseErrorsAfter"] == v["missingBefore"] == 0
    assert v["missingAfter"] == (0 if verified else 1)


def test_a_snippet_s_own_document_runs_no_verification_rule(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                            warm: Engine) -> None:
    """The parse-error and MISSING-token rules run only on documents opened with `checks` (engine/warm.py): a
    snippet's own document and the copy of its fix-it get the one rule that says a text parses cleanly
    (scan/missing.py `clean_rule_doc`), which is all they need when it matches (those two rules were a quarter
    of ast-grep's CPU per clean TypeScript snippet document)."""
    from sgtools.engine.lsp import LspSession
    from sgtools.scan import missing

    ws = _project(tmp_path / "p", {"r": GET_NONE})
    published: list[set[str]] = []
    real = LspSession.open

    def recording(self: LspSession, *a: Any, **k: Any) -> Any:
        uris, found = real(self, *a, **k)
        published.extend({str(d.get("code")) for d in diags} for diags in found)
        return uris, found

    monkeypatch.setattr(LspSession, "open", recording)
    [fx] = _fixits(scan_code(ws, warm, "v = d.get(k, None)\n", language="python")).values()
    assert fx["verified"] and fx["verification"]["missingBefore"] == 0
    assert published == [{"r", missing.CLEAN_RULE_ID}, {missing.CLEAN_RULE_ID}]  # the snippet; its copy


# An original that does not parse cleanly (a MISSING `}`; an ERROR node): its document told nothing of its parse
# errors, so it is scanned again beside its copy (each opened again with verification's rules when it does not
# parse cleanly either), and the verdicts are the spawn path's.
@pytest.mark.parametrize(("language", "code"), [("javascript", "if (x) { baz(1)\n"),
                                                ("python", "def f(:\n    baz(1)\n")])
def test_a_snippet_that_may_not_parse_is_scanned_again_beside_its_copy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                      warm: Engine, language: str, code: str) -> None:
    ws = _project(tmp_path / "p", {"no-baz": RULES["no-baz"]}, language)
    spawned = scan_code(ws, Engine(), code, language=language)
    scan_code(ws, warm, code, language=language)  # starts the warm process
    calls = _count_warm_scans(monkeypatch)
    got = scan_code(ws, warm, code, language=language)
    assert warm.warm is not None and warm.warm.stats.last == "warm", warm.warm.stats.last_reason
    assert calls == [1, 2, 2]  # the snippet; the original beside its copy; both again with verification's rules
    assert got == spawned and _fixits(got)


def test_a_pending_change_counts_missing_tokens_in_the_same_round(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                   warm: Engine) -> None:
    """The same for `scan_code` with `files` (a pending change's documents on the warm engine)."""
    ws = _project(tmp_path / "p", {"get-none": "rule: {pattern: '$D.get($K, None)'}\nfix: $D.get($K)\n"})
    files = [{"path": "a.py", "code": "v = d.get(k, None)\n"}]
    scan_code(ws, warm, files=files)  # type: ignore[arg-type]  # starts the warm process
    calls = _count_warm_scans(monkeypatch)
    [fx] = _fixits(scan_code(ws, warm, files=files)).values()  # type: ignore[arg-type]
    assert calls == [1, 2]  # the document; then its copy and the original, counted in the same round
    assert fx["verified"] and fx["verification"]["missingAfter"] == fx["verification"]["missingBefore"] == 0


GET_NONE = "rule: {pattern: '$D.get($K, None)'}\nfix: $D.get($K)\n"  # drops a `,`: its copy's MISSING tokens counted


def test_a_fix_that_could_drop_a_token_shares_the_copy_of_fixes_that_cannot(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, warm: Engine) -> None:
    """A fix that could drop a token shares its copy with fixes that keep brackets, terminators and operands (they
    cannot change the count, so the copy's count is its own): one document in the round, not one copy for it
    and one for the others (the bundled TypeScript, Python and Go snippets of B1), with the verdicts each gets
    checked alone."""
    ws = _project(tmp_path / "p", {"get-none": GET_NONE, "no-baz": RULES["no-baz"]})
    code = "a = baz(1)\nv = d.get(k, None)\nb = baz(2)\n"
    scan_code(ws, warm, code, language="python")  # starts the warm process
    calls = _count_warm_scans(monkeypatch)
    together = _fixits(scan_code(ws, warm, code, language="python"))
    assert warm.warm is not None
    assert warm.warm.stats.last == "warm", warm.warm.stats.last_reason
    assert calls == [1, 1]  # the snippet; then one combined copy of the three fixes
    dropper = together["get-none@2"]["verification"]
    assert dropper["missingBefore"] == dropper["missingAfter"] == 0 and together["get-none@2"]["verified"]
    for key, fx in together.items():
        line = int(key.split("@")[1])
        [single] = _fixits(scan_code(ws, warm, code.splitlines(keepends=True)[line - 1],
                                     language="python")).values()
        assert (single["verified"], single["verification"], single["confidence"]) == (
            fx["verified"], fx["verification"], fx["confidence"]), key


def test_a_counted_fix_split_out_of_a_failed_copy_is_counted_in_its_new_copy(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """When the combined copy holding a counted fix fails and is split, the fix's MISSING tokens are counted
    again in the copy it is judged in: the first count was of a text holding the other fixes' edits too."""
    rules = {**RULES, "get-none": GET_NONE, "no-bar": "rule: {kind: block, has: {pattern: bar($X), stopBy: end}}\n"}
    code = "v = d.get(k, None)\nif x:\n    b = foo(2)\n    c = baz(9)\n"
    ws = _project(tmp_path / "p", rules)
    calls = _rounds(monkeypatch)
    counted: list[str] = []
    real = checker.TextChecker.count_missing

    def recording(self: checker.TextChecker, language: str, text: str) -> int | None:
        counted.append(text)
        return real(self, language, text)

    monkeypatch.setattr(checker.TextChecker, "count_missing", recording)
    fixits = _fixits(scan_code(ws, Engine(), code, language="python"))
    assert [len(batch) for batch in calls] == [1, 3]  # the three together; then foo and baz alone, get.. alone
    own = code.replace("d.get(k, None)", "d.get(k)")
    assert own in calls[1] and counted[-1] == own  # its count is of its own copy, not the combined one
    v = fixits["get-none@1"]["verification"]
    assert fixits["get-none@1"]["verified"] and v["missingBefore"] == v["missingAfter"] == 0
