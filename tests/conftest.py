"""Shared fixtures: real temp projects, the real ast-grep binary, the shared corpus where it lies."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from sgtools.core.settings import Settings
from sgtools.engine.process import Engine
from sgtools.project import config as project
from sgtools.project.workspace import Workspace

if TYPE_CHECKING:
    from tests.essentials import Essentials

REPO = Path(__file__).resolve().parent.parent
SHARED = REPO.parent / "shared"
CORPUS = SHARED / "corpora" / "ast-grep-essentials"
# A fresh clone has nothing beside it: tests that read the shared corpus skip there (CI has it, and runs them).
needs_corpus = pytest.mark.skipif(
    not (CORPUS / "rules").is_dir(),
    reason=f"needs the ast-grep-essentials corpus at {CORPUS} (../shared is not beside this clone)")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """A test that needs the corpus carries the `corpus` marker too (`pytest -m corpus` runs just those)."""
    for item in items:
        if any(mark == needs_corpus.mark for mark in item.iter_markers("skipif")):
            item.add_marker(pytest.mark.corpus)


@pytest.fixture(autouse=True)
def _isolated_env(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """No test reads the developer's caches, config or community sources."""
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("XDG_CACHE_HOME", str(home / "cache"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / "config"))
    monkeypatch.delenv("SGTOOLS_ROOT", raising=False)
    monkeypatch.delenv("SGTOOLS_AST_GREP", raising=False)
    monkeypatch.delenv("SGTOOLS_COMMUNITY_SOURCES", raising=False)
    monkeypatch.delenv("FORCE_COLOR", raising=False)  # colour is asked for by the tests that check it
    yield


@pytest.fixture(scope="session")
def essentials(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Essentials]:
    """The ast-grep-essentials corpus migrated into one project, once per session (tests/essentials.py);
    read-only for its users: teardown fails if any of them wrote into it."""
    if not (CORPUS / "rules").is_dir():
        pytest.skip(f"needs the ast-grep-essentials corpus at {CORPUS}")
    from tests.essentials import shared_project, tree_state

    built = shared_project(tmp_path_factory)
    before = tree_state(built.root)
    yield built
    assert tree_state(built.root) == before, "a test wrote into the shared essentials project"


# Go's build cache for the tests that build Go (<this>/gocache, as bin/fix_harness.py lays out its cache), kept
# across sessions, one per user. The harness builds with -trimpath and CGO_ENABLED=0, so Go compiles its whole
# standard library into an empty cache first: ~25 CPU-s, most of a Go case's time, paid once per machine instead of
# once per test. Go keys the cache by content and locks it for concurrent builds: a verdict cannot come from another
# build's code.
GO_HARNESS_CACHE = Path(tempfile.gettempdir()) / f"sgtools-tests-go-{os.getuid()}"


@pytest.fixture(scope="session")
def gocache() -> Path:
    """Go's build cache shared by the Go cases (GO_HARNESS_CACHE)."""
    return GO_HARNESS_CACHE / "gocache"


@pytest.fixture
def engine() -> Engine:
    return Engine()


def warm_engine(deadline: float | None = None, **settings: int) -> Iterator[Engine]:
    """An Engine with the MCP server's warm engine on, closed once the test is done: `deadline` its
    `warm_engine_timeout` (the setting's default when None), `settings` any other setting it needs
    (`warm_engine_lanes=2`). Fixtures `yield from` it."""
    changes: dict[str, float] = {"warm_engine": 1, **settings}
    if deadline is not None:
        changes["warm_engine_timeout"] = deadline
    e = Engine(settings=Settings.from_env({}).replace(**changes))
    e.enable_warm()
    assert e.warm is not None
    try:
        yield e
    finally:
        e.warm.close()


@pytest.fixture
def warm() -> Iterator[Engine]:
    """An Engine with the warm engine on, its deadline a hang guard no loaded machine reaches by accident (60 s,
    docs/performance.md): the tests that use it check what is served, not when."""
    yield from warm_engine(60.0)


@pytest.fixture
def ws(tmp_path: Path, request: pytest.FixtureRequest) -> Workspace:
    """An empty project; under the `generaliser` marker its suggest_rule offers only the rules it generalises from
    the examples (no known rules, `suggest_known_rules=0`): the tests of the generaliser's own shapes."""
    root = tmp_path / "proj"
    root.mkdir()
    alone = request.node.get_closest_marker("generaliser") is not None
    return Workspace(root, settings=Settings(suggest_known_rules=0) if alone else None)


@pytest.fixture
def initialized(ws: Workspace) -> Workspace:
    project.initialize(ws)
    return ws


def snapshot_tree(root: Path) -> dict[str, bytes]:
    """Every file under root with its bytes: to assert that a refused call changed nothing."""
    out: dict[str, bytes] = {}
    for dirpath, _dirs, files in os.walk(root):
        for name in files:
            p = Path(dirpath) / name
            out[p.relative_to(root).as_posix()] = p.read_bytes()
        for d in _dirs:
            out[(Path(dirpath) / d).relative_to(root).as_posix() + "/"] = b""
    return out
