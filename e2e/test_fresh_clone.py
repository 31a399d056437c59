"""A new user's first hour: clone the repository into an empty directory with nothing beside it (no ../shared),
run the README's two set-up commands as written, and check that they succeed, and that the main job fails loudly
when its install fails or its scan breaks (only `sgtools scan`'s exit 1, findings, is tolerated).

One clone serves the module, in order (its tests run on one worker under `-n 2`: ONE_WORKER_FILES in the root
conftest.py): the main job (`python3 -m venv .venv && .venv/bin/pip install . && { scan; ... }`), then what that
non-editable install ships (`sgtools init` in an empty directory, the bundled index, the data files, `sgtools
doctor`: a newcomer's first minutes, checked in the main job's own virtualenv rather than in a second one built the
same way), then the main job's scan with the engine broken and its install refused (the job after its venv, in the
same `.venv`), then the README's test command, which makes that `.venv` editable and so runs last. The clone holds
the working tree's changes committed on top of HEAD (as e2e/test_precommit.py's), so an uncommitted change to the
packaging is what the install checks see.

The test command is the README's verbatim with a smoke selection appended (SMOKE: the complexity check, which
needs radon from the test extra, the engine, the CLI's scan and one MCP session over stdio), not the whole suite
again: the suite itself is what the outer run is.
What the clone must show is that the install works and pytest, its plugins (`-n 2` needs pytest-xdist from the
test extra) and the tests' fixtures run there with nothing beside the clone. `SGTOOLS_IN_FRESH_CLONE=1` in its
environment makes this module skip there, so the clone does not clone itself again.
"""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path
from typing import NamedTuple

import pytest

from e2e.conftest import clone_with_changes

REPO = Path(__file__).resolve().parent.parent
NESTED_ENV = "SGTOOLS_IN_FRESH_CLONE"
# Hang guards, not budgets: a venv and `pip install .` with its dependencies, then a scan of ~2,200 files, take
# 1-4 minutes on a shared 2-core VM; the smoke selection about a minute.
SETUP_TIMEOUT = 1800
TEST_TIMEOUT = 1800
# Test ids only, each one test (no parametrized ids, no whole files except this module, which skips there): the
# clone's run must pass exactly as many as there are ids (a parametrized id would pass more, a missing one makes
# pytest exit 4), so no second pytest is needed to count the selection. What each proves in the clone:
# - radon from the test extra: the one architecture test that needs it (its other eight read the same source tree as
#   the outer run's);
# - the engine of the clone's install: the `ast-grep` wheel's binary beside the venv's interpreter, its version
#   supported;
# - the installed CLI: text and JSON output, the engine failure's exit 2, the bundled rules without sgconfig.yml,
#   no `mcp` import. Its exit-code table (11 cases), SARIF and the other 31 tests of e2e/test_cli_scan.py (shards,
#   fixes, baselines, git, terminals) exercise the same code as the outer run, not the clone's setup;
# - the MCP server over stdio: one story, not e2e/test_mcp_stdio.py's eleven servers;
# - this module, which skips in the clone (SGTOOLS_IN_FRESH_CLONE), so the clone does not clone itself again.
_CLI = "e2e/test_cli_scan.py::test_"
SMOKE = ["tests/test_architecture.py::test_no_function_is_over_complexity_20",
         "tests/test_engine.py::test_finds_the_wheel_binary_beside_the_interpreter",
         "tests/test_engine.py::test_real_version_is_supported",
         *(_CLI + name for name in ("text_format", "json_format", "engine_failure_exits_2",
                                    "without_sgconfig_the_bundled_rules_run", "scan_does_not_import_mcp")),
         "e2e/test_mcp_stdio.py::test_whole_story_over_stdio", "e2e/test_fresh_clone.py"]
SMOKE_SIZE = sum(1 for s in SMOKE if "::" in s)  # the tests that must pass there (this module's skip)

pytestmark = [
    pytest.mark.slow, pytest.mark.e2e,
    pytest.mark.skipif(os.environ.get(NESTED_ENV) == "1", reason="already inside the fresh-clone test run"),
]


def readme_commands() -> tuple[str, str]:
    """The two ```sh blocks of the README's "Set-up: two commands" section: the main job, then the tests."""
    text = (REPO / "README.md").read_text(encoding="utf-8")
    section = text.split("## Set-up: two commands", 1)[1].split("\n## ", 1)[0]
    blocks = [b.strip() for b in re.findall(r"```sh\n(.*?)```", section, flags=re.S)]
    assert len(blocks) == 2 and all("\n" not in b for b in blocks), blocks
    return blocks[0], blocks[1]


