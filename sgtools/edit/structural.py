"""Structural search and rewrite with an ad-hoc pattern (`ast-grep run -p [-r]`), no rule file needed.

Results use the SPEC's positions (1-based, code-point columns, end exclusive) and workspace-relative
paths. A rewrite is computed here from ast-grep's `replacementOffsets` rather than by `ast-grep -U`, so the
preview diff and the written bytes are the same computation, and the write goes through `write_files`.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from sgtools.contracts.edit import Change, CodeMatch, FindCodeResult, RewriteCodeResult, SkippedChange
from sgtools.core import languages
from sgtools.core.errors import BadInput, Conflict, EngineFailed, TooLarge
from sgtools.core.settings import Settings, requested_results
from sgtools.edit.text import (
    LineIndex,
    Span,
    apply_edits_skipping,
    match_style,
    position,
    read_source,
    write_previewed,
)
from sgtools.engine.captures import captures
from sgtools.engine.process import Engine
from sgtools.project.confine import confined_matches, dropped_note, engine_paths, within
from sgtools.project.workspace import Workspace
from sgtools.rules.syntax import check_code_arg, pattern_refusal_hint, problem_nodes

if TYPE_CHECKING:
    from sgtools.engine.match import PatternMatch

# ast-grep's exit code for a pattern (or any query) it cannot parse.
_PARSE_ERROR = 8
# Separators that ast-grep lists among a $$$ capture's nodes; they are not part of what the user captured.
_SEPARATOR = re.compile(r"^[,;]+$")
_METAVAR = re.compile(r"\$\$?\$?([A-Z_][A-Z0-9_]*)")


def result_cap(max_results: object, settings: Settings) -> int:
    """The caller's cap, else the default; never above the hard maximum."""
    cap = requested_results(max_results, settings)
    limit = settings.hard_max_results
    if cap > limit:
        raise TooLarge(f"max_results {cap} is above the limit of {limit}. Ask for fewer, or narrow the paths.")
    return cap


def search_paths(ws: Workspace, paths: Sequence[str] | None) -> list[str]:
    """Each path confined to the workspace and existing, relative to the root; the whole root by default."""
    if isinstance(paths, str):
        paths = [paths]
    if paths is None or (isinstance(paths, (list, tuple)) and not paths):
        return ["."]
    if not isinstance(paths, (list, tuple)):
        raise BadInput("paths must be a list of paths relative to the workspace root, e.g. [\"src\"].")
    out: list[str] = []
    for p in paths:
        if not isinstance(p, str):
            raise BadInput(f"Each path must be a string, not {type(p).__name__}.")
        rel = ws.relative(ws.resolve(p, must_exist=True))
        if rel not in out:
            out.append(rel)
    return out


def pattern_matches(
    ws: Workspace, engine: Engine, pattern: str, language: str, paths: Sequence[str] | None,
    rewrite: str | None = None,
) -> tuple[str, list[PatternMatch], list[str]]:
    """The canonical language and ast-grep's raw matches, sorted by file and offset. A pattern ast-grep
    cannot parse becomes `BadInput` with its cause and a hint. Third: the files whose matches were dropped
    because the file changed, or a folder on its path became a symlink, while ast-grep read it (confine.py)."""
    lang = languages.require(language)
    check_code_arg(pattern, "pattern", ws.settings)
    if rewrite is not None:
        check_rewrite(pattern, rewrite, ws.settings)
    targets, asked = engine_paths(search_paths(ws, paths))  # a name that is not UTF-8: its folder, then filtered
    try:
        raw = engine.run_pattern(pattern, lang, cwd=ws.root, paths=targets, rewrite=rewrite)
    except EngineFailed as exc:
        if exc.details.get("exitCode") != _PARSE_ERROR:
            raise
        causes = exc.details.get("causes") or [exc.details.get("error") or exc.message]
        raise BadInput(
            pattern_refusal_hint(ws, engine, pattern, lang, causes)
            + " The dump_syntax_tree tool with format \"pattern\" shows how ast-grep reads it."
        ) from None
    for m in raw:
        m["file"] = ws.relative(os.path.normpath(ws.root / m["file"]))
    raw, moved = confined_matches(ws, raw)  # never text read through a folder swapped for a symlink
    raw = within(raw, asked)
    raw.sort(key=lambda m: (m["file"], m["range"]["byteOffset"]["start"], -m["range"]["byteOffset"]["end"]))
    return lang, raw, moved


def check_rewrite(pattern: str, rewrite: object, settings: Settings) -> str:
    """The rewrite must be text, and use only metavariables the pattern captures: ast-grep silently
    substitutes an unknown `$B` with nothing, which would delete code."""
    if not isinstance(rewrite, str):
        raise BadInput(f"The rewrite must be text, not {type(rewrite).__name__}.")
    check_code_arg(rewrite, "rewrite", settings, allow_blank=True)
    captured = set(_METAVAR.findall(pattern))
    unknown = sorted(set(_METAVAR.findall(rewrite)) - captured - {"_"})
    if unknown:
        names = ", ".join("$" + n for n in unknown)
        raise BadInput(
            f"The rewrite uses {names}, which the pattern does not capture, so ast-grep would replace it with "
            "nothing. Capture it in the pattern, or fix the name (metavariables are $UPPER_CASE)."
        )
    return rewrite


