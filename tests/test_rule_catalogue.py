"""A catalogue of bad rules and bad calls: each is refused with its own error code and a message naming the
cause, and leaves every file of the project byte-for-byte as it was, with nothing created anywhere else."""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from sgtools.core.errors import SgToolsError
from sgtools.core.settings import get_settings
from sgtools.engine import tempdirs
from sgtools.engine.process import Engine
from sgtools.project.workspace import Workspace
from sgtools.rules import store, validate
from tests.conftest import snapshot_tree

GOOD = "language: python\nseverity: warning\nmessage: no print\nrule:\n  pattern: print($A)\n"


def _bomb(levels: int = 6) -> str:
    lines = ['l0: &l0 ["x", "x", "x", "x", "x", "x", "x", "x", "x"]']
    for i in range(1, levels):
        lines.append(f"l{i}: &l{i} [" + ", ".join([f"*l{i - 1}"] * 9) + "]")
    return "\n".join(lines) + "\nlanguage: python\nrule: {kind: call}\n"


def _existing(ws: Workspace, engine: Engine) -> None:
    store.add_or_update_rule(ws, engine, "no-print", GOOD, invalid_examples=["print(1)"])


def _two_files_same_id(ws: Workspace, engine: Engine) -> None:
    for name in ("a.yml", "b.yml"):
        (ws.root / "rules" / name).write_text("id: no-print\nlanguage: python\nrule: {kind: call}\n")


def _file_named_after_id_holds_other_rule(ws: Workspace, engine: Engine) -> None:
    (ws.root / "rules" / "no-print.yml").write_text("id: something-else\nlanguage: python\nrule: {kind: call}\n")


@dataclass
class Case:
    name: str
    code: str  # the expected SPEC error code
    needle: str  # a piece of the message that names the cause
    rule_yaml: Any = GOOD
    rule_id: Any = "no-print"
    kwargs: dict[str, Any] = field(default_factory=dict)
    setup: Callable[[Workspace, Engine], None] | None = None


