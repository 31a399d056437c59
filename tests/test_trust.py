"""Native parser libraries load only once the user trusts them (engine/trust.py, `sgtools trust`).

The library under test is real: compiled here with the system C compiler, its constructor writes a marker file
the moment anything dlopens it. So "not loaded" is observed, not inferred.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from sgtools.engine import trust

NATIVE = Path(__file__).resolve().parent / "data" / "native"
CC = shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
needs_cc = pytest.mark.skipif(CC is None, reason="no C compiler (cc/gcc/clang) to build the test library")

CONFIG = """ruleDirs: [rules]
testConfigs:
  - testDir: rule-tests
customLanguages:
  marker:
    libraryPath: lib/marker.so
    extensions: [mk]
"""
RULE = "id: no-x\nlanguage: marker\nseverity: error\nmessage: no x\nrule: {pattern: x}\n"


def build_library(out: Path, extra: str = "") -> None:
    src = out.with_suffix(".c")
    src.write_text((NATIVE / "marker.c").read_text() + extra)
    subprocess.run([CC, "-shared", "-fPIC", "-o", str(out), str(src)], check=True, capture_output=True)  # type: ignore[list-item]


@pytest.fixture
def native_project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    root = tmp_path / "proj"
    (root / "rules").mkdir(parents=True)
    (root / "rule-tests").mkdir()
    (root / "lib").mkdir()
    (root / "sgconfig.yml").write_text(CONFIG)
    (root / "rules" / "no-x.yml").write_text(RULE)
    (root / "a.mk").write_text("x\n")
    (root / "a.py").write_text("print(1)\n")
    build_library(root / "lib" / "marker.so")
    marker = tmp_path / "loaded.txt"
    monkeypatch.setenv("SGTOOLS_TEST_MARKER", str(marker))
    monkeypatch.delenv(trust.MODE_ENV, raising=False)
    return root, marker


def sgtools(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != trust.MODE_ENV}
    return subprocess.run([sys.executable, "-m", "sgtools", *args, "--root", str(root)], capture_output=True,
                          text=True, env=env, timeout=60)


UNTRUSTED_COMMANDS = [
    ("scan",), ("scan", "--format", "json"), ("scan", "a.mk"), ("doctor",), ("doctor", "--json"),
    ("rule", "list"), ("rule", "list", "--json"), ("explain", "no-x"),
]


@pytest.mark.slow
@needs_cc
def test_no_command_loads_an_untrusted_library_and_each_says_how_to_trust(native_project: tuple[Path, Path]) -> None:
    root, marker = native_project
    for args in UNTRUSTED_COMMANDS:
        done = sgtools(root, *args)
        assert not marker.exists(), f"`sgtools {' '.join(args)}` loaded the untrusted library"
        assert "Traceback" not in done.stderr, done.stderr
    scan = sgtools(root, "scan")
    assert scan.returncode == 2 and "sgtools trust" in scan.stderr and "not trusted" in scan.stderr
    doctor = sgtools(root, "doctor")
    assert doctor.returncode == 2 and "NOT loaded (untrusted" in doctor.stdout


@pytest.mark.slow
@needs_cc
def test_trust_loads_then_a_changed_library_is_refused_again(native_project: tuple[Path, Path]) -> None:
    root, marker = native_project
    done = sgtools(root, "trust")
    assert done.returncode == 0 and "trusted" in done.stdout, done
    assert not marker.exists(), "trusting must not load the library"
    sgtools(root, "scan")
    assert marker.exists(), "a trusted library is loaded by the scan"
    marker.unlink()
    build_library(root / "lib" / "marker.so", extra="\nint sgtools_changed = 1;\n")
    again = sgtools(root, "scan")
    assert not marker.exists(), "a library changed after it was trusted must not load"
    assert again.returncode == 2 and "changed since it was trusted" in again.stderr
    assert "changed" in sgtools(root, "doctor").stdout
    sgtools(root, "trust")
    assert sgtools(root, "trust", "--revoke").returncode == 0
    sgtools(root, "scan")
    assert not marker.exists(), "a revoked library must not load"


@needs_cc
def test_a_new_library_in_the_config_is_untrusted(native_project: tuple[Path, Path]) -> None:
    root, marker = native_project
    sgtools(root, "trust")
    build_library(root / "lib" / "other.so")
    (root / "sgconfig.yml").write_text(CONFIG + "  other:\n    libraryPath: lib/other.so\n    extensions: [ot]\n")
    sgtools(root, "scan")
    assert not marker.exists()
    assert {s["language"]: s["state"] for s in trust.status(root / "sgconfig.yml")} == \
        {"marker": "trusted", "other": "untrusted"}


def test_flag_for_each_mode(tmp_path: Path) -> None:
    cfg = tmp_path / "sgconfig.yml"
    cfg.write_text("ruleDirs: [rules]\n")
    assert trust.flag(os.devnull, "allow") == []
    assert trust.flag(cfg, "auto") == ["--custom-languages", "ignore"]
    assert trust.flag(cfg, "allow") == ["--custom-languages", "allow"]
    assert trust.flag(cfg, "ignore") == ["--custom-languages", "ignore"]


def test_the_warm_engines_flag_without_reading_the_config_is_flags_answer(tmp_path: Path) -> None:
    """scan/warmscan.py takes the flag of a config it parsed and found without `customLanguages` from
    `flag_without_libraries` (no read of the file per call): the same answer as `flag` in every mode."""
    for text in ("ruleDirs: [rules]\n", "ruleDirs: [rules]\ncustomLanguages: {}\n"):
        cfg = tmp_path / "sgconfig.yml"
        cfg.write_text(text)
        modes: tuple[trust.Mode, ...] = ("auto", "allow", "ignore")
        for mode in modes:
            assert trust.flag_without_libraries(mode) == trust.flag(cfg, mode), (text, mode)


def test_a_bad_mode_is_bad_input(monkeypatch: pytest.MonkeyPatch) -> None:
    from sgtools.core.errors import BadInput

    monkeypatch.setenv(trust.MODE_ENV, "yes")
    with pytest.raises(BadInput, match="SGTOOLS_CUSTOM_LANGUAGES"):
        trust.mode_from_env()


def test_a_library_missing_on_disk_is_never_trusted(tmp_path: Path) -> None:
    cfg = tmp_path / "sgconfig.yml"
    cfg.write_text(CONFIG)
    assert trust.trust(cfg)[0]["state"] == "missing"
    assert not trust.is_trusted(cfg)
