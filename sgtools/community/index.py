"""The community index format (`index.json`, version 1): checking one on load, and building one from a rule repo.

An index is the only thing a client reads before it decides to fetch a rule, so everything in it is treated
as hostile until `validate_index` has passed it: the JSON Schema (`index_schema.json`) fixes the shape, and
the checks here add what a schema cannot say (unique ids, paths that cannot leave the index's location).
Building is deterministic (sorted rules, sorted keys, fixed indentation) so a rebuild of unchanged rules
gives the same bytes, which lets CI check that a committed index is current.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sgtools.core.errors import BadInput, EngineFailed, NotFound
from sgtools.core.languages import canonical
from sgtools.project.config import yaml_files
from sgtools.project.workspace import RULE_ID, Workspace

INDEX_VERSION = 1
INDEX_NAME = "index.json"
AST_GREP_RANGE = ">=0.51"
SCHEMA_FILE = Path(__file__).with_name("index_schema.json")
TEST_SUFFIX = "-test"
YAML_SUFFIXES = (".yml", ".yaml")
DEFAULT_SEVERITY = "hint"  # what ast-grep assumes when a rule names none
UNKNOWN_LICENSE = "NOASSERTION"  # SPDX's word for "nobody said"
# A path segment: plain characters only, never starting with '.', so '.', '..' and hidden names are impossible.
_SEGMENT = re.compile(r"[A-Za-z0-9_@+-][A-Za-z0-9._@+-]*")
_CWE = re.compile(r"\bCWE[-_ ]?(\d{1,5})\b", re.IGNORECASE)
_CWE_TITLE = re.compile(r"\[CWE[-_ ]?(\d{1,5})\]\s*:?\s*([^\[\n]{3,120})", re.IGNORECASE)
_DESCRIPTION_CHARS = 300
_LICENSE_FILES = ("LICENSE", "LICENSE.md", "LICENSE.txt", "LICENCE", "COPYING")


# ---- loading and checking ---------------------------------------------------------------------------------


@functools.lru_cache(maxsize=1)
def _validator() -> Any:
    # jsonschema costs ~100 ms to import: only pay it when an index is actually checked.
    import jsonschema

    try:
        schema = json.loads(SCHEMA_FILE.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise EngineFailed(f"The community index schema {SCHEMA_FILE} is missing or broken ({exc}); this install "
                           "is incomplete. Reinstall context-sherpa.") from None
    return jsonschema.Draft202012Validator(schema)


def check_relpath(path: object, where: str, what: str = "path") -> str:
    """A rule or test path from an index: relative, `/`-separated, no `..`, nothing that could leave the
    index's directory or URL (independent of the schema, so a schema change cannot open a traversal)."""
    if not isinstance(path, str) or not path or len(path) > 1024:
        raise BadInput(f"The community index {where} has an empty or oversized `{what}`. Fix or remove that source.")
    parts = path.split("/")
    if path.startswith("/") or "\\" in path or ":" in path or not all(_SEGMENT.fullmatch(p) for p in parts):
        raise BadInput(
            f"The community index {where} has `{what}: {path[:200]!r}`, which is absolute, contains `..` or other "
            "characters that could leave the index's location. Refused: fix or remove that source."
        )
    if not path.endswith(YAML_SUFFIXES):
        raise BadInput(f"The community index {where} has `{what}: {path[:200]!r}`, which is not a .yml file. Refused.")
    return path


def parse_index(raw: bytes, where: str, *, schema: bool = True) -> dict[str, Any]:
    """Bytes of an `index.json` -> the checked index; every problem names the source it came from.
    `schema=False` skips only the JSON Schema pass (for bytes whose digest already passed it); the id and path
    checks always run."""
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise BadInput(
            f"The community index {where} is not valid JSON ({exc}). Fix the file, or remove that source from "
            "SGTOOLS_COMMUNITY_SOURCES / the config file."
        ) from None
    return validate_index(data, where, schema=schema)


