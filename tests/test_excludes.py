"""Default excludes: a walk skips dependency and build folders and minified bundles (as semgrep and ruff do);
one flag or one sgconfig.yml key scans them all; a path named explicitly is always scanned."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sgtools.cli import main
from sgtools.engine.process import Engine
from sgtools.project.excludes import DEFAULT_EXCLUDES
from sgtools.project.workspace import Workspace
from sgtools.scan import paths

SOURCES = ["src/app.js", "lib/util.js"]
OTHERS = ["node_modules/left-pad/index.js", "vendor/jquery/jquery.js", "third_party/x/y.js", "venv/lib/z.js",
          "dist/bundle.js", "build/out.js", "static/app.min.js", "src/deep/node_modules/m/i.js"]


@pytest.fixture
def tree(initialized: Workspace) -> Workspace:
    (initialized.root / "rules/no-eval.yml").write_text(
        "id: no-eval\nlanguage: javascript\nseverity: error\nmessage: no eval\nrule:\n  pattern: eval($X)\n")
    for rel in SOURCES + OTHERS:
        p = initialized.root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text("eval(x);\n")
    return initialized


def files(result: dict[str, object]) -> list[str]:
    return sorted(str(i["file"]) for i in result["issues"])  # type: ignore[attr-defined, index]


def test_a_walk_skips_dependencies_builds_and_bundles(tree: Workspace, engine: Engine) -> None:
    assert files(paths.scan_path(tree, engine)) == sorted(SOURCES)
    assert files(paths.scan_path(tree, engine, paths.PathScan(default_excludes=False))) == sorted(SOURCES + OTHERS)


def test_a_path_named_explicitly_is_scanned(tree: Workspace, engine: Engine) -> None:
    assert files(paths.scan_path(tree, engine, paths=["vendor", "static/app.min.js"])) == [
        "static/app.min.js", "vendor/jquery/jquery.js"]


def test_sgconfig_switches_them_off(tree: Workspace, engine: Engine) -> None:
    cfg = tree.root / "sgconfig.yml"
    cfg.write_text(cfg.read_text() + "defaultExcludes: false\n")
    assert files(paths.scan_path(tree, engine)) == sorted(SOURCES + OTHERS)
    assert files(paths.scan_path(tree, engine, paths.PathScan(default_excludes=True))) == sorted(SOURCES)


def test_cli_flag_and_doctor(tree: Workspace, capsys: pytest.CaptureFixture[str],
                             monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tree.root)
    assert main(["scan", "--json", "--no-progress"]) == 1
    assert sorted(i["file"] for i in json.loads(capsys.readouterr().out)["issues"]) == sorted(SOURCES)
    assert main(["scan", "--json", "--no-progress", "--no-default-excludes"]) == 1
    assert sorted(i["file"] for i in json.loads(capsys.readouterr().out)["issues"]) == sorted(SOURCES + OTHERS)
    main(["doctor"])
    out = capsys.readouterr().out
    line = next(ln for ln in out.splitlines() if ln.startswith("not scanned"))
    assert all(name in line for name in DEFAULT_EXCLUDES) and "--no-default-excludes" in line
    main(["doctor", "--json"])
    assert json.loads(capsys.readouterr().out)["defaultExcludes"]["enabled"] is True


def test_scan_fix_leaves_excluded_folders_alone(tree: Workspace, capsys: pytest.CaptureFixture[str],
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    (tree.root / "rules/no-eval.yml").write_text(
        "id: no-eval\nlanguage: javascript\nseverity: error\nmessage: no eval\nrule:\n  pattern: eval($X)\n"
        "fix: safeEval($X)\n")
    monkeypatch.chdir(tree.root)
    # A rule that declares no fixSafety has unsafe fixes (issue 30): --unsafe-fixes applies them.
    main(["scan", "--fix", "--unsafe-fixes", "--no-progress"])
    capsys.readouterr()
    changed = sorted(p.relative_to(tree.root).as_posix() for p in Path(tree.root).rglob("*.js")
                     if "safeEval" in p.read_text())
    assert changed == sorted(SOURCES)


BACKTICKS = ("id: backticks\nlanguage: bash\nseverity: warning\nmessage: backticks\n"
             "rule:\n  kind: command_substitution\n  regex: '^`'\n")


def test_zsh_is_not_parsed_as_bash_unless_languageglobs_says_so(initialized: Workspace, engine: Engine) -> None:
    """ast-grep's bash grammar claims *.zsh; a zsh file misparses (issue 18: a rule fired in a `#` comment)."""
    root = initialized.root
    (root / "rules/backticks.yml").write_text(BACKTICKS)
    (root / "run.sh").write_text("x=`date`\n")
    (root / "prompt.zsh").write_text("setopt prompt_subst\nx=`date`\n")
    assert files(paths.scan_path(initialized, engine)) == ["run.sh"]
    # not a dependency
    assert files(paths.scan_path(initialized, engine, paths.PathScan(default_excludes=False))) == ["run.sh"]
    assert files(paths.scan_path(initialized, engine, paths=["prompt.zsh"])) == ["prompt.zsh"]  # named: scanned
    cfg = root / "sgconfig.yml"
    cfg.write_text(cfg.read_text() + "languageGlobs:\n  bash: ['*.zsh']\n")
    assert files(paths.scan_path(initialized, engine)) == ["prompt.zsh", "run.sh"]


def test_cgi_scripts_are_not_parsed_as_bash_unless_languageglobs_says_so(initialized: Workspace,
                                                                          engine: Engine) -> None:
    """`.cgi` is claimed by ast-grep's bash grammar, but git's gitweb.cgi is Perl (issue 18's precision sample)."""
    root = initialized.root
    (root / "rules/backticks.yml").write_text(BACKTICKS)
    (root / "run.sh").write_text("x=`date`\n")
    (root / "gitweb.cgi").write_text("#!/usr/bin/perl\nmy $version = `git --version`;\n")
    assert files(paths.scan_path(initialized, engine)) == ["run.sh"]
    assert files(paths.scan_path(initialized, engine, paths=["gitweb.cgi"])) == ["gitweb.cgi"]  # named: scanned
    cfg = root / "sgconfig.yml"
    cfg.write_text(cfg.read_text() + "languageGlobs:\n  bash: ['*.cgi']\n")
    assert files(paths.scan_path(initialized, engine)) == ["gitweb.cgi", "run.sh"]
