"""Rule analysis: does a rule really fire? Findings with a stable code, a severity, the rule path, a cause
and, where one was found and verified with the real ast-grep, a full repaired rule YAML.

    analyse_rule(ws, engine, rule_doc_or_yaml, examples=None) -> list[Finding]
    analyse_rules(ws, engine, [rule docs], config=...) -> list[list[Finding]]

Results are cached by rule content (and engine version), so re-analysing an unchanged project costs one
small cache read per rule. Workspace checks (globs, tsx files) are not cached: they depend on the files.
"""

from __future__ import annotations

import functools
import json
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from sgtools.core import languages, yamlio
from sgtools.core.cache import JsonCache, StatMemo
from sgtools.core.digest import sha256
from sgtools.core.errors import SgToolsError
from sgtools.engine.process import NO_CONFIG, Engine
from sgtools.project.workspace import Workspace
from sgtools.rules.analysis import findings as F
from sgtools.rules.analysis.findings import at_least, never_fires, refusal
from sgtools.rules.analysis.item import Examples, Item

if TYPE_CHECKING:
    from sgtools.contracts.rules import Finding

__all__ = ["Examples", "analyse_rule", "analyse_rules", "at_least", "last_findings", "never_fires", "refusal"]

_CACHE_VERSION = "1"
_cache = JsonCache("analysis", miss_ttl=2.0)  # a scan asks for every rule's analysis; most never had one


def _doc(rule: Mapping[str, Any] | str) -> dict[str, Any]:
    if isinstance(rule, str):
        loaded = yamlio.load_all_cached(rule.encode("utf-8", "surrogatepass"))  # parsed once per content
        docs = [d for d in loaded if d is not None]
        if len(docs) != 1 or not isinstance(docs[0], dict):
            raise ValueError("analyse_rule takes one rule document")
        rule = docs[0]
    plain: dict[str, Any] = json.loads(json.dumps(dict(rule), default=str))
    return plain


_sources = StatMemo("analysis", "source-digests-v1")


@functools.cache
def _code_version() -> str:
    """A digest of the analyser's own source: a changed analyser never reads findings cached by an older one."""
    return sources_digest(Path(__file__).parent)


def sources_digest(directory: Path) -> str:
    """A digest of the contents of `directory`'s .py files. Each file's own digest is remembered by its stat
    (`StatMemo`), so a CLI scan reads one small cache file instead of hashing ~85 KB of source (~5 million
    instructions of a one-file `sgtools scan`); an edited file has a new stat, so it is hashed again."""
    digest = sha256(_CACHE_VERSION.encode())
    for name in sorted(n for n in os.listdir(directory) if n.endswith(".py")):
        path = directory / name
        st = path.stat()
        hit = _sources.get("py", path, st)
        if not isinstance(hit, str):
            hit = sha256(path.read_bytes()).hexdigest()
            _sources.put("py", path, st, hit)
        digest.update(f"{name}\0{hit}\n".encode())
    _sources.flush()
    return digest.hexdigest()[:16]


def _key(engine: Engine, item: Item, config: Path | str) -> str:
    payload = json.dumps([_code_version(), engine.version(), str(config), item.language, item.doc,
                          item.valid, item.invalid], sort_keys=True, default=str)
    return sha256(payload.encode("utf-8", "surrogatepass")).hexdigest()


def analyse_rules(ws: Workspace | None, engine: Engine, rules: Sequence[Mapping[str, Any] | str], *,
                  examples: Sequence[Examples | None] | None = None, config: Path | str = NO_CONFIG,
                  ) -> list[list[Finding]]:
    """Findings per rule, in order; rules in custom languages get none (ast-grep's grammar is not ours to
    probe). An engine failure gives one `not-analysed` info finding instead of raising."""
    docs = [_doc(r) for r in rules]
    exs = list(examples or [None] * len(docs))
    items = [Item(d, languages.canonical(str(d.get("language", ""))),
                  list((e or {}).get("valid") or []), list((e or {}).get("invalid") or []))
             for d, e in zip(docs, exs, strict=True)]
    results = _cached_or_analysed(ws, engine, items, config)
    out: list[list[Finding]] = [[cast("Finding", dict(f)) for f in r or []] for r in results]  # the cache keeps its own
    if ws is not None:
        from sgtools.rules.analysis.globs import workspace_findings  # the analyser loads only to analyse

        for n, d in enumerate(docs):
            out[n] += workspace_findings(ws, d, config)
    return [F.sort_findings(found) for found in out]


