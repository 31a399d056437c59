"""`build_index` / `make_index`: a community index built from a rule repository.

Building is deterministic (sorted rules, sorted keys, fixed indentation) so a rebuild of unchanged rules
gives the same bytes, which lets CI check that a committed index is current.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sgtools.community.index import (
    AST_GREP_RANGE,
    DEFAULT_SEVERITY,
    INDEX_NAME,
    INDEX_VERSION,
    TEST_SUFFIX,
    UNKNOWN_LICENSE,
    check_relpath,
    render_index,
    validate_index,
)
from sgtools.contracts.common import SEVERITIES
from sgtools.contracts.community import BuildIndexResult, SkippedRuleFile
from sgtools.core import bounded
from sgtools.core.errors import BadInput, Conflict, NotFound, TooLarge
from sgtools.core.languages import canonical
from sgtools.project.config import yaml_files
from sgtools.project.workspace import RULE_ID, Workspace

_CWE = re.compile(r"\bCWE[-_ ]?(\d{1,5})\b", re.IGNORECASE)
_CWE_TITLE = re.compile(r"\[CWE[-_ ]?(\d{1,5})\]\s*:?\s*([^\[\n]{3,120})", re.IGNORECASE)
_DESCRIPTION_CHARS = 300
_LICENSE_FILES = ("LICENSE", "LICENSE.md", "LICENSE.txt", "LICENCE", "COPYING")


# ---- building ---------------------------------------------------------------------------------------------


@dataclass
class BuildResult:
    index: dict[str, Any]
    out: Path
    skipped: list[SkippedRuleFile] = field(default_factory=list)

    def to_dict(self) -> BuildIndexResult:
        n = len(self.index["rules"])
        return {
            "success": True,
            "message": f"Indexed {n} rule(s) into {self.out}" + (f"; skipped {len(self.skipped)}" if self.skipped
                                                                   else ""),
            "path": str(self.out),
            "ruleCount": n,
            "skipped": self.skipped,
        }


_SPDX_LINE = re.compile(r"SPDX-License-Identifier:\s*([A-Za-z0-9.+\-() ]{2,200}?)\s*(?:\*/|-->|$)", re.MULTILINE)
_SPDX_ID = r"(?:MIT|ISC|Unlicense|0BSD|Zlib|[A-Z][A-Za-z]*-\d(?:\.\d)?(?:-[A-Za-z][A-Za-z-]*)?\+?)"
_SPDX_EXPR = re.compile(rf"\(?{_SPDX_ID}(?:\s+(?:OR|AND|WITH)\s+\(?{_SPDX_ID}\)?)*\)?")


def _license_of_text(head: str) -> str | None:
    tag = _SPDX_LINE.search(head)
    if tag:
        return " ".join(tag.group(1).split())
    first = head.strip().splitlines()[0].strip() if head.strip() else ""
    if len(first) < 100 and _SPDX_EXPR.fullmatch(first):
        return first  # a LICENSE file that is just an SPDX expression
    if "Apache License" in head and "2.0" in head:
        return "Apache-2.0"
    if "MIT License" in head or "Permission is hereby granted, free of charge" in head:
        return "MIT"
    if "BSD 3-Clause" in head or ("Redistribution and use" in head and "Neither the name" in head):
        return "BSD-3-Clause"
    return None


def _package_license(directory: Path) -> str | None:
    try:
        data = json.loads(bounded.read_head(directory / "package.json", 1 << 20))
    except (OSError, ValueError):
        return None
    value = data.get("license") if isinstance(data, dict) else None
    return " ".join(value.split()) if isinstance(value, str) and _SPDX_EXPR.fullmatch(value.strip()) else None


def detect_license(directory: Path) -> str | None:
    """The SPDX licence (or expression) of a repository: an `SPDX-License-Identifier`, package.json's `license`,
    else recognised LICENSE texts; several licence files (LICENSE-APACHE, LICENSE-MIT) mean a choice: `A OR B`."""
    found: list[str] = []
    files = sorted({*(directory / n for n in _LICENSE_FILES), *directory.glob("LICEN[SC]E-*"),
                    *directory.glob("COPYING*")})
    for path in files:
        if path.is_file():
            spdx = _license_of_text(bounded.read_head(path, 8192).decode("utf-8", "replace"))
            if spdx and spdx not in found:
                found.append(spdx)
    if not found:
        pkg = _package_license(directory)
        return pkg
    return found[0] if len(found) == 1 else " OR ".join(found)


def _layout(directory: Path) -> tuple[list[Path], list[Path]]:
    """Rule and test directories, lexically under `directory`: from its sgconfig.yml when it has one, else
    `rules/` and `rule-tests/` or `tests/` (this project's and ast-grep-essentials' layouts)."""
    from sgtools.project.config import CONFIG_NAME, load_config

    rule_dirs: list[Path] = []
    test_dirs: list[Path] = []
    if (directory / CONFIG_NAME).is_file():
        ws = Workspace(directory)
        cfg = load_config(ws)
        for src, dst in ((cfg.rule_dirs, rule_dirs), (cfg.test_dirs, test_dirs)):
            for d in src:
                try:
                    dst.append(directory / d.relative_to(ws.root))
                except ValueError:
                    continue  # outside the repository: an index cannot point there
    if not any(d.is_dir() for d in rule_dirs):
        rule_dirs = [directory / "rules"]
    if not any(d.is_dir() for d in test_dirs):
        test_dirs = [directory / n for n in ("rule-tests", "tests")]
    return [d for d in rule_dirs if d.is_dir()], [d for d in test_dirs if d.is_dir()]


_PLACEHOLDER = re.compile(r"__[A-Z][A-Z0-9_]*__|\{\{[^}]*\}\}|\$\{[^}]*\}")


def _no_rules_message(root: Path) -> str:
    """Why a repository has no rule directory, naming a template config's placeholders when that is the cause."""
    try:
        text = bounded.read_head(root / "sgconfig.yml", 65536).decode("utf-8", "replace")
    except OSError:
        text = ""
    holes = sorted(set(_PLACEHOLDER.findall(text)))
    if holes:
        return (f"{root}/sgconfig.yml is a template: its rule directories are placeholders ({', '.join(holes[:5])}) "
                "that were never filled in, and there is no rules/ directory. Fill in the template (or generate "
                "the project from it) and index the result.")
    return f"{root} has no rules/ directory (and no sgconfig.yml naming one). Point at a rule repository."


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
            # one file may hold several rules' tests
            docs = yamlio.load_all(bounded.read_file(p, f"The test file {p}", "max_input_bytes").decode("utf-8"))
        except (OSError, UnicodeDecodeError, yamlio.YamlError, TooLarge):
            continue
        for doc in docs:
            if isinstance(doc, dict) and isinstance(doc.get("id"), str):
                out.setdefault(doc["id"], []).append(p)
    return out


