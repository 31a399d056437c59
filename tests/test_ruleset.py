"""rules/ruleset.py: a project's rules loaded one file at a time, so one broken file is named and never hides the
others; checks are remembered by content (a changed file is checked again, an unchanged project is not)."""

from __future__ import annotations

from pathlib import Path

import pytest

from sgtools.core import yamlio
from sgtools.engine.process import NO_CONFIG, Engine
from sgtools.engine.spawn import EngineResult
from sgtools.project import config as project
from sgtools.project.workspace import Workspace
from sgtools.rules import ruleset
from sgtools.rules.ruleset import DEFAULT_SEVERITY, load_ruleset, parse_rule_docs, rule_from_doc

GOOD = "id: no-eval\nlanguage: python\nseverity: error\nmessage: no eval\nrule:\n  pattern: eval($X)\nfix: safe($X)\n"
OTHER = "id: no-exec\nlanguage: python\nmessage: no exec\nrule:\n  pattern: exec($X)\n"


def _rules(ws: Workspace, **files: str) -> None:
    for name, text in files.items():
        (ws.root / "rules" / f"{name}.yml").write_text(text)


def _load(ws: Workspace, engine: Engine, **kw: bool) -> ruleset.RuleSet:
    return load_ruleset(ws, project.load_config(ws), engine, **kw)


class CountingEngine(Engine):
    """The real engine, counting the checks it is asked for (to see what the content-keyed cache spares)."""

    def __init__(self) -> None:
        super().__init__()
        self.calls: list[str] = []

    def check_project(self, config: Path, *, cwd: Path) -> EngineResult:
        self.calls.append("project")
        return super().check_project(config, cwd=cwd)

    def check_rule(self, rule_file: Path, *, config: Path | str = NO_CONFIG, cwd: Path) -> EngineResult:
        self.calls.append(rule_file.name)
        return super().check_rule(rule_file, config=config, cwd=cwd)


def test_parse_rule_docs_reads_every_document() -> None:
    docs = parse_rule_docs(GOOD + "---\n" + OTHER + "---\n", Path("two.yml"))
    assert [d["id"] for d in docs] == ["no-eval", "no-exec"]
    assert parse_rule_docs(GOOD.encode(), Path("a.yml")) == parse_rule_docs(GOOD, Path("a.yml"))


@pytest.mark.parametrize("text", ["- a list\n", "just text\n", "id: a\n---\n- b\n"])
def test_a_document_that_is_not_a_mapping_is_refused(text: str) -> None:
    with pytest.raises(yamlio.YamlError, match="must be a mapping"):
        parse_rule_docs(text, Path("x.yml"))


def test_rule_from_doc_defaults() -> None:
    rule = rule_from_doc({"language": "go", "rule": {"pattern": "x"}, "severity": None}, Path("/p/my-rule.yml"), 2)
    assert rule.id == "my-rule" and rule.severity == DEFAULT_SEVERITY == "hint" and rule.message == ""
    assert rule.note is None and rule.url is None and rule.index == 2 and not rule.has_fix and rule.enabled
    off = rule_from_doc({"id": 7, "severity": "off", "note": 1, "fix": ""}, Path("x.yml"), 0)
    assert off.id == "7" and not off.enabled and off.has_fix and off.note == "1"


def test_a_valid_project_loads_whole(initialized: Workspace, engine: Engine) -> None:
    _rules(initialized, **{"no-eval": GOOD, "no-exec": OTHER})
    rs = _load(initialized, engine)
    assert rs.all_valid and rs.errors == []
    assert sorted(rs.by_id()) == ["no-eval", "no-exec"]
    assert rs.by_id()["no-eval"].has_fix and rs.by_id()["no-eval"].severity == "error"