_EXAMPLE_CODES = (F.EXAMPLE_MATCHED, F.EXAMPLE_NOT_MATCHED)


def _latest_key(engine: Engine, item: Item, config: Path | str) -> str:
    return _key(engine, Item(item.doc, item.language), config)


def last_findings(engine: Engine, rules: Sequence[Mapping[str, Any]], *, config: Path | str = NO_CONFIG,
                  ) -> list[list[Finding] | None]:
    """What the last analysis of each rule found (examples aside), without running anything: None for a rule
    never analysed. Scans report these next to `ruleErrors` at no cost."""
    version = engine.version()
    out: list[list[Finding] | None] = []
    for rule in rules:
        hit = _cache.get("latest", _rule_latest_key(engine, rule, version, config))
        out.append([cast("Finding", dict(f)) for f in hit] if isinstance(hit, list) else None)
    return out


# (id of a rule mapping, engine version, config) -> (that mapping, its "latest" cache key). A scan's rules are the
# same objects from call to call while no rule file changes (scan/rulefiles.py `cached_ruleset`), and a loaded
# rule is never changed in place, so its key is worked out once instead of re-serialised and hashed per call.
# The entry holds the mapping itself, so its id cannot be reused by another object while the entry lives.
_latest_keys: dict[tuple[int, str, str], tuple[Mapping[str, Any], str]] = {}
_LATEST_KEYS_MAX = 4096


def _rule_latest_key(engine: Engine, rule: Mapping[str, Any], version: str, config: Path | str) -> str:
    memo = (id(rule), version, str(config))
    hit = _latest_keys.get(memo)
    if hit is not None and hit[0] is rule:
        return hit[1]
    doc = _doc(rule)
    key = _latest_key(engine, Item(doc, languages.canonical(str(doc.get("language", "")))), config)
    if len(_latest_keys) >= _LATEST_KEYS_MAX:
        _latest_keys.clear()
    _latest_keys[memo] = (rule, key)
    return key


def _cached_or_analysed(ws: Workspace | None, engine: Engine, items: list[Item],
                        config: Path | str) -> list[list[Finding] | None]:
    """Each item's findings from the cache, the missing ones analysed in one batch (and cached, with the
    latest findings without examples, unless the engine failed)."""
    keys = [_key(engine, it, config) for it in items]
    results: list[list[Finding] | None] = [_cache.get("findings", k) for k in keys]
    todo = [n for n, r in enumerate(results) if r is None]
    if not todo:
        return results
    cwd = ws.root if ws is not None else Path.cwd()
    from sgtools.rules.analysis.service import analyse_items  # scans only read the cache: load it to analyse

    try:
        fresh = analyse_items(engine, [items[n] for n in todo], config=config, cwd=cwd)
    except SgToolsError as exc:
        fresh = [[F.finding(F.NOT_ANALYSED, F.INFO, "rule", f"the rule could not be analysed: {exc}")]
                 for _ in todo]
    for n, found in zip(todo, fresh, strict=True):
        results[n] = found
        if not any(f["code"] == F.NOT_ANALYSED for f in found):
            _cache.put("findings", keys[n], found)
            _cache.put("latest", _latest_key(engine, items[n], config),
                       [f for f in found if f["code"] not in _EXAMPLE_CODES])
    return results


def analyse_rule(ws: Workspace | None, engine: Engine, rule: Mapping[str, Any] | str,
                 examples: Examples | None = None, *, config: Path | str = NO_CONFIG) -> list[Finding]:
    """Findings for one rule (a document or its YAML), checked against `examples` when given."""
    return analyse_rules(ws, engine, [rule], examples=[examples], config=config)[0]
