"""The shipped kinds table (community_index/kinds.json): true for the installed ast-grep, and what spares a
cold process its ~60 ast-grep runs per language before the rule analyser can check a `kind:`."""

from __future__ import annotations

from pathlib import Path

import pytest

from sgtools.engine.process import Engine, find_binary
from sgtools.rules.analysis import kinds


def _logging_binary(tmp_path: Path) -> tuple[Path, Path]:
    """A wrapper that records each ast-grep run's first argument, then runs the real binary: the count of
    runs is then a fact about real processes, not a patched function."""
    log = tmp_path / "runs.log"
    wrapper = tmp_path / "ast-grep"
    wrapper.write_text(f'#!/bin/sh\necho "$1" >> {log}\nexec {find_binary()} "$@"\n', encoding="utf-8")
    wrapper.chmod(0o755)
    return wrapper, log


def _runs(log: Path, what: str) -> int:
    return sum(line == what for line in log.read_text(encoding="utf-8").splitlines()) if log.exists() else 0


@pytest.mark.slow
def test_the_committed_table_is_what_the_installed_binary_parses(tmp_path: Path) -> None:
    engine = Engine()
    table = kinds.shipped_kinds(engine.version())
    if not table:
        pytest.skip(f"community_index/{kinds.KINDS_TABLE} was built for another ast-grep than "
                    f"{engine.version()}: rebuild it with `python bin/build_kinds.py`")
    fresh = kinds.harvest_bundled_kinds(engine, tmp_path)
    assert fresh["kinds"] == table, "community_index/kinds.json is stale: run `python bin/build_kinds.py`"


def test_a_table_for_another_version_is_not_used() -> None:
    assert kinds.shipped_kinds("0.0.0") == {}
    assert kinds.shipped_kinds(Engine().version())["python"], "the table holds the installed binary's kinds"


def test_a_cold_process_checks_kinds_without_parsing_the_bundled_tests(tmp_path: Path) -> None:
    """Cold cache (this test's own XDG_CACHE_HOME): only the draft's own samples are parsed, one run each.
    Without the table, the bundled Python tests' snippets were parsed too (60 runs)."""
    wrapper, log = _logging_binary(tmp_path)
    engine = Engine(binary=wrapper)
    known = kinds.known_kinds(engine, "python", ["assert x"], tmp_path)
    assert {"assert_statement", "call", "function_definition", "keyword_argument"} <= known
    assert _runs(log, "run") == 1, log.read_text(encoding="utf-8")