CASES = [
    # -- YAML --------------------------------------------------------------------------------------------
    Case("malformed-yaml", "rule-invalid", "at line 3, column 1", "language: python\nrule: {pattern: print($A)\n"),
    Case("unquoted-colon-pattern", "rule-invalid", "must be quoted",
         "language: python\nrule:\n  pattern: def $F(): $$$\n"),
    Case("tab-indentation", "rule-invalid", "not valid YAML", "language: python\nrule:\n\tpattern: x\n"),
    Case("duplicate-yaml-key", "rule-invalid", "not valid YAML", "language: python\nlanguage: go\nrule: {kind: x}\n"),
    Case("undefined-alias", "rule-invalid", "not valid YAML", "language: python\nrule: *nothing\n"),
    Case("yaml-bomb", "too-large", "alias bomb", _bomb()),
    Case("deep-nesting", "too-large", "nested",
         "language: python\nrule: " + "{not: " * 100 + "{kind: call}" + "}" * 100 + "\n"),
    Case("one-megabyte", "too-large", "byte limit",
         "language: python\nrule: {kind: call}\nmessage: " + "x" * 1_000_000 + "\n"),
    Case("binary-data", "bad-input", "binary", "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"),
    Case("control-characters", "rule-invalid", "not valid YAML", "language: python\x07\nrule: {kind: call}\n"),
    Case("lone-surrogate", "rule-invalid", "not valid YAML", "language: python\nmessage: \udc80\nrule: {kind: call}\n"),
    Case("not-a-string", "bad-input", "must be a string", b"language: python\nrule: {kind: call}\n"),
    Case("empty", "rule-invalid", "empty", "   \n# only a comment\n"),
    Case("two-documents", "rule-invalid", "2 YAML documents", GOOD + "---\n" + GOOD),
    Case("top-level-list", "rule-invalid", "got a list", "- language: python\n- rule: {kind: call}\n"),
    Case("top-level-scalar", "rule-invalid", "got a string", "just some words\n"),
    # -- structure (our schema) ------------------------------------------------------------------------------
    Case("unknown-top-level-key", "rule-invalid", "ast-grep-essentials: unknown key",
         GOOD + "ast-grep-essentials: true\n"),
    Case("typo-in-rule", "rule-invalid", "rule.patern: unknown key; did you mean pattern?",
         "language: python\nrule: {patern: print($A)}\n"),
    Case("typo-in-relation", "rule-invalid", "rule.inside.stopby: unknown key; did you mean stopBy?",
         "language: python\nrule: {kind: call, inside: {kind: function_definition, stopby: end}}\n"),
    Case("typo-deep-in-any", "rule-invalid", "rule.any[1].kinds: unknown key; did you mean kind?",
         "language: python\nrule: {any: [{kind: call}, {kinds: call}]}\n"),
    Case("rule-is-a-string", "rule-invalid", "rule: expected a mapping, got a string",
         "language: python\nrule: print($A)\n"),
    Case("pattern-is-a-number", "rule-invalid", "rule.pattern: expected a string or a mapping",
         "language: python\nrule: {pattern: 42}\n"),
    Case("severity-unknown", "rule-invalid", "severity: 'critical' is not one of",
         GOOD.replace("warning", "critical")),
    Case("message-is-a-list", "rule-invalid", "message: expected a string, got a list",
         "language: python\nmessage: [a, b]\nrule: {kind: call}\n"),
    Case("missing-rule", "rule-invalid", "rule: required key is missing", "language: python\nmessage: m\n"),
    Case("missing-language", "rule-invalid", "language: required key is missing", "rule: {kind: call}\n"),
    Case("any-not-a-list", "rule-invalid", "rule.any: expected a list",
         "language: python\nrule: {any: {kind: call}}\n"),
    Case("nth-child-negative", "rule-invalid", "rule.nthChild",
         "language: python\nrule: {kind: call, nthChild: -1}\n"),
    Case("pattern-object-without-context", "rule-invalid", "rule.pattern.context: required key is missing",
         "language: python\nrule: {pattern: {selector: call}}\n"),
    Case("transform-two-operations", "rule-invalid", "transform.B",
         "language: python\nrule: {pattern: print($A)}\ntransform:\n  B:\n    substring: {source: $A}\n"
         "    convert: {source: $A, toCase: upperCase}\n"),
    Case("fix-object-without-template", "rule-invalid", "fix",
         "language: python\nrule: {pattern: print($A)}\nfix: {title: nothing}\n"),
    Case("label-style-unknown", "rule-invalid", "labels.A.style",
         "language: python\nrule: {pattern: print($A)}\nlabels: {A: {style: loud}}\n"),
    Case("stopby-outside-relation", "rule-invalid", "belongs inside a relational rule",
         "language: python\nrule: {kind: call, stopBy: end}\n"),
    Case("reserved-util-id", "rule-invalid", "util id contains characters ast-grep 0.51 reserves",
         "language: python\nutils:\n  'is-call(x)': {kind: call}\nrule: {matches: 'is-call(x)'}\n"),
    Case("metadata-not-a-mapping", "rule-invalid", "metadata: expected a mapping",
         GOOD + "metadata: [1, 2]\n"),
    # -- id and language ------------------------------------------------------------------------------------
    Case("id-mismatch", "rule-invalid", "rule_id is `no-print`", "id: no-eval\n" + GOOD),
    Case("path-like-id", "bad-input", "not valid", rule_id="../../x"),
    Case("id-with-slash", "bad-input", "not valid", rule_id="rules/x"),
    Case("id-dot", "bad-input", "not valid", rule_id="."),
    Case("id-empty", "bad-input", "not valid", rule_id=""),
    Case("id-too-long", "bad-input", "not valid", rule_id="a" * 129),
    Case("id-not-ascii", "bad-input", "not valid", rule_id="nö-print"),
    Case("id-not-a-string", "bad-input", "not valid", rule_id=7),
    Case("unknown-language", "rule-invalid", "'cobol' is not a language", "language: cobol\nrule: {kind: x}\n"),
    Case("language-typo", "rule-invalid", "Did you mean python", "language: pyhton\nrule: {kind: call}\n"),
    # -- the binary ----------------------------------------------------------------------------------------------
    Case("incomplete-pattern", "rule-invalid", "Rule must specify a set of AST kinds",
         "language: python\nrule: {pattern: 'print('}\n"),
    Case("operator-pattern", "rule-invalid", "Rule must specify a set of AST kinds",
         "language: python\nrule: {pattern: 'a +'}\n"),
    Case("multiple-nodes-pattern", "rule-invalid", "Multiple AST nodes",
         "language: python\nrule: {pattern: '$A; $B'}\n"),
    Case("empty-pattern", "rule-invalid", "pattern", "language: python\nrule: {pattern: ''}\n"),
    Case("unknown-kind", "rule-invalid", "Kind `not_a_kind` is invalid",
         "language: python\nrule: {kind: not_a_kind}\n"),
    Case("bad-regex", "rule-invalid", "regex parse error", "language: python\nrule: {kind: call, regex: '('}\n"),
    Case("bad-constraint-regex", "rule-invalid", "regex parse error",
         "language: python\nrule: {pattern: print($A)}\nconstraints: {A: {regex: '[a-'}}\n"),
    Case("undefined-metavar-in-fix", "rule-invalid", "Undefined meta var `B` used in `fix`",
         "language: python\nrule: {pattern: print($A)}\nfix: log($B)\n"),
    Case("undefined-metavar-in-transform", "rule-invalid", "Undefined meta var `Z` used in `transform`",
         "language: python\nrule: {pattern: print($A)}\ntransform: {B: {substring: {source: $Z}}}\nfix: $B\n"),
    Case("undefined-util", "rule-invalid", "Rule `nope` is not defined",
         "language: python\nrule: {matches: nope}\n"),
    Case("no-positive-matcher", "rule-invalid", "positive matcher", "language: python\nrule: {}\n"),
    Case("only-not", "rule-invalid", "Rule must specify a set of AST kinds",
         "language: python\nrule: {not: {kind: call}}\n"),
    # -- the project ------------------------------------------------------------------------------------------------
    Case("duplicate-id-in-two-files", "conflict", "defined 2 times", setup=_two_files_same_id),
    Case("file-named-after-id-holds-another-rule", "conflict", "something-else",
         setup=_file_named_after_id_holds_other_rule),
    Case("exists-and-overwrite-false", "conflict", "overwrite", kwargs={"overwrite": False}, setup=_existing),
    # -- examples and other arguments ----------------------------------------------------------------------------------
    Case("invalid-example-not-matched", "rule-invalid", "invalid_examples[0] is not matched",
         kwargs={"invalid_examples": ["log(1)"]}),
    Case("valid-example-matched", "rule-invalid", "valid_examples[1] is matched at line 2",
         kwargs={"valid_examples": ["x = 1", "x = 1\nprint(x)"], "invalid_examples": ["print(2)"]}),
    Case("examples-not-a-list", "bad-input", "list of code strings", kwargs={"valid_examples": "print(1)"}),
    Case("examples-not-strings", "bad-input", "list of code strings", kwargs={"invalid_examples": [1, 2]}),
    Case("too-many-examples", "too-large", "over the limit",
         kwargs={"valid_examples": ["x"] * (get_settings().max_examples + 1)}),
    Case("example-with-nul", "bad-input", "NUL", kwargs={"valid_examples": ["x\x00y"]}),
    Case("metadata-argument-not-a-dict", "bad-input", "metadata", kwargs={"metadata": ["source"]}),
    Case("metadata-argument-not-json", "bad-input", "metadata", kwargs={"metadata": {"when": object()}}),
]


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
@pytest.mark.slow
def test_bad_input_is_refused_and_nothing_changes(case: Case, initialized: Workspace, engine: Engine,
                                                  tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    scratch = tmp_path / "scratch"  # where the store's temp files go; it must be empty again afterwards
    scratch.mkdir()
    # The process-wide directory for scanned texts and rule files (engine/tempdirs.py) lives until exit, by design:
    # it is made before the scratch is patched in, so the scratch holds only what this call leaves behind.
    tempdirs.tmp_root()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    if case.setup is not None:
        case.setup(initialized, engine)
    before = snapshot_tree(tmp_path)
    with pytest.raises(SgToolsError) as info:
        store.add_or_update_rule(initialized, engine, case.rule_id, case.rule_yaml, **case.kwargs)
    assert info.value.code == case.code, info.value.render()
    assert case.needle in info.value.message, info.value.render()
    assert snapshot_tree(tmp_path) == before
    assert list(scratch.iterdir()) == []


def test_the_catalogue_is_big_enough() -> None:
    assert len(CASES) >= 30
    assert len({c.name for c in CASES}) == len(CASES)


@pytest.mark.parametrize("case", [c for c in CASES if c.setup is None and c.code == "rule-invalid"],
                         ids=lambda c: c.name)
@pytest.mark.slow
def test_validate_rule_refuses_the_same_way(case: Case, initialized: Workspace, engine: Engine) -> None:
    """`validate_rule` (used by the community importer) makes the same checks as the write path."""
    kwargs = {k: v for k, v in case.kwargs.items() if k in ("valid_examples", "invalid_examples")}
    with pytest.raises(SgToolsError) as info:
        validate.validate_rule(initialized, engine, case.rule_id, case.rule_yaml, **kwargs)
    assert info.value.code == case.code and case.needle in info.value.message


def test_the_good_rule_of_the_catalogue_is_accepted(initialized: Workspace, engine: Engine) -> None:
    """Guards the catalogue itself: its cases fail because of what each changes, not because GOOD is bad."""
    result = store.add_or_update_rule(initialized, engine, "no-print", GOOD, ["x = 1"], ["print(2)"])
    assert result["success"] and result["testResult"]["passed"]