def validate_index(data: Any, where: str, *, schema: bool = True) -> dict[str, Any]:
    errors = sorted(_validator().iter_errors(data), key=lambda e: (list(e.absolute_path), e.message)) \
        if schema else []
    if errors:
        err = errors[0]
        at = "/".join(str(p) for p in err.absolute_path) or "(top level)"
        raise BadInput(
            f"The community index {where} does not match the index v1 schema at {at}: {err.message[:300]}. "
            "Rebuild it with `sgtools community build-index`, or remove that source."
        )
    seen: set[str] = set()
    for entry in data["rules"]:
        rid = entry["id"]
        if not RULE_ID.fullmatch(rid) or rid in seen:
            problem = "is not a valid rule id" if not RULE_ID.fullmatch(rid) else "appears twice"
            raise BadInput(f"The community index {where}: rule id {rid[:200]!r} {problem}. Refused that source.")
        seen.add(rid)
        check_relpath(entry["path"], where)
        if entry.get("tests") is not None:
            check_relpath(entry["tests"], where, "tests")
    return data  # type: ignore[no-any-return]


def render_index(index: dict[str, Any]) -> bytes:
    """The canonical bytes of an index: what `build-index` writes and what a rebuild must reproduce."""
    return (json.dumps(index, sort_keys=True, indent=2, ensure_ascii=False) + "\n").encode("utf-8")


# ---- building ---------------------------------------------------------------------------------------------


@dataclass
class BuildResult:
    index: dict[str, Any]
    out: Path
    skipped: list[dict[str, str]] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        n = len(self.index["rules"])
        return {
            "success": True,
            "message": f"Indexed {n} rule(s) into {self.out}" + (f"; skipped {len(self.skipped)}" if self.skipped
                                                                   else ""),
            "path": str(self.out),
            "ruleCount": n,
            "skipped": self.skipped,
        }


def detect_license(directory: Path) -> str | None:
    """The SPDX id of a repository's LICENSE file, for the two licences rule repositories actually use."""
    for name in _LICENSE_FILES:
        path = directory / name
        if path.is_file():
            head = path.read_bytes()[:8192].decode("utf-8", "replace")
            if "Apache License" in head and "2.0" in head:
                return "Apache-2.0"
            if "MIT License" in head or "Permission is hereby granted, free of charge" in head:
                return "MIT"
    return None


def _layout(directory: Path) -> tuple[list[Path], list[Path]]:
    """Rule and test directories, lexically under `directory`: from its sgconfig.yml when it has one, else
    `rules/` and `rule-tests/` or `tests/` (this project's and ast-grep-essentials' layouts)."""
    from sgtools.project import config as project

    rule_dirs: list[Path] = []
    test_dirs: list[Path] = []
    if (directory / project.CONFIG_NAME).is_file():
        ws = Workspace(directory)
        cfg = project.load(ws)
        for src, dst in ((cfg.rule_dirs, rule_dirs), (cfg.test_dirs, test_dirs)):
            for d in src:
                try:
                    dst.append(directory / d.relative_to(ws.root))
                except ValueError:
                    continue  # outside the repository: an index cannot point there
    if not rule_dirs:
        rule_dirs = [directory / "rules"]
    if not test_dirs:
        test_dirs = [directory / n for n in ("rule-tests", "tests")]
    return [d for d in rule_dirs if d.is_dir()], [d for d in test_dirs if d.is_dir()]


def _metadata(doc: dict[str, Any]) -> dict[str, Any]:
    meta = doc.get("metadata")
    return meta if isinstance(meta, dict) else {}


