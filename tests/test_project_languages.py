"""One language resolution (project/languages.py) for the rule store, test_rule and the scanner.

The store used to accept custom language names exactly and the scanner in any case; ast-grep 0.51 matches a
custom language's name exactly (`DynamicLang::from_str` compares the sgconfig key) and built-in names in any
case, so that is what every service now does.
"""

from __future__ import annotations

import pytest

from sgtools.core.errors import BadInput, RuleInvalid
from sgtools.engine.process import Engine
from sgtools.project import config as project
from sgtools.project.languages import file_name_for, language_for_path, language_key, resolve_language
from sgtools.project.workspace import Workspace
from sgtools.rules import validate
from sgtools.scan import snippet
from sgtools.workflows import rule_testing as testing

ADA = "customLanguages:\n  ada:\n    libraryPath: ada.so\n    extensions: [adb, ads]\n  broken: not-a-mapping\n"


@pytest.fixture
def with_ada(initialized: Workspace) -> Workspace:
    cfg_path = initialized.root / "sgconfig.yml"
    cfg_path.write_text(cfg_path.read_text() + ADA + "languageGlobs:\n  python: ['*.pyw']\n")
    return initialized


def test_builtin_names_in_any_spelling_and_case() -> None:
    assert language_key("py") == language_key("Python") == language_key(" PYTHON ") == "python"
    assert language_key("golang") == "go"
    assert language_key("") is None and language_key(None) is None and language_key("cobol") is None


def test_custom_languages_by_their_exact_sgconfig_name(with_ada: Workspace) -> None:
    cfg = project.load_config(with_ada)
    assert language_key("ada", cfg) == "ada"
    assert language_key("Ada", cfg) is None  # ast-grep would refuse `language: Ada`
    assert language_key("broken", cfg) is None  # not a mapping: not a language
    assert language_key("ada") is None  # without the project, no custom languages


def test_paths_follow_language_globs_then_custom_extensions(with_ada: Workspace) -> None:
    cfg = project.load_config(with_ada)
    assert language_for_path("gui/app.pyw", cfg) == "python"
    assert language_for_path("src/main.adb", cfg) == "ada"
    assert language_for_path("src/main.adb", None) is None
    assert file_name_for("ada", cfg) == "snippet.adb"
    with pytest.raises(BadInput, match="Cannot tell the language"):
        resolve_language(cfg, None, "README")


def test_store_test_rule_and_scanner_refuse_the_same_name(with_ada: Workspace, engine: Engine) -> None:
    rule = "language: Ada\nrule: {kind: identifier}\n"
    with pytest.raises(RuleInvalid) as refused:
        validate.validate_rule(with_ada, engine, "r", rule)
    assert refused.value.details.get("check") == "language"
    tested = testing.test_rule(with_ada, engine, rule)
    assert not tested["success"] and "'Ada' is not a language" in tested["errors"][0]
    with pytest.raises(BadInput, match="Unknown language 'Ada'"):
        snippet.scan_code(with_ada, engine, "x", language="Ada")


def test_store_accepts_the_exact_custom_name(with_ada: Workspace, engine: Engine) -> None:
    # The language check passes; the real binary then refuses the rule (custom languages are not loaded).
    with pytest.raises(RuleInvalid) as refused:
        validate.validate_rule(with_ada, engine, "r", "language: ada\nrule: {kind: identifier}\n")
    assert refused.value.details.get("check") != "language"
