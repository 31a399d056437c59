"""The community tools: search, show, import, and the list of sources, as plain dicts for the CLI and MCP server.

Sources are opened once per call (a fresh remote copy only when its cache TTL ran out); the ranked search
index is reused from memory or the cache dir whenever the sources' digests are unchanged. The YAML stack and the
rule store are imported only by the calls that read or write rules, so a search starts fast.
"""

from __future__ import annotations

import difflib
import functools
import json
from pathlib import Path
from typing import Any

from sgtools.community.build import rule_documents
from sgtools.community.index import UNKNOWN_LICENSE
from sgtools.community.search import SearchIndex, from_source, index_key, load_or_build
from sgtools.community.sources import Source, SourceSet, cache_dir, load_sources
from sgtools.contracts.common import SourceStatus
from sgtools.contracts.community import (
    CommunityMatch,
    CommunityRule,
    CommunityRuleDetails,
    ImportCommunityRuleResult,
    SearchCommunityRulesResult,
    SourcesUpdate,
)
from sgtools.core.cache import JsonCache
from sgtools.core.digest import sha256
from sgtools.core.errors import BadInput, NotFound, RuleInvalid, SgToolsError
from sgtools.core.settings import get_settings
from sgtools.engine.process import Engine
from sgtools.fixits import safety
from sgtools.project.workspace import Workspace, check_rule_id

DEFAULT_LIMIT = 10  # results when the caller names no limit; the cap is Settings.hard_max_results
_CLOSEST = 5


def _source_label(src: Source, entry: dict[str, Any]) -> str:
    """What a result says it came from: the bundled index's own name, else the declared name and where it
    really came from (a remote index cannot pass itself off as the bundled one)."""
    declared = str(entry.get("source") or src.name)
    return declared if src.kind == "bundled" else f"{declared} ({src.location})"


def _docs(sset: SourceSet) -> list[dict[str, Any]]:
    return [{**entry, "source": _source_label(src, entry)} for src, entry in sset.resolved()]


def search_index(sset: SourceSet) -> SearchIndex:
    key = index_key((s.location, s.digest) for s in sset.sources)
    try:
        cache: Any = cache_dir()
    except OSError:
        cache = None
    return load_or_build(key, lambda: _docs(sset), cache)


def _limit(limit: int | None) -> int:
    if limit is None:
        return DEFAULT_LIMIT
    if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
        raise BadInput(f"limit must be a positive whole number, not {limit!r}.")
    return min(limit, get_settings().hard_max_results)


def _tag_list(tags: str | list[str] | None) -> list[str]:
    if tags is None:
        return []
    items = tags.split(",") if isinstance(tags, str) else list(tags)
    return [str(t).strip().lower() for t in items if str(t).strip()]


def _check_search_language(language: str, indexed: set[str]) -> None:
    """A language that is neither ast-grep's nor any source's gets named as unknown, not "no match"."""
    from sgtools.core.languages import canonical
    from sgtools.project.languages import unknown_language_message

    if canonical(language) is None and language.strip().lower() not in indexed:
        raise BadInput(unknown_language_message(None, language) + " Community rules exist for: "
                       + ", ".join(sorted(indexed)) + ".")


def search_community_rules(query: str, language: str | None = None, tags: str | list[str] | None = None,
                           limit: int | None = None, source: str | None = None) -> SearchCommunityRulesResult:
    if not isinstance(query, str):
        raise BadInput("query must be text, e.g. `sql injection python`.")
    n = _limit(limit)
    sset = load_sources()
    index = search_index(sset)
    hits = index.search(query, language=language, tags=_tag_list(tags), limit=n, source=source)
    if not hits and source and not any(from_source(d, source) for d in index.docs):
        names = sorted({str(d.get("source")) for d in index.docs})
        raise BadInput(f"No source is named {source!r}. Sources: {', '.join(names)}.")
    if not hits and language:
        _check_search_language(language, {str(d.get("language")) for d in index.docs})
    matches: list[CommunityMatch] = [
        {"id": d["id"], "score": score, "language": d["language"], "severity": d["severity"], "message": d["message"],
         "description": d["description"], "tags": list(d["tags"]), "hasFix": bool(d["hasFix"]), "source": d["source"]}
        for d, score in hits]
    lines = [f"{m['id']}  [{m['language']}, {m['severity']}{', fix' if m['hasFix'] else ''}]  {m['description']}"
             f"  tags: {', '.join(m['tags'])}  source: {m['source']}" for m in matches]
    if not lines:
        lines = [f"No community rule matches {query!r}"
                 + (f" (language {language})" if language else "") + (f" (tags {tags})" if tags else "")
                 + ". Try fewer or broader words."]
    result: SearchCommunityRulesResult = {"success": True, "results": "\n".join(lines), "matches": matches}
    if sset.warnings():
        result["warnings"] = sset.warnings()
    return result


