"""The engine boundary, against the real ast-grep binary."""

from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
import time
from pathlib import Path

import pytest

from sgtools.core.errors import EngineFailed, Timeout, TooLarge
from sgtools.core.settings import SUPPORTED_AST_GREP, get_settings
from sgtools.engine.process import NO_CONFIG, Engine, find_binary, parse_version
from sgtools.engine.testreport import parse_test_output

RULE = "id: no-eval\nlanguage: python\nseverity: error\nmessage: eval of $X\nrule: {pattern: eval($X)}\n"


def _rule(tmp_path: Path, text: str = RULE, name: str = "rule.yml") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def _fake_binary(tmp_path: Path, body: str) -> Path:
    """A stand-in executable, for faults the real binary cannot be made to show (a wrong version)."""
    path = tmp_path / "fake-ast-grep"
    path.write_text("#!/bin/sh\n" + body + "\n")
    path.chmod(0o755)
    return path


def test_finds_the_wheel_binary_beside_the_interpreter() -> None:
    binary = find_binary({})
    assert binary.name == "ast-grep"
    assert binary.parent in {Path(sys.executable).parent, Path(sysconfig.get_path("scripts"))}
    assert binary.name != "sg"


def test_real_version_is_supported(engine: Engine) -> None:
    text = engine.check_version()
    assert parse_version(text)[:2] == SUPPORTED_AST_GREP


def test_unsupported_version_is_refused_with_next_step(tmp_path: Path) -> None:
    fake = _fake_binary(tmp_path, 'echo "ast-grep 0.38.2"')
    with pytest.raises(EngineFailed) as info:
        Engine(binary=fake).check_version()
    assert "0.38.2" in info.value.message and "pip install" in info.value.message


def test_binary_that_is_not_ast_grep_is_refused(tmp_path: Path) -> None:
    fake = _fake_binary(tmp_path, 'echo "sg: a system tool"; exit 1')
    with pytest.raises(EngineFailed, match="does not look like ast-grep"):
        Engine(binary=fake).version()


def test_bad_override_is_a_clear_error(tmp_path: Path) -> None:
    not_executable = tmp_path / "ast-grep"
    not_executable.write_text("plain text")
    not_executable.chmod(0o644)
    for value in (str(tmp_path / "missing"), str(not_executable), str(tmp_path)):
        with pytest.raises(EngineFailed, match="SGTOOLS_AST_GREP"):
            find_binary({"SGTOOLS_AST_GREP": value})


def test_bad_override_from_the_cli_is_not_a_traceback(tmp_path: Path) -> None:
    env = dict(os.environ, SGTOOLS_AST_GREP=str(tmp_path / "missing"))
    proc = subprocess.run([sys.executable, "-m", "sgtools", "doctor", "--root", str(tmp_path)],
                          capture_output=True, text=True, env=env, timeout=60)
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr + proc.stdout
    assert "SGTOOLS_AST_GREP" in proc.stdout + proc.stderr


def test_scan_stdin_parses_stream(engine: Engine, tmp_path: Path) -> None:
    matches = engine.scan(config=NO_CONFIG, cwd=tmp_path, rule_file=_rule(tmp_path), stdin=b"x = eval(a)\n")
    assert len(matches) == 1
    assert matches[0]["ruleId"] == "no-eval" and matches[0]["message"] == "eval of a"


def test_no_findings_is_an_empty_list(engine: Engine, tmp_path: Path) -> None:
    assert engine.scan(config=NO_CONFIG, cwd=tmp_path, rule_file=_rule(tmp_path), stdin=b"x = 1\n") == []


def test_error_findings_are_not_a_failure(engine: Engine, tmp_path: Path) -> None:
    """ast-grep exits 1 when error-severity findings exist; that is a result, not a failure."""
    src = tmp_path / "a.py"
    src.write_text("eval(1)\n")
    matches = engine.scan(config=NO_CONFIG, cwd=tmp_path, rule_file=_rule(tmp_path), paths=["a.py"])
    assert [m["severity"] for m in matches] == ["error"]


def test_invalid_rule_maps_to_engine_error_with_cause(engine: Engine, tmp_path: Path) -> None:
    bad = _rule(tmp_path, "id: bad\nlanguage: python\nrule: {pattern: 'a +'}\n")
    with pytest.raises(EngineFailed) as info:
        engine.scan(config=NO_CONFIG, cwd=tmp_path, rule_file=bad, stdin=b"")
    assert info.value.details["exitCode"] == 8
    assert "kind" in info.value.message  # "Rule must specify a set of AST kinds to match"


def test_missing_path_is_an_error_even_though_ast_grep_exits_0(engine: Engine, tmp_path: Path) -> None:
    with pytest.raises(EngineFailed, match="nope"):
        engine.scan(config=NO_CONFIG, cwd=tmp_path, rule_file=_rule(tmp_path), paths=["nope"])


