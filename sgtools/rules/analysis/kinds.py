"""Node kinds as ast-grep's own parse output shows them: the tree of a snippet, the kind at a position,
and the nearest real kind to a misspelt one.

ast-grep cannot list a grammar's kinds, so they are harvested from its CST dumps of code in that language
(the contexts, the examples, the bundled rules' tests), cached per language and engine version.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from sgtools.core import languages, yamlio
from sgtools.core.cache import JsonCache
from sgtools.core.errors import SgToolsError
from sgtools.engine import lifecycle
from sgtools.engine.process import Engine

_LINE = re.compile(r"^(\s*)(?:[A-Za-z_][A-Za-z0-9_]*: )?(\S+)(?: .*?)? \((\d+),(\d+)\)-\((\d+),(\d+)\)\s*$")
_KIND = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_cache = JsonCache("analysis")


class Node:
    __slots__ = ("depth", "end", "kind", "start")

    def __init__(self, depth: int, kind: str, start: tuple[int, int], end: tuple[int, int]) -> None:
        self.depth = depth
        self.kind = kind
        self.start = start  # (row, byte column), 0-based
        self.end = end


def parse_dump(tree: str) -> list[Node]:
    """The nodes of a `--debug-query=cst` dump, in document order."""
    nodes: list[Node] = []
    for raw in tree.splitlines():
        m = _LINE.match(raw)
        if m:
            nodes.append(Node(len(m.group(1)) // 2, m.group(2), (int(m.group(3)), int(m.group(4))),
                              (int(m.group(5)), int(m.group(6)))))
    return nodes


def dump(engine: Engine, code: str, language: str, cwd: Path) -> list[Node]:
    try:
        tree, _ = engine.dump_tree(code, language, "cst", cwd=cwd)
    except SgToolsError:
        return []
    return parse_dump(tree)


def position(text: str, offset: int) -> tuple[int, int]:
    """(row, byte column) of a byte offset in `text`."""
    data = text.encode("utf-8")[:offset]
    row = data.count(b"\n")
    return row, len(data) - (data.rfind(b"\n") + 1)


def spanning(nodes: list[Node], start: tuple[int, int], end: tuple[int, int]) -> list[Node]:
    """Named nodes covering exactly [start, end), outermost first."""
    return [n for n in nodes if n.start == start and n.end == end and _KIND.match(n.kind)]


def broken(nodes: list[Node]) -> bool:
    """ERROR nodes: text the grammar could not read. (A MISSING token, such as the `;` a fragment lacks,
    leaves the node and its kind intact, and patterns with it still match complete code.)"""
    return any(n.kind == "ERROR" for n in nodes)


def real_kinds(nodes: list[Node]) -> set[str]:
    return {n.kind for n in nodes if _KIND.match(n.kind) and n.kind not in ("ERROR", "MISSING")}


def known_kinds(engine: Engine, language: str, samples: list[str], cwd: Path) -> set[str]:
    """Kinds seen in ast-grep's parse of `samples` and of the bundled rules' tests for `language`. The bundled
    tests' kinds come from the table shipped beside them (`kinds.json`, written by `bin/build_kinds.py` for one
    ast-grep version) when the engine is that version, else from parsing them (about 60 ast-grep runs per
    language, then cached per language and engine version); the samples' kinds are cached per content."""
    shipped = shipped_kinds(engine.version()).get(language)
    if shipped is not None:
        found = set(shipped)
    else:
        found = _cached_kinds(engine, f"bundled\0{language}", lambda: _bundled_samples(language), language, cwd)
    found |= set(_bundled_kinds(language))
    if samples:
        found |= _cached_kinds(engine, "\0".join(samples), lambda: samples, language, cwd)
    return found


KINDS_TABLE = "kinds.json"


@functools.cache
def shipped_kinds(version: str) -> dict[str, list[str]]:
    """The shipped table's kinds per language if it was built with ast-grep `version`, else nothing (another
    binary may parse differently: its kinds are harvested as before)."""
    from sgtools.core import bundled

    try:
        table = json.loads((bundled.bundled_dir() / KINDS_TABLE).read_bytes())
    except (OSError, ValueError):
        return {}
    if not isinstance(table, dict) or table.get("astGrep") != version or not isinstance(table.get("kinds"), dict):
        return {}
    return {str(lang): [str(k) for k in ks] for lang, ks in table["kinds"].items() if isinstance(ks, list)}