def _pick(candidates: list[Path], language: str) -> Path:
    """Of several test files for one id, the one in the rule's language folder, else the first by path."""
    same = [p for p in candidates if canonical(p.parent.name) == language]
    return sorted(same or candidates)[0]


def rule_documents(text: str) -> list[str]:
    """The rule documents of a file, as text (comments kept), split on `---` lines; blank ones dropped.
    The index builder numbers documents this way and the importer picks them out the same way."""
    chunks: list[list[str]] = [[]]
    for line in text.splitlines(keepends=True):
        if line.rstrip() == "---" or line.startswith("--- "):
            chunks.append([])
        else:
            chunks[-1].append(line)
    docs = ["".join(c) for c in chunks]
    return [d for d in docs if any(ln.strip() and not ln.lstrip().startswith("#") for ln in d.splitlines())]


@dataclass
class _Builder:
    """One index build: the repository's layout and what has been indexed or skipped so far."""

    root: Path
    base: Path
    out_path: Path
    source_name: str
    fallback_license: str
    rule_dirs: list[Path]
    test_files: list[Path]
    result: BuildResult
    entries: dict[str, dict[str, Any]] = field(default_factory=dict)
    _by_name: dict[str, list[Path]] | None = None
    _by_id: dict[str, list[Path]] | None = None

    def skip(self, path: Path, reason: str) -> None:
        self.result.skipped.append({"path": _rel(path, self.base), "reason": reason})

    def add_file(self, path: Path) -> None:
        from sgtools.core import yamlio  # the YAML stack is only needed to build, never to read an index

        rel = _rel(path, self.base)
        if rel.startswith("../") or rel == "..":
            raise BadInput(
                f"{path} is not inside {self.base}, the directory of the index being written, so the index could "
                "not point at it. Write the index into the repository (the default) or one of its parents, or put "
                "a symlink to the repository beside the index."
            )
        try:
            check_relpath(rel, str(self.out_path))
            raw = bounded.read_file(path, f"The rule file {path}", "max_rule_bytes")
            docs = [yamlio.load_one(c) for c in rule_documents(raw.decode("utf-8"))]
        except BadInput as exc:
            self.skip(path, exc.message)
            return
        except (OSError, UnicodeDecodeError, yamlio.YamlError, TooLarge) as exc:
            self.skip(path, f"not readable as YAML: {exc}")
            return
        if not docs:
            self.skip(path, "the file holds no rule")
        for number, doc in enumerate(docs):
            self.add_rule(path, rel, raw, doc, number if len(docs) > 1 else None)

    def add_rule(self, path: Path, rel: str, raw: bytes, doc: Any, number: int | None) -> None:
        where = f" (document {number})" if number is not None else ""
        if not isinstance(doc, dict):
            self.skip(path, f"a rule document is not a mapping{where}")
            return
        rid = doc.get("id", path.stem)
        if not isinstance(rid, str) or not RULE_ID.fullmatch(rid):
            self.skip(path, f"rule id {rid!r} is not valid{where}")
            return
        if rid in self.entries:
            self.skip(path, f"rule id {rid} is already indexed from {self.entries[rid]['path']}")
            return
        lang_raw = doc.get("language")
        if not isinstance(lang_raw, str) or not lang_raw.strip() or "rule" not in doc:
            self.skip(path, f"a rule needs `language` and `rule`{where}")
            return
        language = canonical(lang_raw) or lang_raw.strip().lower()
        severity = doc.get("severity") if doc.get("severity") in (*SEVERITIES, "off") \
            else DEFAULT_SEVERITY
        folders = path.parent.relative_to(next(d for d in self.rule_dirs if d in path.parents)).parts
        entry: dict[str, Any] = {
            "id": rid,
            "language": language,
            "severity": severity,
            "message": " ".join(str(doc.get("message") or "").split())[:10000],
            "description": _describe(doc)[:10000],
            "tags": _tags(doc, language, folders),
            "path": rel,
            "tests": self.tests_for(rid, language),
            "sha256": hashlib.sha256(raw).hexdigest(),
            "hasFix": doc.get("fix") is not None,
            "license": _license(doc, self.fallback_license),
            "source": self.source_name,
        }
        if number is not None:
            entry["document"] = number
        self.entries[rid] = entry

    def tests_for(self, rid: str, language: str) -> str | None:
        if self._by_name is None:
            self._by_name = _tests_by_name(self.test_files)
        candidates = self._by_name.get(rid)
        if not candidates:
            if self._by_id is None:
                self._by_id = _tests_by_id(self.test_files)
            candidates = self._by_id.get(rid)
        if not candidates:
            return None
        tests = _rel(_pick(candidates, language), self.base)
        try:
            return check_relpath(tests, str(self.out_path), "tests")
        except BadInput:
            return None


