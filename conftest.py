"""How the README's test command (`python -m pytest -n 2`) spreads the suite over the two xdist workers.

- Longest first. The suite's wall time is its work divided over two cores plus the tail: the time one worker
  still runs after the other has run out. A test of minutes that starts last is that tail. So the known-longest
  tests (LONGEST_FIRST) start first, then the rest of the `slow` ones, then the quick ones, whose tail is seconds.
- One test at a time, except ONE_WORKER_FILES. xdist's `load` hands out tests in chunks, a quarter of the suite
  at the start; here each test is a unit, given to the first worker that is nearly out of work. A file in
  ONE_WORKER_FILES is one unit, so the install its tests share (a module fixture) is built on one worker once,
  not once per worker. (`--dist loadgroup` with `xdist_group` marks would say the same, but pytest-xdist 3.8
  silently stops grouping under pytest 9.2: pytest-dev/pytest-xdist#1386.)

Any explicit `--dist` other than `load` (e.g. `--dist loadfile`) is left to xdist.

The package's bytecode is written once, before the workers start (`compileall`, which writes whatever
PYTHONDONTWRITEBYTECODE says): the suite starts hundreds of Python processes (`python -m sgtools`, servers), and
where the environment sets that variable (this VM, many containers) each compiled every sgtools module it
imported. Python checks a cached file against its source's mtime and size, so an edited module is compiled again.
The test modules' own bytecode (pytest's assertion rewriting: ~3 of a worker's ~5 CPU s of collection) is written
during collection whatever that variable says, so each run after the first reads it instead of rewriting every file.
"""

from __future__ import annotations

import compileall
import resource
import sys
from pathlib import Path
from typing import Any

import pytest

# Test files (or test ids) by their time on a quiet 2-core machine, longest first: each over ~30 s there.
LONGEST_FIRST = (
    "tests/test_fix_scale.py",  # 30,000 fix-its in one file: 326 s in a busy-loop run (stop37 notes)
    "e2e/test_fresh_clone.py",  # one clone, its tests in file order (the README's test command last)
    "e2e/test_precommit.py",
    "tests/test_corpus_validation.py",  # validation and store tests of ~50 rules each: 25 and 14 CPU s serially
    "tests/test_warm_identity_bundled.py",
    "tests/test_community_import.py::test_every_essentials_rule_imports_into_a_fresh_project",
    "tests/test_fix_harness.py",  # where the fix-harness corpus is cached (~/.cache), else it skips
    "tests/test_warm_identity.py",
    "tests/test_read_race.py",
    "tests/test_kill_every_step.py",
    "tests/test_intent_catalogue.py::test_suggest_rule_on_the_catalogue",
    "tests/test_suggest_catalogue.py",
    "tests/test_crash_consistency.py",
    "e2e/test_mcp_concurrency.py",
    "e2e/test_lifecycle.py",
)
# Files whose tests share an expensive module fixture: one worker runs them all, building it once.
ONE_WORKER_FILES = ("e2e/test_precommit.py", "e2e/test_fresh_clone.py", "tests/test_server_contracts.py",
                    "tests/test_fix_harness.py")


def pytest_configure(config: pytest.Config) -> None:
    if not hasattr(config, "workerinput"):  # the controller, before any worker or child process
        compileall.compile_dir(str(Path(__file__).parent / "sgtools"), quiet=2)


@pytest.hookimpl(wrapper=True)
def pytest_collection(session: pytest.Session) -> Any:
    """pytest writes its rewritten test modules (`__pycache__/*-pytest-*.pyc`, beside them, git-ignored) only where
    `sys.dont_write_bytecode` is off; it reads them either way."""
    saved = sys.dont_write_bytecode
    sys.dont_write_bytecode = False
    try:
        return (yield)
    finally:
        sys.dont_write_bytecode = saved


# Where the CPU went: --durations (pyproject.toml) gives wall seconds, which on a shared machine stretch with the
# load; each test's CPU seconds (user + system of its worker and of the children it reaped: ast-grep, servers,
# installs) do not, so every run also ends with its CPU_TOP costliest tests by CPU. A process that outlives its test
# (a session fixture's server) is counted where it is reaped.
CPU_TOP = 25
_CPU_STARTED = pytest.StashKey[float]()


def _cpu_seconds() -> float:
    own, reaped = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + reaped.ru_utime + reaped.ru_stime


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    item.stash[_CPU_STARTED] = _cpu_seconds()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
    """The teardown report carries the test's CPU seconds (an attribute xdist sends on to the controller)."""
    report = yield
    if call.when == "teardown" and _CPU_STARTED in item.stash:
        report.cpu_seconds = _cpu_seconds() - item.stash[_CPU_STARTED]
    return report


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    cpu = getattr(report, "cpu_seconds", None)
    if cpu is not None:
        _CPU_BY_TEST[report.nodeid] = float(cpu)


_CPU_BY_TEST: dict[str, float] = {}


def pytest_terminal_summary(terminalreporter: Any) -> None:
    if not _CPU_BY_TEST:
        return
    top = [kv for kv in sorted(_CPU_BY_TEST.items(), key=lambda kv: -kv[1])[:CPU_TOP] if kv[1] >= 0.005]
    terminalreporter.write_sep("=", f"costliest {len(top)} by CPU (user+sys s, with reaped children; all "
                                    f"{len(_CPU_BY_TEST)} tests: {sum(_CPU_BY_TEST.values()):.0f} s)")
    for nodeid, cpu in top:
        terminalreporter.write_line(f"{cpu:.2f}s cpu   {nodeid}")


def _rank(item: pytest.Item) -> int:
    nodeid = item.nodeid
    for i, prefix in enumerate(LONGEST_FIRST):
        if nodeid == prefix or nodeid.startswith((prefix + "::", prefix + "[")):
            return i
    return len(LONGEST_FIRST) + (0 if item.get_closest_marker("slow") else 1)


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Longest first (a stable sort: within a rank, the collection order; every worker sorts alike)."""
    items[:] = sorted(items, key=_rank)


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    if config.getvalue("dist") != "load":
        return None
    from xdist.scheduler import LoadScopeScheduling  # type: ignore[import-untyped]

    class OneTestAtATime(LoadScopeScheduling):  # type: ignore[misc]
        """Each test is a unit of work, except that a file in ONE_WORKER_FILES is one unit; units in collection
        order (longest first), not xdist's reordering by their number of tests."""

        def _split_scope(self, nodeid: str) -> str:
            path = nodeid.split("::", 1)[0]
            return path if path in ONE_WORKER_FILES else nodeid

    config.option.loadscopereorder = False
    return OneTestAtATime(config, log)