def _find(sset: SourceSet, rule_id: str) -> tuple[Source, dict[str, Any]]:
    check_rule_id(rule_id)
    try:
        return sset.find(rule_id)
    except NotFound:
        ids = [entry["id"] for _src, entry in sset.resolved()]
        closest = difflib.get_close_matches(rule_id, ids, n=_CLOSEST, cutoff=0.5)
        if len(closest) < _CLOSEST:
            for d, _score in search_index(sset).search(rule_id.replace("-", " "), limit=_CLOSEST):
                if d["id"] not in closest and len(closest) < _CLOSEST:
                    closest.append(d["id"])
        hint = f" Closest ids: {', '.join(closest)}." if closest else ""
        raise NotFound(f"No community rule has the id {rule_id!r}.{hint} Use search_community_rules to find one.",
                       closest=closest) from None


def _tests(src: Source, entry: dict[str, Any], warnings: list[str]) -> tuple[list[str], list[str]]:
    from sgtools.core import yamlio

    try:
        raw = src.read_tests(entry)
        if raw is None:
            return [], []
        docs = [d for d in yamlio.load_all(raw.decode("utf-8")) if d is not None]
        # A test file may hold the tests of several rules, one document each.
        doc = next((d for d in docs if isinstance(d, dict) and d.get("id") == entry["id"]),
                   docs[0] if len(docs) == 1 else None)
    except (SgToolsError, UnicodeDecodeError, yamlio.YamlError) as exc:
        warnings.append(f"the tests of {entry['id']} could not be read: {getattr(exc, 'message', exc)}")
        return [], []
    if not isinstance(doc, dict):
        warnings.append(f"the tests of {entry['id']} are not a mapping with valid/invalid lists; ignored")
        return [], []

    def cases(key: str) -> list[str]:
        value = doc.get(key) or []
        return [str(c) for c in value if isinstance(c, (str, int, float))] if isinstance(value, list) else []

    return cases("valid"), cases("invalid")


def _rule_text(src: Source, entry: dict[str, Any]) -> str:
    data = src.read_rule(entry)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise RuleInvalid(f"Rule {entry['id']} from {src.location} is not UTF-8 text. Refused.") from None
    number = entry.get("document")
    if number is None:
        return text
    docs = rule_documents(text)
    if not isinstance(number, int) or not 0 <= number < len(docs):
        raise RuleInvalid(f"The index of {src.location} places {entry['id']} at document {number} of {entry['path']}, "
                          f"which holds {len(docs)}. Rebuild that index.")
    return docs[number]


def get_community_rule_details(rule_id: str) -> CommunityRuleDetails:
    sset = load_sources()
    src, entry = _find(sset, rule_id)
    text = _rule_text(src, entry)
    warnings = list(sset.warnings())
    valid, invalid = _tests(src, entry, warnings)
    rule: CommunityRule = {
        "id": entry["id"], "language": entry["language"], "severity": entry["severity"],
        "message": entry["message"], "description": entry["description"], "tags": list(entry["tags"]),
        "yaml": text, "tests": {"valid": valid, "invalid": invalid},
        "license": entry.get("license") or UNKNOWN_LICENSE, "source": _source_label(src, entry),
        "sha256": entry["sha256"], "hasFix": bool(entry.get("hasFix")), "path": entry["path"],
    }
    details = "\n".join([
        f"{rule['id']}  ({rule['language']}, {rule['severity']}{', has fix' if rule['hasFix'] else ''})",
        f"description: {rule['description']}",
        f"tags: {', '.join(rule['tags'])}",
        f"source: {rule['source']}  license: {rule['license']}  sha256: {rule['sha256']}",
        f"tests: {len(valid)} valid, {len(invalid)} invalid example(s)",
        "",
        text.rstrip("\n"),
    ])
    result: CommunityRuleDetails = {"success": True, "details": details, "rule": rule}
    if warnings:
        result["warnings"] = warnings
    return result


_migrated = JsonCache("community-migrated-v1")


@functools.cache
def _migration_code() -> str:
    """What a migrated text depends on besides the original: ruamel's version and the code that migrates, reads
    and dumps."""
    from ruamel.yaml import __version__

    from sgtools.community import migrate
    from sgtools.core import yamlio

    return sha256(__version__.encode() + Path(migrate.__file__).read_bytes()
                  + Path(yamlio.__file__).read_bytes()).hexdigest()


def _migrate(text: str, doc: dict[str, Any], rule_id: str) -> tuple[str, list[str]]:
    """The rule brought up to the installed ast-grep; the original bytes when nothing needed changing.
    `doc` is the safely loaded (size/depth/alias-checked) document; only a rule that needs changes pays for the
    round-trip load that keeps its comments, and once per text: the migrated text and its notes are remembered
    by the original's content (in the process and in the cache directory), so importing the same rule again
    parses nothing in pure-Python YAML (the rule store remembers its own round trip the same way)."""
    from sgtools.community.migrate import migrate_rule
    from sgtools.core import yamlio

    _migrated_doc, notes = migrate_rule(doc)
    if not notes:
        return text, []
    key = sha256(json.dumps([_migration_code(), get_settings().max_rule_bytes, text],
                            ensure_ascii=False).encode("utf-8", "surrogatepass")).hexdigest()
    hit = _migrated.get("text", key)
    if isinstance(hit, dict):
        return str(hit["text"]), [str(n) for n in hit["notes"]]
    try:
        migrated, notes = migrate_rule(yamlio.load_rt(text))
    except yamlio.YamlError as exc:
        raise RuleInvalid(f"Community rule {rule_id} is not valid YAML: {exc}. Nothing was written.") from None
    out = yamlio.dump_rt(migrated)
    _migrated.put("text", key, {"text": out, "notes": list(notes)})
    return out, notes