def _describe(doc: dict[str, Any]) -> str:
    meta = _metadata(doc)
    if isinstance(meta.get("description"), str) and meta["description"].strip():
        return " ".join(meta["description"].split())
    message = " ".join(str(doc.get("message") or "").split()).strip("\"' ")
    note = str(doc.get("note") or "")
    first = re.split(r"(?<=[.!?])\s", message, maxsplit=1)[0] if message else ""
    if not first:
        first = " ".join(note.split())
    title = _CWE_TITLE.search(note)
    if title:
        extra = f"(CWE-{title.group(1)}: {title.group(2).strip().rstrip('.')})"
        if extra.lower() not in first.lower():
            first = f"{first} {extra}".strip()
    if len(first) > _DESCRIPTION_CHARS:
        first = first[: _DESCRIPTION_CHARS - 1].rstrip() + "…"
    return first


def _tags(doc: dict[str, Any], language: str, folders: tuple[str, ...]) -> list[str]:
    meta = _metadata(doc)
    raw = meta.get("tags")
    tags: list[str] = []
    if isinstance(raw, str):
        raw = [t for t in re.split(r"[,\s]+", raw) if t]
    if isinstance(raw, list):
        tags += [str(t).strip().lower() for t in raw if str(t).strip()]
    text = " ".join(str(doc.get(k) or "") for k in ("note", "message")) + " " + str(meta.get("cwe") or "")
    tags += [f"cwe-{int(n)}" for n in _CWE.findall(text)]
    tags += [f.lower() for f in folders if canonical(f) is None]  # e.g. rules/python/security/x.yml -> security
    tags.append(language)
    out: list[str] = []
    for t in tags:
        t = t[:64]
        if t and t not in out:
            out.append(t)
    return out[:64]


def _license(doc: dict[str, Any], fallback: str) -> str:
    meta = _metadata(doc)
    value = meta.get("license")
    return str(value).strip()[:200] if isinstance(value, str) and value.strip() else fallback


def _tests_by_name(test_files: list[Path]) -> dict[str, list[Path]]:
    by_name: dict[str, list[Path]] = {}
    for p in test_files:
        if p.stem.endswith(TEST_SUFFIX):
            by_name.setdefault(p.stem[: -len(TEST_SUFFIX)], []).append(p)
    return by_name


def _tests_by_id(test_files: list[Path]) -> dict[str, list[Path]]:
    """Fallback for tests not named `<id>-test.yml`: read each file's `id`."""
    from sgtools.core import yamlio

    out: dict[str, list[Path]] = {}
    for p in test_files:
        try:
            doc = yamlio.load_one(p.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, yamlio.YamlError):
            continue
        if isinstance(doc, dict) and isinstance(doc.get("id"), str):
            out.setdefault(doc["id"], []).append(p)
    return out


def _pick(candidates: list[Path], language: str) -> Path:
    """Of several test files for one id, the one in the rule's language folder, else the first by path."""
    same = [p for p in candidates if canonical(p.parent.name) == language]
    return sorted(same or candidates)[0]


