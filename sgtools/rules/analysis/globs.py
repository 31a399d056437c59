"""Workspace checks: `files` globs that match no file, `ignores` that exclude every file, TypeScript rules that
never see the workspace's .tsx files. They depend on the files present, so they are never cached.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from sgtools.contracts.rules import Finding
from sgtools.core import languages
from sgtools.project.workspace import Workspace
from sgtools.rules.analysis import findings as F
from sgtools.rules.analysis.repairs import to_yaml

_SKIP_DIRS = {".git", "node_modules", ".venv", "venv", "__pycache__", "target", "dist", "build", ".tox"}
_MAX_FILES = 20_000  # files looked at when checking globs; a bigger tree is checked on its first files


def _files(root: Path) -> list[str]:
    out: list[str] = []
    for top, dirs, names in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in _SKIP_DIRS and not d.startswith("."))
        rel = os.path.relpath(top, root)
        for name in sorted(names):
            out.append(name if rel == "." else f"{rel}/{name}".replace(os.sep, "/"))
            if len(out) >= _MAX_FILES:
                return out
    return out


def workspace_findings(ws: Workspace, doc: Mapping[str, Any], config: Path | str) -> list[Finding]:
    lang = languages.canonical(str(doc.get("language", "")))
    has_globs = bool(doc.get("files") or doc.get("ignores"))
    if lang is None or not (has_globs or lang == "typescript"):
        return []

    base = Path(config).parent if str(config) != os.devnull else ws.root
    files = _files(base)
    mine = [f for f in files if languages.from_path(f) == lang]
    out: list[Finding] = []
    if lang == "typescript" and not doc.get("files"):
        tsx = [f for f in files if f.endswith(".tsx")]
        if tsx:
            out.append(F.finding(F.TSX_NOT_COVERED, F.WARNING, "language",
                                 f"`language: typescript` never runs on .tsx files, and the workspace has "
                                 f"{len(tsx)} (e.g. {tsx[0]}); add the same rule with `language: tsx` to cover them."))
    if not mine:
        return out
    from sgtools.core.globs import glob_list, glob_match  # loaded for rules with globs: ~7 million instructions

    out.extend(_files_findings(doc, lang, mine))
    ignores = glob_list(doc.get("ignores"))
    if ignores and all(any(glob_match(g, f) for g in ignores) for f in mine):
        out.append(F.finding(F.IGNORES_EVERYTHING, F.WARNING, "ignores",
                             f"`ignores` excludes every {lang} file of the workspace ({len(mine)}), so the rule "
                             "never runs; `files` lists where a rule runs, `ignores` where it does not."))
    return out


def _files_findings(doc: Mapping[str, Any], lang: str, mine: list[str]) -> list[Finding]:
    """A `files` glob that matches none of the workspace's files of the rule's language, with the repair when
    the glob only had a leading `./` or `/` too many."""
    from sgtools.core.globs import glob_list, glob_match

    out: list[Finding] = []
    for n, glob in enumerate(glob_list(doc.get("files"))):
        if any(glob_match(glob, f) for f in mine):
            continue
        fixed = glob.lstrip("./") if glob.startswith(("./", "/")) else None
        where = f"files[{n}]" if isinstance(doc.get("files"), list) else "files"
        msg = (f"`{glob}` matches none of the workspace's {len(mine)} {lang} files (globs are relative to the "
               f"directory of sgconfig.yml), so the rule never runs on them.")
        repair = None
        if fixed and any(glob_match(fixed, f) for f in mine):
            msg += f" Write `{fixed}`: it matches {sum(glob_match(fixed, f) for f in mine)} files."
            new_files = [fixed if g == glob else g for g in glob_list(doc.get("files"))]
            repair = to_yaml({**doc, "files": new_files})
        out.append(F.finding(F.FILES_MATCH_NOTHING, F.WARNING, where, msg, repair))
    return out