def test_readme_commands_are_the_documented_ones() -> None:
    main_job, tests = readme_commands()
    assert main_job.startswith("python3 -m venv .venv && .venv/bin/pip install . && {")
    assert main_job.endswith("; test $? -le 1; }")  # only the scan's own exit 1 (findings) is tolerated
    assert tests.endswith(".venv/bin/python -m pytest -n 2")


def _env(**extra: str) -> dict[str, str]:
    """A user's shell: none of this run's own settings. PYTHONDONTWRITEBYTECODE (set on this machine) goes too: with
    it, each of the smoke run's processes compiled the clone's sources again (21 -> 16 CPU s without it)."""
    keep = {k: v for k, v in os.environ.items()
            if not k.startswith(("SGTOOLS_", "VIRTUAL_ENV", "PYTHONPATH", "PYTHONDONTWRITEBYTECODE", "PYTEST_",
                                 "PRE_COMMIT"))}
    return {**keep, **extra}


def _bash(command: str, cwd: Path, env: dict[str, str], timeout: int) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["bash", "-c", command], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=timeout, check=False)


class MainJob(NamedTuple):
    clone: Path
    run: subprocess.CompletedProcess[str]


@pytest.fixture(scope="module")
def main_job(tmp_path_factory: pytest.TempPathFactory) -> MainJob:
    """The README's main job, run once in a clone alone in an empty directory (`../shared` is not beside it)."""
    parent = tmp_path_factory.mktemp("empty")
    clone = clone_with_changes(parent / "context-sherpa")
    assert sorted(p.name for p in parent.iterdir()) == ["context-sherpa"]
    return MainJob(clone, _bash(readme_commands()[0], clone, _env(), SETUP_TIMEOUT))


@pytest.mark.timeout(SETUP_TIMEOUT * 2)  # the module's clone and main job are built in its set-up
def test_main_job_in_a_fresh_clone(main_job: MainJob) -> None:
    job, clone = main_job.run, main_job.clone
    out = job.stdout + job.stderr
    assert job.returncode == 0, out[-4000:]
    assert "no sgconfig.yml: using" in job.stderr and ("problem" in job.stdout or "no problems" in job.stdout)
    # The main job scans a real tree: default excludes (virtualenvs) must not leave it nothing to check.
    checked = re.search(r"\((\d[\d,]*) files checked\)", job.stdout)
    assert checked and int(checked.group(1).replace(",", "")) > 100, job.stdout[-2000:]
    assert (clone / ".venv" / "bin" / "sgtools").is_file()


# ---- what the main job's install (`pip install .`, not editable) gives a newcomer -------------------------------

def _installed(main_job: MainJob) -> Path:
    """The main job's virtualenv, still the non-editable install (the README's test command, last, changes it)."""
    venv = main_job.clone / ".venv"
    direct_url = list((venv / "lib").glob("python*/site-packages/context_sherpa-*.dist-info/direct_url.json"))
    assert len(direct_url) == 1 and '"editable": true' not in direct_url[0].read_text(), direct_url
    return venv


