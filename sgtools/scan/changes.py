"""Which files and lines changed since a git revision, for `sgtools scan --changed-since REF`.

Changed lines come from `git diff --unified=0 REF` (the working tree against REF, so staged and unstaged edits
both count); untracked files that git does not ignore count as changed everywhere. git runs through
`engine.run_tool`, the one place that starts processes.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from sgtools.contracts.scan import Diagnostic
from sgtools.core.digest import sha256
from sgtools.core.errors import BadInput, EngineFailed
from sgtools.engine.spawn import EngineResult, run_tool
from sgtools.project.config import ProjectConfig
from sgtools.project.workspace import Workspace

_HUNK = re.compile(r"^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@")
_ESCAPES = {"a": "\a", "b": "\b", "t": "\t", "n": "\n", "v": "\v", "f": "\f", "r": "\r", '"': '"', "\\": "\\"}


@dataclass
class Changes:
    """Workspace-relative path -> changed line numbers (1-based); None means the whole file is new."""

    files: dict[str, set[int] | None] = field(default_factory=dict)

    def touches(self, diag: Diagnostic) -> bool:
        file = str(diag.get("file"))
        if file not in self.files:
            return False
        lines = self.files[file]
        if lines is None:
            return True
        start = int(diag.get("line") or 0)
        end = int(diag.get("endLine") or start)
        return any(n in lines for n in range(start, end + 1))

    def filter(self, diags: list[Diagnostic]) -> list[Diagnostic]:
        return [d for d in diags if self.touches(d)]


def git(ws: Workspace, *args: str) -> EngineResult:
    return run_tool(["git", "-c", "core.quotepath=off", *args], ws.root, ws.settings.git_timeout)


def _check(result: EngineResult, what: str) -> str:
    if result.returncode != 0:
        detail = result.stderr.strip().splitlines()
        raise BadInput(f"git could not {what}: {detail[0] if detail else f'exit {result.returncode}'}. "
                       "Check the revision name (e.g. origin/main, HEAD~1) and that this is a git repository.")
    return result.stdout.decode("utf-8", "surrogateescape")


def toplevel(ws: Workspace) -> Path:
    try:
        out = _check(git(ws, "rev-parse", "--show-toplevel"), "find the repository")
    except EngineFailed as exc:
        raise BadInput(f"--changed-since needs git: {exc.message}") from None
    return Path(out.strip()).resolve()


def unquote(path: str) -> str:
    """Undo git's C-style quoting of unusual path names (`"a\\tb.py"`, octal UTF-8 bytes)."""
    if not (len(path) >= 2 and path[0] == path[-1] == '"'):
        return path
    body = path[1:-1]
    out = bytearray()
    i = 0
    while i < len(body):
        ch = body[i]
        if ch == "\\" and i + 1 < len(body):
            nxt = body[i + 1]
            if re.fullmatch(r"[0-7]{3}", body[i + 1:i + 4]):
                out.append(int(body[i + 1:i + 4], 8))
                i += 4
                continue
            out += _ESCAPES.get(nxt, nxt).encode()
            i += 2
            continue
        out += ch.encode("utf-8", "surrogateescape")
        i += 1
    return out.decode("utf-8", "surrogateescape")


def parse_diff(text: str) -> dict[str, set[int]]:
    """New-side line numbers per file from a `--unified=0` diff; pure deletions add no line."""
    files: dict[str, set[int]] = {}
    current: set[int] | None = None
    for line in text.splitlines():
        if line.startswith("+++ "):
            target = line[4:].rstrip("\t")
            if target == "/dev/null":
                current = None
                continue
            name = unquote(target)
            name = name[2:] if name.startswith("b/") else name
            current = files.setdefault(name, set())
        elif current is not None and (m := _HUNK.match(line)):
            start = int(m.group(1))
            count = 1 if m.group(2) is None else int(m.group(2))
            current.update(range(start, start + count))
    return files


def changed_since(ws: Workspace, ref: str) -> Changes:
    if not ref or ref.startswith("-"):
        raise BadInput(f"--changed-since needs a git revision such as origin/main, not {ref!r}.")
    top = toplevel(ws)
    _check(git(ws, "rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}"), f"find the revision {ref!r}")
    diff = _check(
        git(ws, "diff", "--unified=0", "--no-color", "--no-ext-diff", "--no-textconv", "--src-prefix=a/",
            "--dst-prefix=b/", ref, "--", "."),
        f"diff against {ref!r}",
    )
    untracked = _check(git(ws, "ls-files", "--others", "--exclude-standard", "-z", "--", "."), "list new files")
    changes = Changes()

    def add(repo_path: str, lines: set[int] | None) -> None:
        absolute = (top / repo_path).resolve()
        if absolute != ws.root and ws.root not in absolute.parents:
            return
        changes.files[absolute.relative_to(ws.root).as_posix()] = lines

    for path, lines in parse_diff(diff).items():
        add(path, lines)
    # ls-files prints paths relative to the cwd (the workspace root), not to the top level.
    for rel in filter(None, untracked.split("\0")):
        add(str((ws.root / rel).relative_to(top)), None)
    return changes


def is_code(path: str, cfg: ProjectConfig | None = None) -> bool:
    """A file ast-grep would parse under `cfg` (built-in extensions, `languageGlobs`, custom languages)."""
    from sgtools.project.languages import language_for_path

    return language_for_path(path, cfg) is not None


def within(path: str, scopes: Sequence[str]) -> bool:
    """Whether a workspace-relative path lies in one of the workspace-relative scopes ("." is everything)."""
    return any(s == "." or path == s or path.startswith(s.rstrip("/") + "/") for s in scopes)


def candidate_files(ws: Workspace, paths: Iterable[str], cfg: ProjectConfig | None = None) -> list[str]:
    """The code files a scan of `paths` would visit, workspace-relative and sorted: tracked and untracked files
    git does not ignore inside a repository, else a walk that skips hidden directories (as ast-grep does).
    A file named explicitly is always kept, as ast-grep always scans a named file."""
    wanted = [ws.relative(ws.resolve(p)) for p in paths] or ["."]
    out: set[str] = set()
    dirs = []
    for rel in wanted:
        if (ws.root / rel).is_file():
            out.add(rel)
        else:
            dirs.append(rel)
    if not dirs:
        return sorted(out)
    listed = git(ws, "ls-files", "--cached", "--others", "--exclude-standard", "-z", "--", *dirs)
    if listed.returncode == 0:
        names = listed.stdout.decode("utf-8", "surrogateescape").split("\0")
        out.update(n for n in names if n and is_code(n, cfg) and (ws.root / n).is_file())
        return sorted(out)
    for rel in dirs:
        for dirpath, dirnames, filenames in os.walk(ws.root / rel):
            dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
            for name in filenames:
                file_rel = ws.relative(os.path.join(dirpath, name))
                if is_code(file_rel, cfg):
                    out.add(file_rel)
    return sorted(out)


def parse_shard(text: str) -> tuple[int, int]:
    m = re.fullmatch(r"\s*(\d+)\s*/\s*(\d+)\s*", text or "")
    if not m or not 1 <= int(m.group(1)) <= int(m.group(2)):
        raise BadInput(f"--shard takes K/N with 1 <= K <= N (for example 2/4), not {text!r}.")
    return int(m.group(1)), int(m.group(2))


def in_shard(path: str, k: int, n: int) -> bool:
    """Deterministic on every machine and Python (no PYTHONHASHSEED): a digest of the relative path."""
    digest = int.from_bytes(sha256(path.encode("utf-8", "surrogateescape")).digest()[:8], "big")
    return digest % n == k - 1