def test_one_broken_file_is_named_and_the_others_still_load(initialized: Workspace, engine: Engine) -> None:
    _rules(initialized, **{"no-eval": GOOD, "bad-yaml": "id: x\nrule: [unclosed\n",
                           "bad-rule": "id: bad-rule\nlanguage: python\nrule:\n  nosuchkey: 1\n"})
    rs = _load(initialized, engine)
    assert not rs.all_valid and list(rs.by_id()) == ["no-eval"]
    by_path = {e.path: e for e in rs.errors}
    assert set(by_path) == {"rules/bad-yaml.yml", "rules/bad-rule.yml"}
    assert by_path["rules/bad-yaml.yml"].message.startswith("cannot be read as YAML")
    assert by_path["rules/bad-rule.yml"].message.startswith("rejected by ast-grep")
    assert by_path["rules/bad-rule.yml"].ruleId == "bad-rule"
    assert {"path", "ruleId", "message"} == set(rs.error_dicts()[0])


def test_a_duplicate_id_is_an_error_of_the_later_file(initialized: Workspace, engine: Engine) -> None:
    _rules(initialized, **{"a-first": GOOD, "b-second": GOOD})
    rs = _load(initialized, engine)
    assert [r.path.name for r in rs.rules] == ["a-first.yml"]
    [err] = rs.errors
    assert err.path == "rules/b-second.yml" and err.ruleId == "no-eval"
    assert "duplicate rule id `no-eval`" in err.message and "rules/a-first.yml" in err.message


def test_without_validation_nothing_runs_ast_grep(initialized: Workspace) -> None:
    _rules(initialized, **{"bad-rule": "id: bad-rule\nlanguage: python\nrule:\n  nosuchkey: 1\n"})
    engine = CountingEngine()
    rs = _load(initialized, engine, validate=False)
    assert engine.calls == [] and [r.id for r in rs.rules] == ["bad-rule"] and rs.all_valid


def test_checks_are_remembered_by_content(initialized: Workspace) -> None:
    _rules(initialized, **{"no-eval": GOOD, "bad-rule": "id: bad-rule\nlanguage: python\nrule:\n  nosuchkey: 1\n"})
    engine = CountingEngine()
    first = _load(initialized, engine)
    assert engine.calls[0] == "project" and sorted(engine.calls[1:]) == ["bad-rule.yml", "no-eval.yml"]
    engine.calls.clear()
    again = _load(initialized, engine)
    assert engine.calls == [] and again.error_dicts() == first.error_dicts()  # nothing changed: nothing re-checked
    _rules(initialized, **{"bad-rule": OTHER.replace("no-exec", "bad-rule")})  # fixed: only it is checked again
    fixed = _load(initialized, engine)
    assert fixed.errors == [] and sorted(fixed.by_id()) == ["bad-rule", "no-eval"]
    assert engine.calls == ["project"]  # the project as a whole is new content and passes: no per-file checks


def test_broken_rules_outside_the_workspace_are_named_whole(tmp_path: Path, engine: Engine) -> None:
    """The bundled rules of a project without sgconfig.yml live outside it: a broken one is a rule error naming
    its whole path, not a crash of the scan (it was a ValueError from Workspace.relative)."""
    rules_home = tmp_path / "elsewhere"
    (rules_home / "rules").mkdir(parents=True)
    (rules_home / "sgconfig.yml").write_text("ruleDirs: [rules]\n")
    (rules_home / "rules" / "good.yml").write_text(GOOD)
    (rules_home / "rules" / "bad-yaml.yml").write_text("id: x\nrule: [unclosed\n")
    (rules_home / "rules" / "bad-rule.yml").write_text("id: bad-rule\nlanguage: python\nrule:\n  nosuchkey: 1\n")
    (rules_home / "rules" / "twin.yml").write_text(GOOD)
    (tmp_path / "project").mkdir()
    ws = Workspace(tmp_path / "project")
    rs = load_ruleset(ws, project.load_config(Workspace(rules_home)), engine)
    assert list(rs.by_id()) == ["no-eval"]
    assert sorted(e.path for e in rs.errors) == sorted(
        (rules_home / "rules" / f"{n}.yml").as_posix() for n in ("bad-rule", "bad-yaml", "twin"))