def _venv_env(venv: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SGTOOLS_", "VIRTUAL_ENV", "PYTHON"))}
    env["PATH"] = f"{venv / 'bin'}:/usr/bin:/bin"
    return env


def test_init_in_an_empty_directory(main_job: MainJob, tmp_path: Path) -> None:
    env = _venv_env(_installed(main_job))
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


def test_installed_package_ships_the_bundled_index(main_job: MainJob, tmp_path: Path) -> None:
    venv = _installed(main_job)
    code = ("from sgtools.core.bundled import bundled_dir; d = bundled_dir(); "
            "print(d); print(sum(1 for _ in (d / 'rules').rglob('*.yml')))")
    out = subprocess.run([str(venv / "bin" / "python"), "-c", code], env=_venv_env(venv), cwd=tmp_path,
                         capture_output=True, text=True, timeout=60, check=True).stdout.split()
    assert out[0].endswith("sgtools/community_data") and out[0].startswith(str(venv))
    source_count = sum(1 for _ in (REPO / "community_index" / "rules").rglob("*.yml"))
    assert int(out[1]) == source_count


def test_installed_package_ships_its_data_files(main_job: MainJob, tmp_path: Path) -> None:
    """Every JSON schema and guide beside the modules in the source tree must be in the wheel too."""
    venv = _installed(main_job)
    expected = sorted(p.relative_to(REPO).as_posix() for ext in ("*.json", "*.md")
                      for p in (REPO / "sgtools").rglob(ext) if "__pycache__" not in p.parts)
    code = ("import sgtools, pathlib; root = pathlib.Path(sgtools.__file__).parent.parent; "
            "print(root); print('\\n'.join(sorted(p.relative_to(root).as_posix() for ext in ('*.json', '*.md') "
            "for p in (root / 'sgtools').rglob(ext) if 'community_data' not in p.parts)))")
    out = subprocess.run([str(venv / "bin" / "python"), "-c", code], env=_venv_env(venv), cwd=tmp_path,
                         capture_output=True, text=True, timeout=60, check=True).stdout.split()
    assert out[0].startswith(str(venv))  # the installed copy, not the clone's source tree
    assert expected and out[1:] == expected


def test_doctor_in_the_fresh_install(main_job: MainJob, tmp_path: Path) -> None:
    env = _venv_env(_installed(main_job))
    proc = subprocess.run(["sgtools", "doctor"], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60)
    assert "ast-grep       0.51" in proc.stdout


# ---- the main job with its scan, then its install, broken; last the README's test command (it makes .venv editable)

@pytest.mark.timeout(SETUP_TIMEOUT)
def test_main_job_fails_when_its_scan_breaks(main_job: MainJob, tmp_path: Path) -> None:
    """The scan breaking (exit 2: here, no engine) fails the main job: only exit 1 (findings) is tolerated. The
    job is `venv && pip install && { scan; test $? -le 1; }`, and the first two succeeded (the main job), so the
    job's exit is its braces' exit: they run alone here, verbatim, rather than a second venv and install."""
    assert main_job.run.returncode == 0, "the main job itself failed (test_main_job_in_a_fresh_clone says how)"
    setup, scan = readme_commands()[0].rsplit(" && ", 1)
    assert scan.startswith("{ .venv/bin/sgtools scan ") and setup.count(" && ") == 1, scan
    broken = _bash(scan, main_job.clone, _env(SGTOOLS_AST_GREP=str(tmp_path / "no-such-ast-grep")), SETUP_TIMEOUT)
    assert broken.returncode != 0, broken.stdout[-2000:] + broken.stderr[-2000:]
    assert "no-such-ast-grep" in broken.stderr, broken.stderr[-2000:]  # it broke where it was meant to


@pytest.mark.timeout(SETUP_TIMEOUT)
def test_main_job_fails_when_the_install_fails(main_job: MainJob) -> None:
    """pip refusing the package ("requires a different Python", its exit 1) fails the main job: that 1 is not
    swallowed as if it were the scan's findings, and the scan does not run. As for the broken scan, the main job's
    own virtualenv serves: the job after its `python3 -m venv .venv` (which succeeded in the main job) runs verbatim
    in the clone with `requires-python` raised in its pyproject.toml, put back afterwards, rather than in a second
    clone and venv. The main job's install is still in `.venv`, so a job that went on to its scan would find one to
    run (and exit 0 or 1)."""
    assert main_job.run.returncode == 0, "the main job itself failed (test_main_job_in_a_fresh_clone says how)"
    venv_step, job_after = readme_commands()[0].split(" && ", 1)
    assert venv_step == "python3 -m venv .venv" and job_after.startswith(".venv/bin/pip install . && {"), job_after
    pyproject = main_job.clone / "pyproject.toml"
    text = pyproject.read_text(encoding="utf-8")
    assert 'requires-python = ">=3.11"' in text
    pyproject.write_text(text.replace('requires-python = ">=3.11"', 'requires-python = ">=99"'), encoding="utf-8")
    try:
        job = _bash(job_after, main_job.clone, _env(), SETUP_TIMEOUT)
    finally:
        pyproject.write_text(text, encoding="utf-8")
    assert job.returncode != 0, job.stdout[-2000:] + job.stderr[-2000:]
    assert "requires a different Python" in job.stderr, job.stderr[-2000:]
    assert "no sgconfig.yml: using" not in job.stderr and "files checked" not in job.stdout, job.stdout[-2000:]
    _installed(main_job)  # the refused install left the main job's in place for the README's test command


@pytest.mark.timeout(SETUP_TIMEOUT + TEST_TIMEOUT)
def test_readme_test_command_in_the_fresh_clone(main_job: MainJob) -> None:
    assert main_job.run.returncode == 0, "the main job itself failed (test_main_job_in_a_fresh_clone says how)"
    tests = readme_commands()[1]
    run = _bash(f"{tests} {' '.join(SMOKE)}", main_job.clone, _env(**{NESTED_ENV: "1"}), TEST_TIMEOUT)
    out = run.stdout + run.stderr
    assert run.returncode == 0, out[-6000:]
    # pytest's closing line is the last of its stdout (stderr may end with pip's warnings from nested installs).
    closing = run.stdout.strip().splitlines()[-1]
    assert re.search(r"\d+ passed", closing) and "failed" not in closing and "error" not in closing, closing
    passed = re.search(r"(\d+) passed", closing)
    assert passed and int(passed.group(1)) == SMOKE_SIZE, closing  # every test selected ran, and passed
