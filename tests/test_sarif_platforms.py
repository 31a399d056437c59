"""SARIF for code-scanning platforms, from a real scan with the bundled rules: valid against the SARIF 2.1.0
JSON schema (tests/data, from a registry package), every security rule tagged with its CWE and carrying a
security-severity, and fingerprints that survive lines moving."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from sgtools.cli import main
from sgtools.present import sarif_props

SCHEMA = json.loads((Path(__file__).parent / "data" / "sarif-2.1.0-rtm.5.schema.json").read_text(encoding="utf-8"))
CODE = {
    "app.py": "import yaml\ncfg = yaml.load(s)\nif x == None:\n    eval(expr)\n",
    "web.js": "el.innerHTML = name;\nif (a == b) { go(); }\n",
}


def scan_sarif(root: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    monkeypatch.chdir(root)
    assert main(["scan", "--format", "sarif", "--no-progress"]) in (0, 1)
    data: dict[str, Any] = json.loads(capsys.readouterr().out)
    return data


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    for name, text in CODE.items():
        (root / name).write_text(text)
    return root


def test_sarif_of_a_real_scan_validates_against_the_2_1_0_schema(tree: Path, capsys: pytest.CaptureFixture[str],
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    data = scan_sarif(tree, capsys, monkeypatch)
    validator = jsonschema.Draft4Validator(SCHEMA)
    errors = [f"{'/'.join(map(str, e.path))}: {e.message}" for e in validator.iter_errors(data)]
    assert errors == []
    assert len(data["runs"][0]["results"]) >= 4
    broken = json.loads(json.dumps(data))
    broken["runs"][0]["results"][0]["level"] = "fatal"  # the schema catches what a platform would refuse
    assert not validator.is_valid(broken)


def test_every_bundled_security_rule_has_cwe_tags_and_a_security_severity(
        tree: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    rules = scan_sarif(tree, capsys, monkeypatch)["runs"][0]["tool"]["driver"]["rules"]
    assert len(rules) >= 100
    security = [r for r in rules if "security" in r["properties"]["tags"]]
    assert len(security) >= 50
    for r in security:
        props = r["properties"]
        assert any(t.startswith("external/cwe/cwe-") for t in props["tags"]), r["id"]
        assert 0.0 < float(props["security-severity"]) <= 10.0, r["id"]
    for r in rules:
        assert r["properties"]["precision"] in sarif_props.PRECISIONS
        assert r["properties"]["tags"][0] in {"security", "correctness", "performance", "api-hygiene"}, r["id"]
        if "security" not in r["properties"]["tags"]:
            assert "security-severity" not in r["properties"]
    yaml_rule = next(r for r in rules if r["id"] == "yaml-unsafe-load-python")
    assert yaml_rule["properties"]["tags"] == ["security", "external/cwe/cwe-502"]
    assert yaml_rule["properties"]["security-severity"] == "8.0"  # an error-severity security rule: high


def test_fingerprints_survive_lines_moving(tree: Path, capsys: pytest.CaptureFixture[str],
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    def prints() -> dict[str, str]:
        results = scan_sarif(tree, capsys, monkeypatch)["runs"][0]["results"]
        return {r["ruleId"]: r["partialFingerprints"]["sgtools/v1"] for r in results}

    before = prints()
    (tree / "app.py").write_text("# a header\n\n" + CODE["app.py"])
    after = prints()
    assert before == after and len(set(before.values())) == len(before)


@pytest.mark.parametrize(("meta", "severity", "expected"), [
    ({"tags": ["correctness", "cwe-597"]}, "warning",
     {"tags": ["correctness", "security", "external/cwe/cwe-597"], "precision": "medium",
      "security-severity": "5.5"}),
    ({"tags": "security, xss", "cwe": "CWE-79", "securitySeverity": 9.3, "precision": "High"}, "error",
     {"tags": ["security", "external/cwe/cwe-79"], "precision": "high", "security-severity": "9.3"}),
    ({"tags": ["style"]}, "hint", {"tags": ["style"], "precision": "medium"}),
    ({}, "info", {"tags": [], "precision": "medium"}),
])
def test_properties_from_metadata(meta: dict[str, Any], severity: str, expected: dict[str, Any]) -> None:
    assert sarif_props.properties({"id": "r", "severity": severity, "metadata": meta}) == expected