def harvest_bundled_kinds(engine: Engine, cwd: Path) -> dict[str, Any]:
    """The table `shipped_kinds` reads, parsed afresh from the bundled tests by `engine` (bin/build_kinds.py)."""
    found: dict[str, list[str]] = {}
    for language in sorted({languages.canonical(str(d.get("language", ""))) or "" for d in _bundled_docs()} - {""}):
        samples = _bundled_samples(language)
        if samples:
            found[language] = sorted(_parsed_kinds(engine, samples, language, cwd))
    return {"astGrep": engine.version(), "kinds": found}


def _cached_kinds(engine: Engine, what: str, codes: Callable[[], list[str]], language: str, cwd: Path) -> set[str]:
    key = f"{language}\0{engine.version()}\0{what}"
    hit = _cache.get("kinds", key)
    if isinstance(hit, list):
        return set(hit)
    found = _parsed_kinds(engine, codes(), language, cwd)
    _cache.put("kinds", key, sorted(found))
    return found


def _parsed_kinds(engine: Engine, codes: list[str], language: str, cwd: Path) -> set[str]:
    """The real kinds in ast-grep's parse of each of `codes`, one run each, on the rule-check workers."""
    found: set[str] = set()
    from concurrent.futures import ThreadPoolExecutor  # with logging ~20 million instructions: loaded to use

    with ThreadPoolExecutor(max_workers=max(1, engine.settings.rule_check_workers), **lifecycle.pool_args()) as pool:
        for nodes in pool.map(lambda c: dump(engine, c, language, cwd), codes):
            found |= real_kinds(nodes)
    return found


@functools.cache
def _bundled_docs() -> tuple[dict[str, Any], ...]:
    """The bundled rule documents, parsed once per process (the package's files do not change under it): every
    known-kinds lookup asks for them, and each parse reads every bundled rule through the pure-Python YAML parser."""
    from sgtools.core import bundled

    docs: list[dict[str, Any]] = []
    for path in sorted((bundled.bundled_dir() / "rules").rglob("*.yml")):
        try:
            docs += [d for d in yamlio.load_all(path.read_text(encoding="utf-8")) if isinstance(d, dict)]
        except (OSError, yamlio.YamlError, UnicodeDecodeError):
            continue
    return tuple(docs)


def _bundled_kinds(language: str) -> set[str]:
    """The `kind:` values of the bundled rules for `language` (real: every bundled rule compiles)."""
    from sgtools.rules.analysis.walk import rule_objects

    out: set[str] = set()
    for doc in _bundled_docs():
        if languages.canonical(str(doc.get("language", ""))) == language:
            out |= {str(node["kind"]) for _p, node in rule_objects(doc) if isinstance(node.get("kind"), str)}
    return out


def _bundled_samples(language: str) -> list[str]:
    """Code from the bundled community rules' tests in that language."""
    from sgtools.core import bundled

    out: list[str] = []
    tests = bundled.bundled_dir() / "rule-tests"
    lang_of = {str(d["id"]): languages.canonical(str(d.get("language", ""))) or "" for d in _bundled_docs()
               if d.get("id")}
    for path in sorted(tests.glob("*.yml")):
        try:
            doc = yamlio.load_all(path.read_text(encoding="utf-8"))[0]
        except (OSError, yamlio.YamlError, UnicodeDecodeError, IndexError):
            continue
        if isinstance(doc, dict) and lang_of.get(str(doc.get("id"))) == language:
            out.extend(str(c) for c in [*(doc.get("invalid") or []), *(doc.get("valid") or [])])
    return out[:60]


def distance(a: str, b: str) -> int:
    """Levenshtein distance."""
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i]
        for j, cb in enumerate(b, 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb)))
        prev = cur
    return prev[-1]


def nearest(kind: str, known: set[str], limit: int = 3) -> list[str]:
    """Real kinds closest to `kind` by edit distance (a subsequence such as go_stmt in go_statement first)."""
    def subsequence(small: str, big: str) -> bool:
        it = iter(big)
        return all(ch in it for ch in small)

    scored = sorted(known, key=lambda k: (not subsequence(kind, k), distance(kind, k), k))
    return [k for k in scored if subsequence(kind, k) or distance(kind, k) <= 2][:limit]
