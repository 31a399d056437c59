"""Texts scanned as files: several code texts in one ast-grep call, each a file in a private temp directory.

Checking examples, verifying fix-its and testing a draft rule all need "these texts, under this rule file":
one process for the lot, instead of one stdin call per text. The directory lives outside any workspace and is
removed at exit.
"""

from __future__ import annotations

import atexit
import shutil
import tempfile
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from sgtools.engine.process import Engine

_lock = threading.Lock()
_tmp_root: Path | None = None


def tmp_root() -> Path:
    """A private directory outside any workspace for rule files and edited texts; removed at exit."""
    global _tmp_root
    with _lock:
        if _tmp_root is None or not _tmp_root.is_dir():
            _tmp_root = Path(tempfile.mkdtemp(prefix="sgtools-scan-"))
            atexit.register(shutil.rmtree, str(_tmp_root), True)
        return _tmp_root


def normalize_file(name: str | None) -> str | None:
    """`./src/a.py` or `src\\a.py` (as ast-grep prints a path) as the `/` path the SPEC returns."""
    if name is None:
        return None
    text = name.replace("\\", "/")
    while text.startswith("./"):
        text = text[2:]
    return text


def scan_texts(engine: Engine, cfg_path: Path | str, rules_path: Path, file_name: str,
               texts: Sequence[str]) -> list[list[dict[str, Any]]]:
    """Scan several texts in one ast-grep call (files in a private temp dir); matches per text, in order."""
    if not texts:
        return []
    _stem, dot, ext = file_name.rpartition(".")
    work = Path(tempfile.mkdtemp(prefix="texts-", dir=tmp_root()))
    try:
        names = [f"t{i}{dot}{ext}" for i in range(len(texts))]
        for name, text in zip(names, texts, strict=True):
            (work / name).write_bytes(text.encode("utf-8"))
        raw = engine.scan(config=cfg_path, cwd=work, rule_file=rules_path, paths=names)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    position = {name: i for i, name in enumerate(names)}
    out: list[list[dict[str, Any]]] = [[] for _ in texts]
    for m in raw:
        i = position.get(normalize_file(str(m.get("file"))) or "")
        if i is not None:
            out[i].append(m)
    return out
