"""The project's rules as a store: `add_or_update_rule` and `remove_rule`.

A rule is written only after every check of rules/validate.py passed, atomically and under the workspace lock,
with its test file; a refused call leaves every byte as it was.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from ruamel.yaml.comments import CommentedMap
from ruamel.yaml.scalarstring import LiteralScalarString

from sgtools.contracts.rules import AddOrUpdateRuleResult, RemoveRuleResult, RuleTestReport
from sgtools.core import yamlio
from sgtools.core.errors import BadInput, Conflict, NotFound, RuleInvalid, RuleUnproven
from sgtools.engine.process import Engine
from sgtools.project.config import ProjectConfig, load_config
from sgtools.project.transaction import write_all
from sgtools.project.workspace import Workspace, check_rule_id
from sgtools.rules.docfile import DocFile
from sgtools.rules.draft import check_rule_inputs
from sgtools.rules.locate import (
    SNAPSHOT_SUFFIX,
    TEST_SUFFIX,
    existing_test_file,
    has_invalid_case,
    prime_ids,
    project_ids,
    test_file_for,
    test_file_ids,
    test_files_for,
    unknown_id_message,
)
from sgtools.rules.snapshot import tested_with_snapshots
from sgtools.rules.validate import Candidate, prepare

if TYPE_CHECKING:
    pass


def add_or_update_rule(
    ws: Workspace,
    engine: Engine,
    rule_id: str,
    rule_yaml: str,
    valid_examples: list[str] | None = None,
    invalid_examples: list[str] | None = None,
    *,
    metadata: Mapping[str, object] | None = None,
    overwrite: bool = True,
    force: bool = False,
    flags: tuple[str, str] = ("invalid_examples", "force: true"),
) -> AddOrUpdateRuleResult:
    """Check, then save. A new or changed rule needs an invalid example it flags (proof it fires), saved as its
    test; `force` saves one without (said unproven), or one the analyser proves can never fire (with a warning).
    `flag` names the arguments in the refusal: the MCP tool's, or the CLI's (`--invalid`, `--force`)."""
    cfg = load_config(ws)
    check_rule_inputs(rule_id, rule_yaml, valid_examples, invalid_examples, metadata, ws.settings)
    if not isinstance(force, bool):
        raise BadInput(f"force must be true or false, not {force!r}.")
    with ws.lock():
        cand = prepare(ws, engine, cfg, rule_id, rule_yaml, valid_examples, invalid_examples,
                       metadata=metadata, overwrite=overwrite, force=force)
        assert cand.target is not None
        needs_proof = not cand.invalid and _changed(cand)
        # its tests' invalid cases prove it when they fire under this version: checked with the tests below
        by_tests = needs_proof and has_invalid_case(cfg, rule_id)
        unproven = needs_proof and not by_tests
        if unproven and not force:
            raise RuleUnproven(
                f"Rule {rule_id} was not saved: nothing shows it fires. Pass {flags[0]} with at least one piece of "
                f"code it must flag (it is checked, then saved as the rule's test), or {flags[1]} to save it "
                "unproven.", argument=flags[0])
        writes, written_test, test_path = _rule_writes(cfg, cand)
        test_result: RuleTestReport | None = None
        snapshots: dict[Path, bytes] = {}
        if test_path is not None:  # tested first, so its snapshot is written with the rule (rules/snapshot.py)
            tests = {written_test: writes[written_test]} if written_test is not None else {}
            test_result, snapshots = tested_with_snapshots(ws, engine, cfg, rule_id, cand.target.path,
                                                           writes[cand.target.path], tests)
        if by_tests:
            unproven = _not_fired(rule_id, test_result, flags, force)
        if cand.target.same and not overwrite:
            _refuse_unless_half(ws, cand, writes, snapshots)
        write_all(ws, {**_encoded(writes), **snapshots})
        prime_ids("rules", cand.target.path, writes[cand.target.path], cand.target.ids_after(rule_id))
        if written_test is not None:
            prime_ids("tests", written_test, writes[written_test], [rule_id])
    rel = ws.relative(cand.target.path)
    proof = (f" UNPROVEN: saved with force and no invalid example, so nothing shows it fires; add one with {flags[0]}."
             if unproven else " Proven by its tests' invalid cases, which this version flags." if by_tests else "")
    return {
        "success": True,
        "message": _saved_message(cand, rel, test_path, test_result, proof),
        "path": rel,
        "created": not cand.target.exists,
        "testPath": ws.relative(test_path) if test_path is not None else None,
        "testResult": test_result,
        "warnings": cand.warnings,
        "analysis": cand.analysis,
        "unproven": unproven,
    }


def _saved_message(cand: Candidate, rel: str, test_path: Path | None, test_result: RuleTestReport | None,
                   proof: str) -> str:
    assert cand.target is not None
    message = f"{'Updated' if cand.target.exists else 'Created'} rule {cand.rule_id} in {rel}."
    if cand.examples_given and test_path is None:
        message += " The examples were checked but not saved: sgconfig.yml names no testConfigs."
    if test_result is not None:
        message += " Tests " + ("passed." if test_result["passed"] else "FAILED: " + test_result["summary"])
    message += proof
    if cand.warnings:
        message += " Warnings: " + "; ".join(cand.warnings)
    return message


def _not_fired(rule_id: str, report: RuleTestReport | None, flags: tuple[str, str], force: bool) -> bool:
    """A changed rule given no invalid example is proven by its tests' invalid cases only when this version flags
    every one of them: one it no longer flags is refused [rule-unproven] (True, unproven, with force)."""
    missed = [f["code"] for f in (report or {"failures": []})["failures"] if f["kind"] == "missing"]
    if report is not None and not missed:
        return False
    if not force:
        shown = f": {missed[0]!r}" + (f" and {len(missed) - 1} more" if len(missed) > 1 else "") if missed else ""
        raise RuleUnproven(
            f"Rule {rule_id} was not saved: this version no longer flags its tests' invalid case{shown}, so nothing "
            f"shows it fires. Fix the rule, pass {flags[0]} with code it must flag, or {flags[1]} to save it "
            "unproven.", argument=flags[0])
    return True


def _rule_writes(cfg: ProjectConfig, cand: Candidate) -> tuple[dict[Path, str], Path | None, Path | None]:
    """The files a save writes (the rule's file, its test file when examples were given), the test file written
    (or None) and the test file the rule's tests then live in (or None: it has none)."""
    assert cand.target is not None
    writes: dict[Path, str] = {cand.target.path: cand.target.new_file_text(cand.text)}
    written = test_file_for(cfg, cand.rule_id) if cand.examples_given else None
    if written is not None:
        writes[written] = _test_file_text(cand.rule_id, cand.valid, cand.invalid)
    return writes, written, written if written is not None else existing_test_file(cfg, cand.rule_id)


def _refuse_unless_half(ws: Workspace, cand: Candidate, writes: Mapping[Path, str],
                        snapshots: Mapping[Path, bytes]) -> None:
    """Without overwrite, a rule already saved with these exact bytes is a [conflict] when its test file and
    snapshot are whole too; when they are not (an interrupted save left the rule without its test snapshot, or
    with another one), the same save again repairs them (issue 33.5: a retried import)."""
    assert cand.target is not None
    stale = [p for p, text in writes.items() if _disk_text(p) != text]
    if not stale and not snapshots:
        raise Conflict(f"Rule {cand.rule_id} already exists in {ws.relative(cand.target.path)}. Pass overwrite=true "
                       "to replace it, or choose another id.", check="project")
    fixed = ", ".join(ws.relative(p) for p in [*stale, *snapshots])
    cand.warnings.insert(0, f"{cand.rule_id} was already saved with these exact bytes but {fixed} did not match it "
                            "(an interrupted save): written again")


def _disk_text(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def _changed(cand: Candidate) -> bool:
    """A new rule, or one whose saved document differs from what is written now (re-saving it unchanged needs
    no new proof)."""
    target = cand.target
    if target is None or not target.exists:
        return True
    try:
        old = target.path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return True
    if target.doc_file is None:
        return old != cand.text
    return target.doc_file.doc_text(target.index) != cand.text


def remove_rule(ws: Workspace, engine: Engine, rule_id: str) -> RemoveRuleResult:
    """The rule's document (the whole file when it is the only one), its tests and its snapshots."""
    check_rule_id(rule_id)
    cfg = load_config(ws)
    with ws.lock():
        places = project_ids(cfg).get(rule_id, [])
        if not places:
            raise NotFound(unknown_id_message(cfg, rule_id))
        # Edit each file once: drop its documents with this id, or the whole file when nothing else is in it.
        by_file: dict[Path, list[int]] = {}
        for path, index in places:
            by_file.setdefault(path, []).append(index)
        writes: dict[Path, str | None] = {}
        for path, indexes in by_file.items():
            text = path.read_text(encoding="utf-8")
            doc_file = DocFile.parse(text)
            if len(doc_file.doc_segments) == len(indexes):
                writes[path] = None
            else:
                writes[path] = doc_file.without(sorted(indexes))
        for path in test_files_for(cfg, rule_id):
            tests = DocFile.parse(path.read_text(encoding="utf-8"))
            mine = [i for i, d in enumerate(tests.docs) if str(d.get("id")) == rule_id]
            writes[path] = None if len(mine) == len(tests.docs) else tests.without(mine)
        for test_dir in cfg.test_dirs:
            named = test_dir / f"{rule_id}{TEST_SUFFIX}"
            if named.is_file() and named not in writes and not test_file_ids(named):
                writes[named] = None  # named after the rule but unreadable: it would break `ast-grep test`
        for snap_dir in cfg.snapshot_dirs:
            snap = snap_dir / f"{rule_id}{SNAPSHOT_SUFFIX}"
            if snap.is_file():
                writes[snap] = None
        write_all(ws, _encoded(writes))
        removed = [ws.relative(p) for p in writes]
    kept = [ws.relative(p) for p, new in writes.items() if new is not None]
    message = f"Removed rule {rule_id}: " + ", ".join(removed) + "."
    if kept:
        message += " Other rules in " + ", ".join(kept) + " were kept."
    return {"success": True, "message": message, "removed": removed}


def _test_file_text(rule_id: str, valid: list[str], invalid: list[str]) -> str:
    """Multi-line cases as `|` blocks, for people reading the file; plain scalars when a block would not read
    back byte for byte (trailing spaces, leading blank lines...)."""
    want = {"id": rule_id, "valid": valid, "invalid": invalid}
    for literal in (True, False):
        doc = CommentedMap()
        doc["id"] = rule_id
        for key, cases in (("valid", valid), ("invalid", invalid)):
            doc[key] = [LiteralScalarString(c) if literal and "\n" in c.rstrip("\n") else c for c in cases]
        text = yamlio.dump(doc)
        if yamlio.load_one(text) == want:
            return text
    raise RuleInvalid("The examples cannot be written as YAML that reads back unchanged. Simplify them "
                      "(e.g. remove control characters).", check="examples")


def _encoded(writes: Mapping[Path, str | None]) -> dict[Path, bytes | None]:
    return {path: None if text is None else text.encode("utf-8") for path, text in writes.items()}
