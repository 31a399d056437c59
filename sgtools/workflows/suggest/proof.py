"""Proof on the project's own code (issue 29, part 3): every candidate run over the workspace's files of its
language, within a file cap and a time cap, before anything is saved.

The project is the held-out set an agent has: per candidate, how many places it flags and up to three of them,
and where the candidates disagree (places one flags that another does not). All candidates go into one
multi-document rule file and one ast-grep call over the listed files. The walk skips hidden folders and the
default excludes (dependencies, virtual environments, build output), as a scan does.
"""

from __future__ import annotations

import fnmatch
import os
import re
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sgtools.contracts.suggest import CandidateProof, WorkspaceProof
from sgtools.core import languages
from sgtools.core.errors import SgToolsError, Timeout
from sgtools.core.settings import Settings
from sgtools.engine.process import NO_CONFIG, Engine
from sgtools.project.excludes import DEFAULT_EXCLUDES
from sgtools.workflows.suggest import scope
from sgtools.workflows.suggest.verify import rules_file

if TYPE_CHECKING:
    from sgtools.engine.match import AstGrepMatch

_SHOWN = 3  # places shown per candidate
_DIRS = frozenset(e for e in DEFAULT_EXCLUDES if "*" not in e)
_GLOBS = tuple(e for e in DEFAULT_EXCLUDES if "*" in e)


_EXCLUDED = re.compile("|".join(fnmatch.translate(g) for g in _GLOBS)) if _GLOBS else None


def _walk(root: Path) -> Iterator[str]:
    """Relative paths (`/`-separated), in sorted walk order; string work only, no per-file path objects (2,000
    files: this walk took 0.4 s with os.path.relpath and a fnmatch per glob, on a loaded 2-core VM)."""
    base = os.fspath(root)
    cut = len(base.rstrip(os.sep)) + 1
    for here, dirs, files in os.walk(base):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in _DIRS)
        prefix = here[cut:].replace(os.sep, "/") + "/" if len(here) >= cut else ""
        for name in sorted(files):
            if _EXCLUDED is None or not _EXCLUDED.match(name):
                yield prefix + name


def files_of(root: Path, language: str, cap: int, paths: Mapping[str, Any] | None = None) -> tuple[list[str], bool]:
    """Up to `cap` workspace files of `language` (relative paths, in walk order) in the path scope (`files` /
    `ignores` globs), and whether more exist."""
    found: list[str] = []
    by_suffix: dict[str, bool] = {}
    for rel in _walk(root):
        suffix = rel[rel.rfind("/") + 1:].rpartition(".")[2].lower()
        ours = by_suffix.get(suffix)
        if ours is None:
            ours = by_suffix[suffix] = languages.from_path(rel) == language
        if not ours or (paths and not scope.keeps(paths, rel)):
            continue
        if len(found) == cap:
            return found, True
        found.append(rel)
    return found, False


_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_WORD_BYTES = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")
# `^(get|post)$`: each name once, `|` between (nested `(?:name\|?)+` backtracked exponentially on a long regex that
# is not a list of names: a rule's regex could hang the proof).
_LITERAL_NAMES = re.compile(r"\^\(?([A-Za-z_][A-Za-z0-9_]*(?:\|[A-Za-z_][A-Za-z0-9_]*)*)\)?\$")
_EDGES = frozenset({"AT_BEGINNING", "AT_END", "AT_BEGINNING_STRING", "AT_END_STRING", "AT_BOUNDARY"})


Clauses = list[frozenset[str]]  # words the code must contain: one of each set (all the sets)


