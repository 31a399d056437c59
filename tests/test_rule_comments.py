"""Rules meant for code never match comments (issue 18): every bundled rule's invalid cases, commented out with
their language's line comment, give no finding. A rule about comments themselves (`kind: comment`) is exempt."""

from __future__ import annotations

from pathlib import Path

import pytest

from sgtools.core import yamlio
from sgtools.core.bundled import bundled_dir
from sgtools.core.languages import LANGUAGES, line_comment
from sgtools.engine.process import Engine
from sgtools.project.config import load_config
from sgtools.project.workspace import Workspace
from sgtools.scan.rulefiles import cached_ruleset, rule_file

ROOT = bundled_dir()


def _commented(code: str, prefix: str) -> str:
    return "".join(f"{prefix} {line}\n" if line.strip() else "\n" for line in code.splitlines())


@pytest.mark.slow  # one scan, but loading and writing ~300 cases takes several seconds on a busy machine
def test_no_bundled_rule_matches_its_invalid_cases_commented_out(engine: Engine, tmp_path: Path) -> None:
    cfg = load_config(Workspace(ROOT))
    rules = [r for r in cached_ruleset(Workspace(ROOT), cfg, engine).rules
             if r.enabled and "kind: comment" not in (ROOT / "rules" / r.language / f"{r.id}.yml").read_text()]
    written = 0
    for rule in rules:
        prefix = line_comment(rule.language)
        assert prefix, f"{rule.id}: no line comment known for {rule.language}"
        ext = LANGUAGES[rule.language][1][0] if rule.language != "bash" else "sh"
        tests = yamlio.load_one((ROOT / "rule-tests" / f"{rule.id}-test.yml").read_bytes())
        for n, code in enumerate(tests.get("invalid") or []):
            (tmp_path / f"{rule.id}.{n}.{ext}").write_text(_commented(str(code), prefix), encoding="utf-8")
            written += 1
    assert written > 2 * len(rules) > 200
    found = engine.scan(config=cfg.path, cwd=tmp_path, rule_file=rule_file(rules, keep_globs=False), paths=["."])
    hits = sorted({f"{f['ruleId']} in {f['file']}:{f['range']['start']['line'] + 1}: {f['lines'].strip()}"
                   for f in found})
    assert not hits, "rules that match commented-out code:\n" + "\n".join(hits)