def make_index(directory: str | os.PathLike[str], out: str | os.PathLike[str] | None = None, *,
               source: str | None = None, license: str | None = None, name: str | None = None) -> BuildResult:
    """The index for the rule repository at `directory`, with paths relative to `out`'s directory. Reads only."""
    # Lexical absolute paths (symlinks kept), so a repository linked beside OUT stays "inside" OUT's directory.
    root = Path(os.path.abspath(os.fspath(directory)))
    if not root.is_dir():
        raise NotFound(f"{directory} is not a directory. Pass the root of a rule repository (it holds rules/).")
    out_path = Path(os.path.abspath(os.fspath(out))) if out is not None else root / INDEX_NAME
    source_name = (source or root.name).strip()
    if not source_name:
        raise BadInput("The source name is empty. Pass --source NAME.")
    rule_dirs, test_dirs = _layout(root)
    if not rule_dirs:
        raise NotFound(_no_rules_message(root))
    builder = _Builder(root, out_path.parent, out_path, source_name,
                       license or detect_license(root) or UNKNOWN_LICENSE, rule_dirs, yaml_files(test_dirs),
                       BuildResult(index={}, out=out_path))
    for path in yaml_files(rule_dirs):
        builder.add_file(path)
    result = builder.result
    if not builder.entries and result.skipped:
        first = result.skipped[0]
        raise BadInput(f"No rule of {root} could be indexed ({len(result.skipped)} skipped; first: {first['path']}: "
                       f"{first['reason']}). Nothing was written.", skipped=result.skipped)
    index = {
        "version": INDEX_VERSION,
        "name": name or f"{source_name} community",
        "astGrep": AST_GREP_RANGE,
        "rules": [builder.entries[k] for k in sorted(builder.entries)],
    }
    validate_index(index, str(out_path))
    result.index = index
    result.skipped.sort(key=lambda s: s["path"])
    return result


def _ours(path: Path) -> bool:
    """Whether an existing file is an index this builder wrote (or could have): anything else is not ours to
    overwrite, whatever its name."""
    try:
        data = json.loads(bounded.read_file(path, f"The index {path}", "max_input_bytes"))
    except (OSError, ValueError, TooLarge):
        return False
    return isinstance(data, dict) and data.get("version") == INDEX_VERSION and isinstance(data.get("rules"), list) \
        and isinstance(data.get("name"), str)


def build_index(directory: str | os.PathLike[str], out: str | os.PathLike[str] | None = None, *,
                source: str | None = None, license: str | None = None, name: str | None = None,
                force: bool = False) -> BuildIndexResult:
    """Index a rule repository and write `index.json` (atomically) to `out`, default `<directory>/index.json`.
    A file there that is not one of our indexes is kept unless `force`."""
    result = make_index(directory, out, source=source, license=license, name=name)
    if result.out.exists() and not force and not _ours(result.out):
        raise Conflict(f"{result.out} exists and is not a context-sherpa index (another tool's index.json?); it was "
                       "left as it is. Pass -o to write elsewhere, or --force to replace it.")
    result.out.parent.mkdir(parents=True, exist_ok=True)
    target = Workspace(result.out.parent)
    with target.lock():
        target.write_bytes(result.out.name, render_index(result.index))
    return result.to_dict()


def _rel(path: Path, base: Path) -> str:
    return Path(os.path.relpath(path, base)).as_posix()
