"""The project's rules as a store: `add_or_update_rule` and `remove_rule`.

A rule is written only after every check of rules/validate.py passed, atomically and under the workspace lock,
with its test file; a refused call leaves every byte as it was.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from ruamel.yaml.comments import CommentedMap
from ruamel.yaml.scalarstring import LiteralScalarString

from sgtools.contracts.rules import AddOrUpdateRuleResult, RemoveRuleResult, RuleTestReport
from sgtools.core import yamlio
from sgtools.core.errors import BadInput, NotFound, RuleInvalid, RuleUnproven, SgToolsError
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
    prime_ids,
    project_ids,
    test_file_for,
    test_file_ids,
    test_files_for,
    unknown_id_message,
)
from sgtools.rules.validate import Candidate, prepare

if TYPE_CHECKING:
    from sgtools.engine.testreport import TestReport


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
        unproven = not cand.invalid and _changed(cand)
        if unproven and not force:
            raise RuleUnproven(
                f"Rule {rule_id} was not saved: nothing shows it fires. Pass {flags[0]} with at least one piece of "
                f"code it must flag (it is checked, then saved as the rule's test), or {flags[1]} to save it "
                "unproven.", argument=flags[0])
        writes: dict[Path, str] = {cand.target.path: cand.target.new_file_text(cand.text)}
        test_path = test_file_for(cfg, rule_id) if cand.examples_given else None
        if test_path is not None:
            writes[test_path] = _test_file_text(rule_id, cand.valid, cand.invalid)
        write_all(ws, _encoded(writes))
        prime_ids("rules", cand.target.path, writes[cand.target.path], cand.target.ids_after(rule_id))
        if test_path is not None:
            prime_ids("tests", test_path, writes[test_path], [rule_id])
        if test_path is None:
            test_path = existing_test_file(cfg, rule_id)
        test_result = _run_tests(ws, engine, cfg, rule_id) if test_path is not None else None
    rel = ws.relative(cand.target.path)
    verb = "Updated" if cand.target.exists else "Created"
    message = f"{verb} rule {rule_id} in {rel}."
    if cand.examples_given and test_path is None:
        message += " The examples were checked but not saved: sgconfig.yml names no testConfigs."
    if test_result is not None:
        message += " Tests " + ("passed." if test_result["passed"] else "FAILED: " + test_result["summary"])
    if unproven:
        message += (f" UNPROVEN: saved with force and no invalid example, so nothing shows it fires; add one with "
                    f"{flags[0]}.")
    if cand.warnings:
        message += " Warnings: " + "; ".join(cand.warnings)
    return {
        "success": True,
        "message": message,
        "path": rel,
        "created": not cand.target.exists,
        "testPath": ws.relative(test_path) if test_path is not None else None,
        "testResult": test_result,
        "warnings": cand.warnings,
        "analysis": cand.analysis,
        "unproven": unproven,
    }


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


def _run_tests(ws: Workspace, engine: Engine, cfg: ProjectConfig, rule_id: str) -> RuleTestReport:
    """The rule's cases, and when they hold its snapshot recorded, so that a plain `ast-grep test` (which checks
    snapshots) passes in the project as well: one `ast-grep test --update-all`, which checks the cases as
    `--skip-snapshot-tests` does. It writes the snapshot even when a case fails, so then the snapshot is put back
    as it was (one engine call, where a check and then an update took two)."""
    only = f"^{re.escape(rule_id)}$"
    before = _snapshots(cfg, rule_id)
    dirs_before = {d for d in cfg.snapshot_dirs if d.is_dir()}
    report: TestReport | None = None
    try:
        report = engine.test(cfg.path, cwd=ws.root, rule_filter=only, update_snapshots=True)
    except SgToolsError as exc:
        # The rule is written and checked; a broken rule elsewhere can still stop `ast-grep test`.
        return {"passed": False, "summary": f"could not run the tests: {exc.message}", "failures": []}
    finally:
        if report is None or not report.passed:
            _restore_snapshots(ws, before, dirs_before)
    return {
        "passed": report.passed,
        "summary": report.summary,
        "failures": [{"kind": f.kind, "ruleId": f.rule_id, "code": f.code} for f in report.failures],
    }


def _snapshots(cfg: ProjectConfig, rule_id: str) -> dict[Path, bytes | None]:
    """The rule's snapshot file in each snapshot directory: its bytes, or None when there is none."""
    out: dict[Path, bytes | None] = {}
    for snap_dir in cfg.snapshot_dirs:
        path = snap_dir / f"{rule_id}{SNAPSHOT_SUFFIX}"
        try:
            out[path] = path.read_bytes()
        except FileNotFoundError:
            out[path] = None
    return out


def _restore_snapshots(ws: Workspace, before: Mapping[Path, bytes | None], dirs_before: set[Path]) -> None:
    """Put the snapshots back as `_snapshots` found them, and remove a snapshot directory that did not exist then
    and is empty now."""
    writes: dict[Path, bytes | None] = {}
    for path, old in before.items():
        try:
            now: bytes | None = path.read_bytes()
        except FileNotFoundError:
            now = None
        if now != old:
            writes[path] = old
    if writes:
        write_all(ws, writes)
    for path in before:
        if path.parent not in dirs_before:
            with contextlib.suppress(OSError):  # not empty, or never created: either way it stays as it is
                path.parent.rmdir()


def _encoded(writes: Mapping[Path, str | None]) -> dict[Path, bytes | None]:
    return {path: None if text is None else text.encode("utf-8") for path, text in writes.items()}