def clauses(rule: Any) -> Clauses:
    """Necessary words of the code a rule matches, as clauses (every clause needs one of its words); empty when
    nothing can be read off the rule (a bare kind, a context pattern, a regex that is not a list of names)."""
    if not isinstance(rule, Mapping):
        return []
    out: Clauses = []
    pattern = rule.get("pattern")
    if isinstance(pattern, str):
        out += [frozenset({w}) for w in _WORD.findall(re.sub(r"\$+[A-Z_][A-Z0-9_]*", " ", pattern)) if len(w) > 1]
    regex = rule.get("regex")
    if isinstance(regex, str):
        out += regex_clauses(regex)
    for key in ("has", "inside"):
        out += clauses(rule.get(key))
    for part in rule.get("all") or []:
        out += clauses(part)
    alternatives = [clauses(part) for part in rule.get("any") or []]
    if alternatives and all(alternatives):
        out.append(frozenset().union(*(a[0] for a in alternatives)))
    return out


_TOKEN = re.compile(r"[A-Za-z0-9_]+")


def may_match(needs: Clauses, text: str) -> bool:
    """Whether `text` holds a word of each clause, as a whole word (False: the rule the clauses are read off
    cannot match it, and ast-grep need not be asked)."""
    if not needs:
        return True
    tokens = set(_TOKEN.findall(text))
    return all(clause & tokens for clause in needs)


def regex_clauses(regex: str) -> Clauses:
    """Whole words a node's text must hold for `regex` to match it, as clauses: a word (or a group of words that
    are alternatives) bounded on both sides by an anchor, `\\b` or a character that is not a word character
    (`^(requests|session)\\.(get|post)$`: {requests, session} and {get, post}; `^(builtins\\.)?eval$`: {eval}).
    Empty when none can be read off it (Python's parser reads it: a regex it refuses, or one ignoring case, gives
    none; ast-grep then decides, so a missed word only costs reading more files)."""
    # A plain list of names, read as written: Python's parser writes `^(get|getAll)$` as `^get(|All)$` (an empty
    # alternative) and `^(a|b)$` as a character class, neither of which the walk below reads as words.
    names = _LITERAL_NAMES.fullmatch(regex)
    if names is not None:
        return [frozenset(w for w in names.group(1).split("|") if w)]
    try:
        parsed = re._parser.parse(regex)  # type: ignore[attr-defined]
    except (re.error, RecursionError, OverflowError, ValueError):
        return []
    if parsed.state.flags & re.IGNORECASE:
        return []
    return _seq_clauses(list(parsed))


def _seq_clauses(items: list[Any]) -> Clauses:
    if len(items) == 1 and str(items[0][0]) == "BRANCH":  # `^a$|^b$`: one of each alternative's words
        alternatives = [_seq_clauses(list(alt)) for alt in items[0][1][1]]
        return [frozenset().union(*(a[0] for a in alternatives))] if all(alternatives) else []
    units = _units(items)
    out: Clauses = []
    for i, (kind, words) in enumerate(units):
        if kind != "w" or i + 1 >= len(units) or units[i + 1][0] != "s":
            continue
        j = i - 1
        while j >= 0 and units[j][0] == "o":  # an optional part ending apart: what stands before it bounds too
            j -= 1
        if j >= 0 and units[j][0] == "s":
            out.append(words)
    return out


def _units(items: list[Any]) -> list[tuple[str, frozenset[str]]]:
    """A regex's top-level parts: ("w", words) word characters and groups of plain-word alternatives side by side
    (`e(val|xec)`, as Python's parser writes `(eval|exec)`: {eval, exec}), ("s", {}) an edge (an anchor, `\\b`, an
    ASCII character that is not a word character), ("o", {}) an optional part ending in such a character, ("x", {})
    anything else."""
    units: list[tuple[str, frozenset[str]]] = []
    for op, av in items:
        name = str(op)
        words = _words_of([(op, av)])
        if words is not None:
            if units and units[-1][0] == "w":
                words = _product(units.pop()[1], words)
            units.append(("w", words) if words else ("x", frozenset()))
        elif (name == "LITERAL" and av < 128) or (name == "AT" and str(av) in _EDGES):
            units.append(("s", frozenset()))
        elif name in ("MAX_REPEAT", "MIN_REPEAT") and av[0] == 0 and _ends_apart(list(av[2])):
            units.append(("o", frozenset()))
        else:
            units.append(("x", frozenset()))
    return units