GLOB_CHOICES = ("keep", "drop")
_GLOB_KEYS = ("files", "ignores")


def _source_globs(text: str, declared: dict[str, Any], rule_id: str, choice: str,
                  warnings: list[str]) -> str:
    """The source repository's `files`/`ignores` name its own paths (`ddtrace/**`): said at import, and dropped
    when the caller chooses, since in this project they may match nothing and the rule would never fire."""
    if choice not in GLOB_CHOICES:
        raise BadInput(f"globs must be one of {', '.join(GLOB_CHOICES)}, not {choice!r}.")
    present = {k: declared[k] for k in _GLOB_KEYS if declared.get(k)}
    if not present:
        return text
    shown = "; ".join(f"{k}: {v}" for k, v in present.items())
    if choice == "keep":
        warnings.append(f"{rule_id} keeps the source repository's globs ({shown}); they name that repository's "
                        "paths and may match nothing here. Import with globs=drop (CLI: --globs drop) to remove "
                        "them, or edit them to this project's layout.")
        return text
    from sgtools.core import yamlio

    doc = yamlio.load_rt(text)
    for key in present:
        del doc[key]
    warnings.append(f"{rule_id}: dropped the source repository's globs ({shown}); the rule applies to every file "
                    "of its language here.")
    return yamlio.dump_rt(doc)


def import_community_rule(ws: Workspace, engine: Engine, rule_id: str,
                          overwrite: bool = False, globs: str = "keep") -> ImportCommunityRuleResult:
    """Fetch (digest-checked), migrate, validate and write one community rule with its tests. A local rule with
    the same id is kept unless `overwrite` is true; a refused import writes nothing. `globs` says what becomes of
    the source repository's `files`/`ignores` (keep, with a warning, or drop)."""
    from sgtools.core import yamlio
    from sgtools.rules.store import add_or_update_rule

    sset = load_sources()
    src, entry = _find(sset, rule_id)
    text = _rule_text(src, entry)
    try:
        declared = yamlio.load_one(text)
    except yamlio.YamlError as exc:
        raise RuleInvalid(f"Community rule {rule_id} from {src.location} is not valid YAML: {exc}. Nothing was "
                          "written.") from None
    if not isinstance(declared, dict) or declared.get("id", rule_id) != rule_id:
        got = declared.get("id") if isinstance(declared, dict) else None
        raise RuleInvalid(f"The rule file of {rule_id} in {src.location} declares id {got!r}; the index and the "
                          "file disagree, so it was refused. Nothing was written.")
    warnings: list[str] = list(sset.warnings())
    valid, invalid = _tests(src, entry, warnings)
    yaml_text, notes = _migrate(_source_globs(text, declared, rule_id, globs, warnings), declared, rule_id)
    label = _source_label(src, entry)
    metadata = {"source": label, "sha256": entry["sha256"], "communityId": rule_id,
                "license": entry.get("license") or UNKNOWN_LICENSE, **safety.for_import(declared)}
    written = add_or_update_rule(
        ws, engine, rule_id, yaml_text, valid if (valid or invalid) else None, invalid if (valid or invalid) else None,
        metadata=metadata, overwrite=overwrite,
    )
    message = f"Imported {rule_id} from {label} (license {metadata['license']}) into {written['path']}."
    if notes:
        message += " Migrated for ast-grep 0.51: " + "; ".join(notes) + "."
    report = written["testResult"]
    if report is not None:
        message += " Tests " + ("passed." if report["passed"] else "FAILED: " + str(report["summary"]))
    result: ImportCommunityRuleResult = {
        "success": True, "message": message, "path": written["path"], "testPath": written["testPath"],
        "source": label, "sha256": entry["sha256"], "license": metadata["license"], "migrationNotes": notes,
        "testResult": report, "analysis": written.get("analysis") or [],
    }
    warnings += written["warnings"]
    if warnings:
        result["warnings"] = warnings
    return result


def community_sources() -> list[SourceStatus]:
    """Every source in priority order with its rule count and status, for server_info and `doctor`."""
    return load_sources().to_dicts()


def update_community_sources() -> SourcesUpdate:
    """Revalidate every remote source now, ignoring the TTL; a source that fails is reported, not raised."""
    sset = load_sources(refresh=True)
    items = sset.to_dicts()
    ok = not sset.problems
    n = sum(1 for i in items if i["status"] != "error")
    return {"success": ok, "message": f"{n} of {len(items)} source(s) available.", "sources": items,
            "warnings": sset.warnings()}
