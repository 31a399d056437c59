"""A newcomer's first minutes: a fresh venv, `pip install .`, `sgtools init`, a plain `ast-grep scan`."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent

pytestmark = pytest.mark.slow  # builds a wheel and installs it into a fresh virtualenv


@pytest.fixture(scope="module")
def fresh_venv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    venv = tmp_path_factory.mktemp("venv")
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=120)
    # Dependencies come from the registry as for any user; our own package from this checkout (not editable).
    proc = subprocess.run([str(venv / "bin" / "pip"), "install", "-q", str(REPO)], capture_output=True, text=True,
                          timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return venv


def _env(venv: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SGTOOLS_", "VIRTUAL_ENV", "PYTHON"))}
    env["PATH"] = f"{venv / 'bin'}:/usr/bin:/bin"
    return env


def test_init_in_an_empty_directory(fresh_venv: Path, tmp_path: Path) -> None:
    env = _env(fresh_venv)
    project = tmp_path / "empty"
    project.mkdir()
    first = subprocess.run(["sgtools", "init"], cwd=project, env=env, capture_output=True, text=True, timeout=60)
    assert first.returncode == 0, first.stderr
    config = (project / "sgconfig.yml").read_bytes()
    assert config == b"ruleDirs:\n- rules\nutilDirs:\n- utils\ntestConfigs:\n- testDir: rule-tests\n"
    plain = subprocess.run(["ast-grep", "scan"], cwd=project, env=env, capture_output=True, text=True, timeout=60)
    assert plain.returncode == 0, plain.stderr
    stamp = {p: p.stat().st_mtime_ns for p in project.rglob("*")}
    second = subprocess.run(["sgtools", "init"], cwd=project, env=env, capture_output=True, text=True, timeout=60)
    assert second.returncode == 0
    assert (project / "sgconfig.yml").read_bytes() == config
    assert {p: p.stat().st_mtime_ns for p in project.rglob("*")} == stamp


def test_installed_package_ships_the_bundled_index(fresh_venv: Path, tmp_path: Path) -> None:
    code = ("from sgtools.core.bundled import bundled_dir; d = bundled_dir(); "
            "print(d); print(sum(1 for _ in (d / 'rules').rglob('*.yml')))")
    out = subprocess.run([str(fresh_venv / "bin" / "python"), "-c", code], env=_env(fresh_venv), cwd=tmp_path,
                         capture_output=True, text=True, timeout=60, check=True).stdout.split()
    assert out[0].endswith("sgtools/community_data")
    source_count = sum(1 for _ in (REPO / "community_index" / "rules").rglob("*.yml"))
    assert int(out[1]) == source_count


def test_installed_package_ships_its_data_files(fresh_venv: Path, tmp_path: Path) -> None:
    """Every JSON schema and guide beside the modules in the source tree must be in the wheel too."""
    expected = sorted(p.relative_to(REPO).as_posix() for ext in ("*.json", "*.md")
                      for p in (REPO / "sgtools").rglob(ext) if "__pycache__" not in p.parts)
    code = ("import sgtools, pathlib; root = pathlib.Path(sgtools.__file__).parent.parent; "
            "print('\\n'.join(sorted(p.relative_to(root).as_posix() for ext in ('*.json', '*.md') "
            "for p in (root / 'sgtools').rglob(ext) if 'community_data' not in p.parts)))")
    out = subprocess.run([str(fresh_venv / "bin" / "python"), "-c", code], env=_env(fresh_venv), cwd=tmp_path,
                         capture_output=True, text=True, timeout=60, check=True).stdout.split()
    assert expected and out == expected


def test_doctor_in_the_fresh_install(fresh_venv: Path, tmp_path: Path) -> None:
    proc = subprocess.run(["sgtools", "doctor"], cwd=tmp_path, env=_env(fresh_venv), capture_output=True, text=True,
                          timeout=60)
    assert "ast-grep       0.51" in proc.stdout