_MAX_SPELLINGS = 64  # words one group may spell (`(a|b)(c|d)...` multiplies): past it, no words are read


def _product(left: frozenset[str], right: frozenset[str]) -> frozenset[str]:
    """Every word of `left` followed by every word of `right`; empty (read as unknown) when there are too many."""
    if len(left) * len(right) > _MAX_SPELLINGS:
        return frozenset()
    return frozenset(a + b for a in left for b in right)


def _words_of(items: list[Any]) -> frozenset[str] | None:
    """The words a sequence spells when it is word characters and groups of plain-word alternatives only
    (`get`, `(get|post)`, `e(val|xec)`), else None."""
    out = frozenset({""})
    for op, av in items:
        name = str(op)
        if name == "LITERAL" and av in _WORD_BYTES:
            part: frozenset[str] | None = frozenset({chr(av)})
        elif name == "SUBPATTERN":
            part = _words_of(list(av[3]))
        elif name == "BRANCH":
            alts = [_words_of(list(alt)) for alt in av[1]]
            part = frozenset().union(*alts) if all(a is not None for a in alts) else None  # type: ignore[arg-type]
        else:
            part = None
        if part is None:
            return None
        out = _product(out, part)
    return out if items and all(out) else None


def _ends_apart(items: list[Any]) -> bool:
    """An optional part whose text ends with a character that is not a word character (`(builtins\\.)?`)."""
    while len(items) == 1 and str(items[0][0]) == "SUBPATTERN":
        items = list(items[0][1][3])
    return bool(items) and str(items[-1][0]) == "LITERAL" and items[-1][1] not in _WORD_BYTES and items[-1][1] < 128


# The bytes of the workspace files the proof read, kept between calls: a server proves one project again and
# again, and opening and reading 2,000 files cost more than searching them (bin/bench_suggest: 36-54 ms against
# 3-11 ms for the search, a stat each 9 ms). Kept per (path, mtime, ctime, size, inode), within a byte budget; a
# file changed in the last 2 s is read afresh and not kept (scan/rulefiles.py's racy rule: a same-size edit
# within one timestamp tick keeps every stat field).
_RACY_NS = 2_000_000_000
_BYTES_MAX = 32 << 20  # bytes kept in all
_FILE_MAX = 256 << 10  # a larger file is read each time
_kept: dict[str, tuple[tuple[int, int, int, int], bytes]] = {}
_kept_size = 0
_kept_lock = threading.Lock()


def _bytes(path: str) -> bytes | None:
    """The content of the file at `path` (None when it cannot be read), from the memo while its stat holds."""
    global _kept_size
    try:
        st = os.stat(path)
    except OSError:
        return None
    stamp = (st.st_mtime_ns, st.st_ctime_ns, st.st_size, st.st_ino)
    hit = _kept.get(path)
    if hit is not None and hit[0] == stamp:
        return hit[1]
    try:
        with open(path, "rb") as fh:
            data = fh.read()
    except OSError:
        return None
    if len(data) == st.st_size <= _FILE_MAX and time.time_ns() - max(st.st_mtime_ns, st.st_ctime_ns) >= _RACY_NS:
        with _kept_lock:
            if _kept_size + len(data) > _BYTES_MAX:
                _kept.clear()
                _kept_size = 0
            old = _kept.pop(path, None)
            _kept_size += len(data) - (len(old[1]) if old is not None else 0)
            _kept[path] = (stamp, data)
    return data


def _prefilter(root: Path, files: list[str], bodies: Sequence[Mapping[str, Any]]) -> list[str]:
    """Only the files that hold every word some candidate needs (all files when a candidate needs nothing
    that can be read off its rule)."""
    needs = [clauses(b.get("rule")) for b in bodies]
    if not all(needs):
        return files
    wanted = sorted(set().union(*(c for n in needs for c in n)), key=len, reverse=True)
    # One pass over the bytes finds the needed words; the byte before each is checked by hand (a look-behind at
    # the start of the regex made it ten times slower: 0.2 s over 2,000 files).
    alone = re.compile(b"(?:" + b"|".join(re.escape(w.encode()) for w in wanted) + rb")(?![A-Za-z0-9_])")
    base = os.fspath(root)
    kept = []
    for rel in files:
        data = _bytes(os.path.join(base, rel))
        if data is None:
            continue
        present = {m.group().decode() for m in alone.finditer(data)
                   if m.start() == 0 or data[m.start() - 1] not in _WORD_BYTES}
        if any(all(clause & present for clause in n) for n in needs):
            kept.append(rel)
    return kept


