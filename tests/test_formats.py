"""The scan renderers on hand-built SPEC diagnostics: text, json, sarif, github."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from sgtools.present import github, json_format, sarif, text
from sgtools.present.report import Report
from sgtools.scan.baseline import with_fingerprints


def diag(**over: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "ruleId": "no-eval", "severity": "error", "message": "avoid eval of expr", "note": None, "url": None,
        "file": "src/calc.py", "line": 2, "column": 7, "endLine": 2, "endColumn": 17,
        "byteStart": 16, "byteEnd": 26, "text": "eval(expr)", "labels": [], "fixits": [],
    }
    base.update(over)
    return base


FIX = {"title": "Replace with ast.literal_eval(expr)", "kind": "fix", "confidence": 0.95, "verified": True,
       "safety": "safe", "edits": [{"file": "src/calc.py", "line": 2, "column": 7, "endLine": 2, "endColumn": 17,
                                    "byteStart": 16, "byteEnd": 26, "newText": "ast.literal_eval(expr)"}]}


@pytest.fixture
def root(tmp_path: Path) -> Path:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "calc.py").write_text("import os\nval = eval(expr)\n\tprint(value)\n", encoding="utf-8")
    (tmp_path / "src" / "b.js").write_text("debugger;\n", encoding="utf-8")
    return tmp_path


def sample(root: Path, **over: Any) -> Report:
    diags = with_fingerprints([
        diag(note="Use ast.literal_eval for literals.", url="https://example.org/no-eval", fixits=[FIX]),
        diag(ruleId="no-print", severity="hint", message="print, call", file="src/calc.py", line=3, column=2,
             endLine=3, endColumn=14, byteStart=28, byteEnd=40, text="print(value)"),
        diag(ruleId="no-debugger", severity="warning", message="remove debugger", file="src/b.js", line=1, column=1,
             endLine=1, endColumn=10, byteStart=0, byteEnd=9, text="debugger;"),
        diag(ruleId="info-rule", severity="info", message="50% done\r\nnext: a,b", file="src/b.js", line=1,
             column=1, endLine=1, endColumn=9, byteStart=0, byteEnd=8, text="debugger"),
    ])
    counts = {"error": 1, "warning": 1, "info": 1, "hint": 1}
    fields: dict[str, Any] = {"diagnostics": diags, "counts": counts, "root": root, "tool_version": "9.9.9"}
    fields.update(over)
    return Report(**fields)


# ---- text ------------------------------------------------------------------------------------------


def test_text_groups_by_file_with_source_line_and_carets(root: Path) -> None:
    out = text.render(sample(root))
    lines = out.splitlines()
    assert lines[0] == "src/calc.py"
    assert "src/b.js" in lines
    assert lines.index("src/b.js") > lines.index("src/calc.py")
    assert "error" in lines[1] and "avoid eval of expr" in lines[1] and "[no-eval]" in lines[1]
    assert lines[2] == "  2 | val = eval(expr)"
    assert lines[3] == "    |       ^^^^^^^^^^"
    # a tab before the match is kept in the underline so the carets line up in any tab width
    tab_line = lines.index("  3 | \tprint(value)")
    assert lines[tab_line + 1] == "    | \t^^^^^^^^^^^^"
    assert "note: Use ast.literal_eval for literals." in out
    # the fix says what it claims: its safety and confidence
    assert "fix: Replace with ast.literal_eval(expr) (safe, confidence 0.95) [sgtools scan --fix]" in out
    assert "\033[" not in out
    assert lines[-1] == "✖ 4 problems (1 error, 1 warning, 1 info, 1 hint) in 2 files"


@pytest.mark.parametrize(("change", "hint"), [
    ({"safety": "unsafe"}, "[sgtools scan --fix --unsafe-fixes (unsafe: may change behaviour)]"),
    ({"safety": None}, "[sgtools scan --fix --unsafe-fixes (unsafe: may change behaviour)]"),
    ({"verified": False, "verification": {"checked": True}}, "[failed verification: not applied by --fix"),
])
def test_text_says_how_a_fix_would_be_applied(root: Path, change: dict[str, Any], hint: str) -> None:
    fix = {**FIX, **change}
    report = Report(diagnostics=[diag(fixits=[fix])], counts={"error": 1}, root=root)
    assert hint in text.render(report)


def test_text_colour_only_when_asked(root: Path) -> None:
    out = text.render(sample(root, color=True))
    assert "\033[1;31m" in out and "\033[0m" in out


def test_text_clean_summary_baseline_truncation_and_fixes(root: Path) -> None:
    rep = sample(root, diagnostics=[], counts=dict.fromkeys(("error", "warning", "info", "hint"), 0),
                 baselined=[diag()], baseline_file="base.json",
                 fixes={"fixesApplied": 2, "changedFiles": ["a.py"]})
    out = text.render(rep)
    assert "✔ no problems found" in out
    assert "Applied 2 fixes in 1 file." in out
    assert "1 known finding from the baseline in base.json not shown." in out


def test_text_truncated_summary_counts_every_finding(root: Path) -> None:
    rep = sample(root)
    rep = rep._replace(diagnostics=rep.diagnostics[:1], truncated=True)
    out = text.render(rep)
    assert "✖ 4 problems (1 error, 1 warning, 1 info, 1 hint)\n" in out
    assert "Only the first 1 are shown: raise --max-results" in out


def test_text_multiline_match_and_missing_file(root: Path) -> None:
    d = diag(line=2, endLine=3, endColumn=5)
    lines = text.render_diagnostics([d, diag(file="gone.py")], root)
    assert lines[3] == "    |       ^^^^^^^^^^…"
    assert lines[-1].strip().startswith("2:7")  # no excerpt for a file that cannot be read


# ---- json ------------------------------------------------------------------------------------------


def test_json_has_issues_counts_and_rule_errors(root: Path) -> None:
    errors = [{"path": "rules/bad.yml", "ruleId": None, "message": "rejected"}]
    data = json.loads(json_format.render(sample(root, rule_errors=errors, baselined=[diag()])))
    assert data["counts"] == {"error": 1, "warning": 1, "info": 1, "hint": 1}
    assert [d["ruleId"] for d in data["issues"]] == ["no-eval", "no-print", "no-debugger", "info-rule"]
    assert data["ruleErrors"] == errors
    assert data["baselined"] == 1
    assert data["success"] is False
    assert len(data["issues"][0]["fingerprint"]) == 32


# ---- github ----------------------------------------------------------------------------------------


def test_github_every_severity_with_positions(root: Path) -> None:
    lines = github.render(sample(root)).splitlines()
    assert lines[0].startswith("::error file=src/calc.py,line=2,col=7,endLine=2,endColumn=17,title=no-eval::")
    assert lines[0].endswith("avoid eval of expr%0A%0AUse ast.literal_eval for literals.%0Ahttps://example.org/no-eval"
                             "%0AFix (safe, confidence 0.95): Replace with ast.literal_eval(expr)")
    assert lines[1].startswith("::notice ") and "title=no-print::print, call" in lines[1]
    assert lines[2].startswith("::warning ")
    assert lines[3] == ("::notice file=src/b.js,line=1,col=1,endLine=1,endColumn=9,title=info-rule::"
                        "50%25 done%0D%0Anext: a,b")


def test_github_escapes_property_values() -> None:
    line = github.command("error", "a:b", file="dir,x/a:b.py", title="r%1")
    assert line == "::error file=dir%2Cx/a%3Ab.py,title=r%251::a:b"


def test_github_reports_rule_errors(root: Path) -> None:
    out = github.render(sample(root, diagnostics=[], rule_errors=[{"path": "rules/x.yml", "message": "bad"}]))
    assert out.startswith("::error file=rules/x.yml,title=sgtools%3A rule rules/x.yml not loaded::bad")


# ---- sarif -----------------------------------------------------------------------------------------

# A minimal SARIF 2.1.0 schema, written for these tests (not downloaded): what code-scanning uploads need.
SARIF_SCHEMA: dict[str, Any] = json.loads(
    (Path(__file__).parent / "data" / "sarif-2.1.0-minimal.schema.json").read_text(encoding="utf-8"))


def test_sarif_structure_validates(root: Path) -> None:
    rules = [{"id": "no-eval", "severity": "error", "message": "avoid eval", "note": "Use literal_eval.",
              "url": "https://example.org/no-eval", "language": "python"},
             {"id": "quiet", "severity": "warning", "message": "no findings", "note": None, "url": None}]
    data = json.loads(sarif.render(sample(root, rules=rules)))
    jsonschema.validate(data, SARIF_SCHEMA)
    broken = json.loads(json.dumps(data))
    del broken["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"]["startLine"]
    with pytest.raises(jsonschema.ValidationError):  # the schema is strict enough to catch a lost position
        jsonschema.validate(broken, SARIF_SCHEMA)
    run = data["runs"][0]
    driver = run["tool"]["driver"]
    assert driver["name"] == "sgtools" and driver["version"] == "9.9.9"
    ids = [r["id"] for r in driver["rules"]]
    assert ids == sorted(ids) and {"no-eval", "quiet", "no-print", "no-debugger", "info-rule"} == set(ids)
    by_id = {r["id"]: r for r in driver["rules"]}
    assert by_id["no-eval"]["helpUri"] == "https://example.org/no-eval"
    assert by_id["no-eval"]["help"]["text"] == "Use literal_eval."
    assert by_id["quiet"]["defaultConfiguration"]["level"] == "warning"
    assert run["columnKind"] == "unicodeCodePoints"
    levels = {r["ruleId"]: r["level"] for r in run["results"]}
    assert levels == {"no-eval": "error", "no-debugger": "warning", "info-rule": "note", "no-print": "note"}
    for r in run["results"]:
        assert driver["rules"][r["ruleIndex"]]["id"] == r["ruleId"]
    first = run["results"][0]
    region = first["locations"][0]["physicalLocation"]["region"]
    assert (region["startLine"], region["startColumn"], region["endLine"], region["endColumn"]) == (2, 7, 2, 17)
    assert first["locations"][0]["physicalLocation"]["artifactLocation"] == {"uri": "src/calc.py",
                                                                             "uriBaseId": "%SRCROOT%"}
    assert len(first["partialFingerprints"]["sgtools/v1"]) == 32
    fix = first["fixes"][0]
    rep = fix["artifactChanges"][0]["replacements"][0]
    assert rep["insertedContent"]["text"] == "ast.literal_eval(expr)"
    assert rep["deletedRegion"]["startColumn"] == 7
    assert "suppressions" not in first


def test_sarif_baselined_results_are_suppressed(root: Path) -> None:
    rep = sample(root)
    rep = rep._replace(baselined=[rep.diagnostics.pop(0)], baseline_file="sgtools-baseline.json")
    data = sarif.to_dict(rep)
    results = data["runs"][0]["results"]
    suppressed = [r for r in results if r.get("suppressions")]
    assert [r["ruleId"] for r in suppressed] == ["no-eval"]
    assert suppressed[0]["suppressions"][0]["kind"] == "external"
    assert len(results) == 4


def test_sarif_rule_errors_are_notifications_and_paths_are_uris(root: Path) -> None:
    rep = sample(root, diagnostics=[diag(file="my dir/a b.py")], rule_errors=[{"path": "rules/x.yml",
                                                                                "message": "bad"}])
    data = sarif.to_dict(rep)
    inv = data["runs"][0]["invocations"][0]
    assert inv["executionSuccessful"] is False
    assert inv["toolConfigurationNotifications"][0]["message"]["text"] == "bad"
    loc = data["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]
    assert loc["uri"] == "my%20dir/a%20b.py"


def test_text_points_bundled_fixes_at_an_import_first() -> None:
    diag = {"ruleId": "no-eval-python", "severity": "warning", "message": "m", "file": "a.py", "line": 1,
            "column": 1, "endLine": 1, "endColumn": 5, "byteStart": 0, "byteEnd": 4, "text": "eval",
            "labels": [], "fixits": [{"title": "Replace", "kind": "fix", "verified": True, "confidence": 0.9,
                                      "safety": "safe", "edits": []}]}
    own = "\n".join(text.render_diagnostics([diag], Path("/nonexistent")))
    bundled = "\n".join(text.render_diagnostics([diag], Path("/nonexistent"), fixable=False))
    assert "[sgtools scan --fix]" in own
    assert "sgtools init, sgtools community import no-eval-python, then sgtools scan --fix" in bundled


@pytest.mark.parametrize(("low", "high", "hinted"), [(10, 1, True), (10, 10, True), (9, 1, False), (10, 11, False),
                                                     (12, 0, False)])
def test_text_summary_says_how_to_hide_a_long_tail_of_info(root: Path, low: int, high: int, hinted: bool) -> None:
    diags = ([diag(severity="info", line=2) for _ in range(low - 1)] + [diag(severity="hint", line=2)]
             + [diag(severity="warning", line=2) for _ in range(high)])
    report = Report(diagnostics=diags, counts={"info": low - 1, "hint": 1, "warning": high}, root=root)
    lines = text.summary(report)
    expected = f"{low} of these are info or hints: --min-severity warning lists only the {high} at warning and above."
    assert (expected in lines) is hinted, lines
