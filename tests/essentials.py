"""The ast-grep-essentials corpus (read in place) migrated into one project, built once per test session.

Its rules were written for ast-grep 0.31 and carry keys 0.51 refuses, so each document goes through
`sgtools.community.migrate.migrate_rule` (the importer's own migration) before it is written into the project.
Several test files scan that project (tests/test_warm_identity.py, tests/test_overlay_warm_identity.py, the analyser's
corpus test); migrating 184 rules in pure-Python YAML costs seconds, so conftest's `essentials` fixture builds
it once per session: under xdist, once for all workers, under a file lock in the session's shared temp dir.
The project is read-only for the tests that use it (the fixture checks on teardown that none wrote into it).

Each migrated file's parse is remembered in yamlio's parse cache (by the digest of the bytes written, as
`yamlio.load_all_cached` keys it), in every worker: the documents written are the documents that file parses to
(`yamlio.dump` round-trips; the build checks it on one file), so the tests' rule loads (`cached_ruleset`, 7-9 CPU s
of pure-Python YAML for these 184 rules, once per worker) need not parse again what this module just wrote. The
corpus' own rule files, parsed by the build, are remembered the same way in the workers that did not build.
"""

from __future__ import annotations

import fcntl
import json
import os
import shutil
from pathlib import Path
from typing import Any, NamedTuple

import pytest

from sgtools.community.migrate import migrate_rule
from sgtools.core import yamlio
from sgtools.core.cache import json_safe
from sgtools.core.digest import sha256
from sgtools.project import config as project
from sgtools.project.workspace import Workspace
from tests.conftest import CORPUS

EXPECTED_RULES = 184
EXPECTED_INVALID = 482
EXPECTED_VALID = 221
_DONE = "essentials.json"  # languages, notes, files; written last: its presence means the build finished
_DOCS = "essentials-docs.json"  # {rule file (absolute path), the corpus' and the project's: its documents}


class Case(NamedTuple):
    rule_id: str
    kind: str  # "invalid" or "valid"
    number: int  # its place in the test file's list of that kind
    code: str

    @property
    def key(self) -> str:
        return f"{self.rule_id}/{self.kind}/{self.number}"


class Essentials(NamedTuple):
    root: Path  # the migrated project (sgconfig.yml, rules/<lang>/...): read it, never write into it
    languages: dict[str, str]  # rule id -> its language as the migrated rule says
    notes: dict[str, list[str]]  # rule id -> what migrate_rule said it changed
    files: dict[str, str]  # rule id -> its rule file, relative to root

    def workspace(self) -> Workspace:
        return Workspace(self.root)

    def rule_text(self, rule_id: str) -> str:
        """The migrated rule as written into the project (one rule per file in this corpus)."""
        return (self.root / self.files[rule_id]).read_text(encoding="utf-8")


def build_project(root: Path, parsed: dict[str, list[Any]] | None = None) -> Essentials:
    """Every corpus rule file migrated into a new project at `root`. `parsed` receives each file's documents,
    the corpus' as parsed and the project's as written (absolute path -> documents); the latter are remembered
    as those files' parse."""
    root.mkdir(parents=True)
    project.initialize(Workspace(root))
    built = Essentials(root, {}, {}, {})
    parsed = {} if parsed is None else parsed
    written: dict[str, list[Any]] = {}
    for src in sorted((CORPUS / "rules").rglob("*.yml")):
        docs = []
        dest = root / "rules" / src.relative_to(CORPUS / "rules")
        # As bytes: the parse is remembered in the process by content digest (yamlio.load_all_cached), so the
        # tests reading these files as written in the same worker (test_corpus_validation) do not parse them again.
        parsed[str(src)] = yamlio.load_all_cached(src.read_bytes())
        for doc in parsed[str(src)]:
            if doc is None:
                continue
            migrated, notes = migrate_rule(doc)
            docs.append(migrated)
            rule_id = str(migrated["id"])
            built.languages[rule_id] = str(migrated["language"])
            built.notes[rule_id] = notes
            built.files[rule_id] = dest.relative_to(root).as_posix()
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.write_text("\n---\n".join(yamlio.dump(d) for d in docs), encoding="utf-8")
        written[str(dest)] = docs
    first = min(written)
    assert yamlio.load_all(Path(first).read_text(encoding="utf-8")) == written[first], "dump does not round-trip"
    remember_parses(written)
    parsed.update(written)
    return built


def remember_parses(parsed: dict[str, list[Any]]) -> None:
    """Seed yamlio's parse cache: each file (absolute path) parses to its documents."""
    for path, docs in parsed.items():
        if json_safe(docs):  # what load_all_cached would keep; a copy, as a hit from its disk cache is
            key = sha256(Path(path).read_bytes()).hexdigest()
            with yamlio._parsed_lock:
                yamlio._parsed.put("docs", key, json.loads(json.dumps(docs)))


def cases() -> list[Case]:
    """Every valid and invalid case of the corpus' test files, in file order."""
    out: list[Case] = []
    for path in sorted((CORPUS / "tests").rglob("*.yml")):
        if "__snapshots__" in path.parts:
            continue
        doc = yamlio.load_one(path.read_bytes())  # bytes: parsed once per process (by digest), not per test
        for kind in ("invalid", "valid"):
            for i, code in enumerate(doc.get(kind) or []):
                out.append(Case(str(doc["id"]), kind, i, str(code)))
    return out


def shared_project(factory: pytest.TempPathFactory) -> Essentials:
    """The migrated project, built by the first worker that asks and reused by the others."""
    if not os.environ.get("PYTEST_XDIST_WORKER"):  # one process: its own temp dir, no lock needed
        return build_project(factory.mktemp("essentials-shared") / "essentials")
    shared = factory.getbasetemp().parent  # the session's temp dir, common to all its workers
    root = shared / "essentials"
    with open(shared / "essentials.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (shared / _DONE).is_file():
            shutil.rmtree(root, ignore_errors=True)  # a build cut short by a crashed worker
            parsed: dict[str, list[Any]] = {}
            built = build_project(root, parsed)
            (shared / _DOCS).write_text(json.dumps(parsed), encoding="utf-8")
            (shared / _DONE).write_text(json.dumps(built[1:]), encoding="utf-8")
        else:
            remember_parses(json.loads((shared / _DOCS).read_text(encoding="utf-8")))
        languages, notes, files = json.loads((shared / _DONE).read_text(encoding="utf-8"))
    return Essentials(root, languages, notes, files)


def tree_state(root: Path) -> dict[str, tuple[int, int]]:
    """Every path under root with its size and mtime: what a consumer must leave as it found it."""
    out: dict[str, tuple[int, int]] = {}
    for dirpath, dirs, files in os.walk(root):
        for name in [*files, *dirs]:
            st = (Path(dirpath) / name).stat()
            out[os.path.relpath(Path(dirpath) / name, root)] = (st.st_size, st.st_mtime_ns)
    return out