def _place(match: Mapping[str, Any]) -> str:
    line = int(match.get("range", {}).get("start", {}).get("line", 0)) + 1
    text = str(match.get("lines") or match.get("text") or "").strip().splitlines()
    return f"{match.get('file')}:{line}: {text[0][:100] if text else ''}"


def _key(match: Mapping[str, Any]) -> tuple[str, int]:
    return str(match.get("file")), int(match.get("range", {}).get("byteOffset", {}).get("start", 0))


def _scan(engine: Engine, root: Path, language: str, bodies: Sequence[Mapping[str, Any]], files: list[str],
          seconds: float) -> list[AstGrepMatch]:
    with rules_file(language, {f"p{i}": body for i, body in enumerate(bodies)}, "suggest-proof-") as path:
        return engine.scan(config=NO_CONFIG, cwd=root, rule_file=path, paths=files, timeout=seconds)


def prove(engine: Engine, root: Path, language: str, bodies: Sequence[Mapping[str, Any]],
          settings: Settings, paths: Mapping[str, Any] | None = None) -> tuple[WorkspaceProof, list[CandidateProof]]:
    """The workspace proof of each candidate body (`rule`, `constraints`): counts, places, disagreements; only
    files in the path scope (`files` / `ignores`) when the request asked for one."""
    cap, seconds = settings.suggest_proof_files, settings.suggest_proof_seconds
    start = time.perf_counter()
    files, capped = files_of(root, language, cap, paths)
    summary: WorkspaceProof = {"files": len(files), "fileCap": cap, "capped": capped, "secondsCap": seconds,
                               "complete": True}
    empty: list[CandidateProof] = [{"flags": 0, "places": [], "onlyThis": 0, "notThis": 0} for _ in bodies]
    if not files or not bodies:
        summary["note"] = f"no {language} files in the workspace: nothing to prove the candidates on"
        return summary, empty
    scanned = _prefilter(root, files, bodies)
    summary["read"] = len(scanned)
    try:
        matches = _scan(engine, root, language, bodies, scanned, seconds) if scanned else []
    except Timeout:
        summary["complete"] = False
        summary["note"] = f"the proof stopped at the {seconds:g} s cap (SGTOOLS_SUGGEST_PROOF_SECONDS); no counts"
        return summary, empty
    except SgToolsError as exc:
        summary["complete"] = False
        summary["note"] = f"the proof could not run: {exc.message[:200]}"
        return summary, empty
    per: list[dict[tuple[str, int], AstGrepMatch]] = [{} for _ in bodies]
    for m in matches:
        rid = str(m.get("ruleId", ""))
        if rid.startswith("p") and rid[1:].isdigit() and int(rid[1:]) < len(bodies):
            per[int(rid[1:])].setdefault(_key(m), m)
    flagged_by = [set(p) for p in per]
    out: list[CandidateProof] = []
    for i, mine in enumerate(per):
        others: set[tuple[str, int]] = set().union(*(f for j, f in enumerate(flagged_by) if j != i))
        only = sorted(flagged_by[i] - others) if len(per) > 1 else []
        item: CandidateProof = {"flags": len(mine), "places": [_place(mine[k]) for k in sorted(mine)[:_SHOWN]],
                                "onlyThis": len(only), "notThis": len(others - flagged_by[i])}
        if only:
            item["onlyThisPlaces"] = [_place(mine[k]) for k in only[:_SHOWN]]
        out.append(item)
    summary["seconds"] = round(time.perf_counter() - start, 3)
    return summary, out