def make_index(directory: str | os.PathLike[str], out: str | os.PathLike[str] | None = None, *,
               source: str | None = None, license: str | None = None, name: str | None = None) -> BuildResult:
    """The index for the rule repository at `directory`, with paths relative to `out`'s directory. Reads only."""
    from sgtools.core import yamlio  # the YAML stack is only needed to build, never to read an index

    # Lexical absolute paths (symlinks kept), so a repository linked beside OUT stays "inside" OUT's directory.
    root = Path(os.path.abspath(os.fspath(directory)))
    if not root.is_dir():
        raise NotFound(f"{directory} is not a directory. Pass the root of a rule repository (it holds rules/).")
    out_path = Path(os.path.abspath(os.fspath(out))) if out is not None else root / INDEX_NAME
    base = out_path.parent
    source_name = (source or root.name).strip()
    if not source_name:
        raise BadInput("The source name is empty. Pass --source NAME.")
    fallback_license = license or detect_license(root) or UNKNOWN_LICENSE
    rule_dirs, test_dirs = _layout(root)
    if not rule_dirs:
        raise NotFound(f"{root} has no rules/ directory (and no sgconfig.yml naming one). Point at a rule repository.")
    test_files = yaml_files(test_dirs)
    tests_by_name = _tests_by_name(test_files)
    tests_by_id: dict[str, list[Path]] | None = None
    result = BuildResult(index={}, out=out_path)
    entries: dict[str, dict[str, Any]] = {}

    def skip(path: Path, reason: str) -> None:
        result.skipped.append({"path": _rel(path, base), "reason": reason})

    for path in yaml_files(rule_dirs):
        rel = _rel(path, base)
        if rel.startswith("../") or rel == "..":
            raise BadInput(
                f"{path} is not inside {base}, the directory of the index being written, so the index could not "
                "point at it. Write the index into the repository (the default) or one of its parents, or put a "
                "symlink to the repository beside the index."
            )
        try:
            raw = path.read_bytes()
            docs = [d for d in yamlio.load_all(raw.decode("utf-8")) if d is not None]
        except (OSError, UnicodeDecodeError, yamlio.YamlError) as exc:
            skip(path, f"not readable as YAML: {exc}")
            continue
        if len(docs) != 1 or not isinstance(docs[0], dict):
            skip(path, "an index entry is one rule per file; this file holds "
                       + (f"{len(docs)} documents" if len(docs) != 1 else "no mapping"))
            continue
        doc: dict[str, Any] = docs[0]
        rid = doc.get("id", path.stem)
        if not isinstance(rid, str) or not RULE_ID.fullmatch(rid):
            skip(path, f"rule id {rid!r} is not valid")
            continue
        if rid in entries:
            skip(path, f"rule id {rid} is already indexed from {entries[rid]['path']}")
            continue
        lang_raw = doc.get("language")
        if not isinstance(lang_raw, str) or not lang_raw.strip() or "rule" not in doc:
            skip(path, "a rule needs `language` and `rule`")
            continue
        language = canonical(lang_raw) or lang_raw.strip().lower()
        try:
            check_relpath(rel, str(out_path))
        except BadInput as exc:
            skip(path, exc.message)
            continue
        candidates = tests_by_name.get(rid)
        if not candidates:
            if tests_by_id is None:
                tests_by_id = _tests_by_id(test_files)
            candidates = tests_by_id.get(rid)
        tests = _rel(_pick(candidates, language), base) if candidates else None
        if tests is not None:
            try:
                check_relpath(tests, str(out_path), "tests")
            except BadInput:
                tests = None
        severity = doc.get("severity") if doc.get("severity") in ("error", "warning", "info", "hint", "off") \
            else DEFAULT_SEVERITY
        folders = path.parent.relative_to(next(d for d in rule_dirs if d in path.parents)).parts
        entries[rid] = {
            "id": rid,
            "language": language,
            "severity": severity,
            "message": " ".join(str(doc.get("message") or "").split())[:10000],
            "description": _describe(doc)[:10000],
            "tags": _tags(doc, language, folders),
            "path": rel,
            "tests": tests,
            "sha256": hashlib.sha256(raw).hexdigest(),
            "hasFix": doc.get("fix") is not None,
            "license": _license(doc, fallback_license),
            "source": source_name,
        }
    index = {
        "version": INDEX_VERSION,
        "name": name or f"{source_name} community",
        "astGrep": AST_GREP_RANGE,
        "rules": [entries[k] for k in sorted(entries)],
    }
    validate_index(index, str(out_path))
    result.index = index
    result.skipped.sort(key=lambda s: s["path"])
    return result


def build_index(directory: str | os.PathLike[str], out: str | os.PathLike[str] | None = None, *,
                source: str | None = None, license: str | None = None, name: str | None = None) -> dict[str, Any]:
    """Index a rule repository and write `index.json` (atomically) to `out`, default `<directory>/index.json`."""
    result = make_index(directory, out, source=source, license=license, name=name)
    result.out.parent.mkdir(parents=True, exist_ok=True)
    target = Workspace(result.out.parent)
    with target.lock():
        target.write_bytes(result.out.name, render_index(result.index))
    return result.to_dict()


def _rel(path: Path, base: Path) -> str:
    return Path(os.path.relpath(path, base)).as_posix()