def test_broken_parent_config_does_not_affect_a_call(engine: Engine, tmp_path: Path) -> None:
    (tmp_path / "sgconfig.yml").write_text("ruleDirs: [\n  this is: broken\n")
    child = tmp_path / "child"
    child.mkdir()
    rule = _rule(child)
    assert len(engine.scan(config=NO_CONFIG, cwd=child, rule_file=rule, stdin=b"eval(x)\n")) == 1
    tree, _ = engine.dump_tree("eval(x)", "python", "ast", cwd=child)
    assert "call" in tree


def test_hanging_process_is_killed_at_the_timeout(tmp_path: Path) -> None:
    """A fake binary that never answers: a hang the real binary does not produce on demand."""
    marker = tmp_path / "still-running"
    fake = _fake_binary(tmp_path, f'sleep 30; touch "{marker}"')
    engine = Engine(binary=fake, settings=get_settings().replace(engine_timeout=0.5))
    start = time.monotonic()
    with pytest.raises(Timeout, match="SGTOOLS_ENGINE_TIMEOUT"):
        engine.run(["scan"], cwd=tmp_path)
    assert time.monotonic() - start < 20  # a hang guard: the fake sleeps 30 s
    time.sleep(0.2)
    assert not marker.exists()
    # a scan of a tree runs under path_scan_timeout: its advice names that setting, not the snippet one
    engine = Engine(binary=fake, settings=get_settings().replace(path_scan_timeout=0.5))
    with pytest.raises(Timeout, match="SGTOOLS_PATH_SCAN_TIMEOUT"):
        engine.run(["scan"], cwd=tmp_path, timeout=engine.settings.path_scan_timeout)


def test_real_scan_past_its_deadline_is_stopped(tmp_path: Path) -> None:
    big = tmp_path / "big.py"
    big.write_text("eval(x)\n" * 200_000)
    engine = Engine(settings=get_settings().replace(engine_timeout=0.01))
    with pytest.raises(Timeout):
        engine.scan(config=NO_CONFIG, cwd=tmp_path, rule_file=_rule(tmp_path), paths=["big.py"])


def test_oversized_output_is_capped_with_a_clear_error(tmp_path: Path) -> None:
    src = tmp_path / "many.py"
    src.write_text("eval(x)\n" * 2000)
    engine = Engine(settings=get_settings().replace(engine_max_output=10_000))
    with pytest.raises(TooLarge, match="SGTOOLS_ENGINE_MAX_OUTPUT"):
        engine.scan(config=NO_CONFIG, cwd=tmp_path, rule_file=_rule(tmp_path), paths=["many.py"])


def test_rule_tests_are_parsed(engine: Engine, tmp_path: Path) -> None:
    (tmp_path / "sgconfig.yml").write_text("ruleDirs: [rules]\ntestConfigs: [{testDir: tests}]\n")
    (tmp_path / "rules").mkdir()
    (tmp_path / "tests").mkdir()
    _rule(tmp_path / "rules", name="no-eval.yml")
    (tmp_path / "tests" / "no-eval-test.yml").write_text(
        "id: no-eval\nvalid: ['eval2(x)', 'eval(y)']\ninvalid: ['eval(z)', 'exec(w)']\n")
    report = engine.test(tmp_path / "sgconfig.yml", cwd=tmp_path)
    assert not report.passed
    kinds = sorted((f.kind, f.code) for f in report.failures)
    assert kinds == [("missing", "exec(w)"), ("noisy", "eval(y)")]
    assert report.statuses["no-eval"].count(".") == 2


def test_a_rule_with_many_cases_is_read_from_its_counted_status_line(tmp_path: Path) -> None:
    """Past about 40 cases `ast-grep test` prints `....Pass × 46, Noisy × 1....` instead of one character per case:
    the rule's status and its failure are still read (a rule with 41 cases was reported as not tested)."""
    (tmp_path / "rules").mkdir()
    (tmp_path / "tests").mkdir()
    _rule(tmp_path / "rules", name="no-eval.yml")
    (tmp_path / "sgconfig.yml").write_text("ruleDirs: [rules]\ntestConfigs:\n- testDir: tests\n")
    valid = "".join(f"  - x{i} = {i}\n" for i in range(45))
    cases = f"id: no-eval\nvalid:\n{valid}  - eval(q)\ninvalid:\n  - eval(a)\n"
    (tmp_path / "tests" / "no-eval-test.yml").write_text(cases)
    run = subprocess.run([str(find_binary({})), "test", "--skip-snapshot-tests"], cwd=tmp_path, capture_output=True,
                         text=True, check=False)
    assert "Pass ×" in run.stdout  # the counted form, as ast-grep 0.51 prints it
    report = parse_test_output(run.stdout, run.returncode == 0)
    assert not report.passed and report.statuses == {"no-eval": "." * 46 + "N"}
    assert [(f.kind, f.rule_id, f.code) for f in report.failures] == [("noisy", "no-eval", "eval(q)")]


def test_parse_test_output_reports_unknown_rule_ids() -> None:
    report = parse_test_output("Running 1 tests\nConfiguration not found! ghost\ntest result: ok. 0 passed;\n", True)
    assert report.not_found == ["ghost"] and report.passed