def meta_variables(raw: PatternMatch) -> dict[str, str | list[str]]:
    """`{NAME: text}` for $NAME, `{NAME: [texts]}` for $$$NAME, without separators and `secondary`."""
    single, multi = captures(raw)
    out: dict[str, str | list[str]] = {}
    for name, node in sorted(single.items()):
        out[name] = node["text"]
    for name, nodes in sorted(multi.items()):
        if name == "secondary":
            continue
        out[name] = [n["text"] for n in nodes if not _SEPARATOR.match(n["text"])]
    return out


def _no_match_hints(ws: Workspace, engine: Engine, pattern: str, lang: str, paths: Sequence[str] | None) -> list[str]:
    """Only asked when nothing matched: a pattern with ERROR nodes, or files of another language, are the
    usual reasons."""
    hints: list[str] = []
    tree, _ = engine.dump_tree(pattern, lang, "pattern", cwd=ws.root)
    nodes = problem_nodes(tree)
    if nodes:
        hints.append(
            f"Nothing matched, and ast-grep reads the pattern with {', '.join(sorted({n for n, _ in nodes}))} "
            f"nodes: it is not complete {lang} code. Check it with dump_syntax_tree (format \"pattern\")."
        )
    others = [p for p in search_paths(ws, paths) if (ws.root / p).is_file() and languages.from_path(p) != lang]
    if others:
        hints.append(
            f"{', '.join(others[:5])} {'is' if len(others) == 1 else 'are'} not {lang} file(s) by extension, so "
            f"ast-grep skipped {'it' if len(others) == 1 else 'them'}. Pass the language the files are written in."
        )
    return hints


def find_code(
    ws: Workspace, engine: Engine, pattern: str, language: str, paths: Sequence[str] | None = None,
    max_results: int | None = None,
) -> FindCodeResult:
    """`{matches[], truncated, hints[]}` for a pattern over the workspace (or `paths`)."""
    cap = result_cap(max_results, ws.settings)
    lang, raw, moved = pattern_matches(ws, engine, pattern, language, paths)
    matches: list[CodeMatch] = [
        {"file": m["file"], **position(m["range"]), "text": m["text"], "metaVariables": meta_variables(m)}
        for m in raw[:cap]
    ]
    hints = [] if raw else _no_match_hints(ws, engine, pattern, lang, paths)
    if moved:
        hints.insert(0, dropped_note(moved))
    return {"matches": matches, "truncated": len(raw) > cap, "hints": hints}


def _group(raw: Iterable[PatternMatch]) -> dict[str, list[PatternMatch]]:
    by_file: dict[str, list[PatternMatch]] = {}
    for m in raw:
        by_file.setdefault(m["file"], []).append(m)
    return by_file


def _change(file: str, index: LineIndex, span: Span) -> Change:
    return {
        "file": file,
        **index.span(span.start, span.end),
        "before": index.data[span.start:span.end].decode("utf-8"),
        "after": span.new_text,
    }


def rewrite_code(
    ws: Workspace, engine: Engine, pattern: str, rewrite: str, language: str, paths: Sequence[str] | None = None,
    apply: bool = False, *, expected_diff: str | None = None,
) -> RewriteCodeResult:
    """`{diff, changes[], skipped[], changedFiles[], applied, hints[]}`.

    Without `apply` nothing is written. With it, the files are written with exactly the diff returned, and
    only if none changed since ast-grep read them (else `Conflict`, nothing written). `expected_diff` (the
    diff of an earlier preview) makes the write conditional on the change being the one that was reviewed.
    A match nested inside another one is skipped (the outer one wins) and listed in `skipped`.
    """
    if not isinstance(apply, bool):
        raise BadInput(f"apply must be true or false, not {apply!r}.")
    lang, raw, moved = pattern_matches(ws, engine, pattern, language, paths, rewrite=rewrite)
    if moved:
        raise Conflict(f"{', '.join(moved[:3])} changed while it was being searched (or a folder on its path was "
                       "swapped for a symlink). Nothing was written; run the tool again.")
    changes: list[Change] = []
    skipped: list[SkippedChange] = []
    texts: dict[str, tuple[str, str]] = {}
    originals: dict[str, bytes] = {}
    for file, matches in sorted(_group(raw).items()):
        _target, data, text = read_source(ws, file)
        for m in matches:
            offsets = m["range"]["byteOffset"]
            if data[offsets["start"]:offsets["end"]] != m["text"].encode("utf-8"):
                raise Conflict(f"{file} changed while it was being searched. Nothing was written; run the tool again.")
        edits = [
            {"byteStart": m["replacementOffsets"]["start"], "byteEnd": m["replacementOffsets"]["end"],
             "newText": m["replacement"]}
            for m in matches
        ]
        new_text, kept, dropped = apply_edits_skipping(text, edits)
        new_text = match_style(data, text, new_text)
        index = LineIndex(data)
        changes += [_change(file, index, s) for s in kept if data[s.start:s.end] != s.new_text.encode("utf-8")]
        skipped += [{**_change(file, index, s), "reason": "inside another match that is rewritten"}
                    for s in dropped]
        if new_text != text:
            texts[file] = (text, new_text)
            originals[file] = data
    diff, written = write_previewed(ws, texts, originals, apply=apply, expected_diff=expected_diff,
                                    what="The change differs from the preview it was")
    hints = [] if raw else _no_match_hints(ws, engine, pattern, lang, paths)
    return {
        "diff": diff,
        "changes": changes,
        "skipped": skipped,
        "changedFiles": sorted(texts),
        "applied": bool(written),
        "hints": hints,
    }
