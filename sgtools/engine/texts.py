"""Texts scanned as files: several code texts in one ast-grep call, each a file in a private temp directory
(`scan_texts`: copies under one rule file; `scan_tree`: a pending change laid out as in the project).

Checking examples, verifying fix-its and testing a draft rule all need "these texts, under this rule file":
one process for the lot, instead of one stdin call per text. The directory lives outside any workspace and is
removed at exit. `shutil` (which imports zlib, bz2 and lzma, ~7 million instructions) loads only where a text is
written: a path scan reads positions from here and never writes one.
"""

# No `from __future__ import annotations`: a NamedTuple compiles each string annotation (see core/settings.py).
import os
from collections.abc import Sequence
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, NamedTuple

from sgtools.engine.process import Engine
from sgtools.engine.tempdirs import work_dir

if TYPE_CHECKING:
    from sgtools.engine.match import AstGrepMatch


def normalize_file(name: str | None) -> str | None:
    """`./src/a.py` or `src\\a.py` (as ast-grep prints a path) as the `/` path the SPEC returns."""
    if name is None:
        return None
    text = name.replace("\\", "/")
    while text.startswith("./"):
        text = text[2:]
    return text


def scan_texts(engine: Engine, cfg_path: Path | str, rules_path: Path, file_name: str,
               texts: Sequence[str]) -> "list[list[AstGrepMatch]]":
    """Scan several texts in one ast-grep call (files in a private temp dir); matches per text, in order."""
    if not texts:
        return []
    _stem, dot, ext = file_name.rpartition(".")
    names = [f"t{i}{dot}{ext}" for i in range(len(texts))]
    with work_dir("texts") as work:
        for name, text in zip(names, texts, strict=True):
            (work / name).write_bytes(text.encode("utf-8"))
        raw = engine.scan(config=cfg_path, cwd=work, rule_file=rules_path, paths=names)
    position = {name: i for i, name in enumerate(names)}
    out: list[list[AstGrepMatch]] = [[] for _ in texts]
    for m in raw:
        i = position.get(normalize_file(str(m.get("file"))) or "")
        if i is not None:
            out[i].append(m)
    return out


OVERLAY_RULES = ".sgtools-overlay-rules.yml"  # the rule file's name at the root of an overlay (not a pending path)


class TreeFile(NamedTuple):
    """One pending file of an overlay: `key` names it in the results (its virtual workspace path), `where` is
    its path relative to the project root (the sgconfig directory), None when it lies outside that root."""

    key: str
    where: str | None
    text: str


def _laid_out(base: Path, f: TreeFile) -> Path:
    """Where `f` goes under `base`: `p/<where>` inside the project copy, `o/<key>` beside it when outside."""
    rel = PurePosixPath(f.where if f.where is not None else f.key)
    if rel.is_absolute() or ".." in rel.parts or not rel.parts or rel.parts == (OVERLAY_RULES,):
        raise ValueError(f"overlay path {rel} is not a plain relative path")  # callers confine paths first
    return base / ("p" if f.where is not None else "o") / Path(*rel.parts)


def scan_tree(engine: Engine, cfg_path: Path | str, rules_path: Path, files: Sequence[TreeFile],
              *, extra: Sequence[str] = ()) -> "list[AstGrepMatch]":
    """Scan pending files as one tree, in one ast-grep call: each laid out in a private temp directory at its
    path relative to the project root, so `files`/`ignores` globs and `languageGlobs` apply as in
    `ast-grep scan` of those files on disk. ast-grep matches the globs of a `-r` rule file against a path
    relative to that file's own directory when the path lies under it, so the rule file is copied to the root
    of the copy; `-c` stays the project's config (global utils, custom languages). Each match's `file` is its
    TreeFile's `key`. Nothing is written in the workspace. A warm engine (documents opened under these virtual
    paths) can replace this call."""
    if not files:
        return []
    import shutil

    with work_dir("tree") as base:
        project = base / "p"
        project.mkdir(exist_ok=True)
        rules_copy = project / OVERLAY_RULES
        shutil.copyfile(rules_path, rules_copy)
        names: dict[str, str] = {}
        for f in files:
            target = _laid_out(base, f)
            if target.is_dir():  # an empty directory an earlier call left where this call has a file
                shutil.rmtree(target)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(f.text.encode("utf-8"))
            names[os.path.relpath(target, project).replace(os.sep, "/")] = f.key
        raw = engine.scan(config=cfg_path, cwd=project, rule_file=rules_copy, paths=list(names),
                          extra=extra)
    out: list[AstGrepMatch] = []
    for m in raw:
        key = names.get(normalize_file(str(m.get("file"))) or "")
        if key is not None:
            m["file"] = key
            out.append(m)
    return out
