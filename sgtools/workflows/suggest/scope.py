"""Path scopes from the request's words (issue 29, part 1): "in library code" or "except in tests" becomes
`ignores` of the usual test paths, "only in tests" becomes `files` of them.

The examples carry no paths, so the scope is never verified on them: every candidate is verified without it,
and the scope is added to each one's YAML afterwards. The workspace proof applies it (in Python, with the same
globs) to the files it scans, so its counts are those of the scoped rule.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

# Test code in the usual layouts of the built-in languages (Python, Go, JS/TS, Java/Kotlin/C#, Ruby, Rust, PHP).
TEST_GLOBS = ("**/test/**", "**/tests/**", "**/__tests__/**", "**/spec/**", "**/test_*", "**/*_test.*",
              "**/*.test.*", "**/*.spec.*", "**/*_spec.*", "**/*Test.*", "**/*Tests.*", "**/conftest.py")
_NOT_TESTS = re.compile(r"\b(?:library|production|prod|application|app|shipped|non-test)\s+code\b|\bnon-tests?\b"
                        r"|\b(?:except|outside(?:\s+of)?|not|excluding|other than|but not)\s+(?:in\s+)?(?:the\s+)?"
                        r"(?:unit\s+)?tests?\b", re.I)
_ONLY_TESTS = re.compile(r"\b(?:in|inside|within)\s+(?:the\s+|our\s+)?(?:unit\s+)?tests?"
                         r"(?!\s*(?:method|function|class|case)s?\b)(?![\w@])|\btest\s+(?:code|files?|suites?)\b",
                         re.I)


def from_request(request: str | None) -> tuple[dict[str, list[str]], str] | None:
    """The scope the request's words ask for and the words that ask for it; None when they ask for none."""
    if not request:
        return None
    found = _NOT_TESTS.search(request)
    if found is not None:
        return {"ignores": list(TEST_GLOBS)}, found.group(0)
    found = _ONLY_TESTS.search(request)
    if found is not None:
        return {"files": list(TEST_GLOBS)}, found.group(0)
    return None


def note(scope: dict[str, list[str]], words: str) -> str:
    key = "ignores" if "ignores" in scope else "files"
    which = "leaves out test code" if key == "ignores" else "flags test code only"
    return f"{which} (`{key}`: the usual test paths), as the request says ({words!r})"


def _regex(glob: str) -> re.Pattern[str]:
    out, i = [], 0
    while i < len(glob):
        if glob.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif glob.startswith("**", i):
            out.append(".*")
            i += 2
        elif glob[i] == "*":
            out.append("[^/]*")
            i += 1
        elif glob[i] == "?":
            out.append("[^/]")
            i += 1
        else:
            out.append(re.escape(glob[i]))
            i += 1
    return re.compile("".join(out))


def keeps(scope: Mapping[str, Any], rel: str) -> bool:
    """Whether a workspace path (relative, `/`-separated) is in the scope, as ast-grep reads the globs."""
    path = rel.replace("\\", "/")
    files: Sequence[str] = scope.get("files") or ()
    ignores: Sequence[str] = scope.get("ignores") or ()
    if files and not any(_regex(g).fullmatch(path) for g in files):
        return False
    return not any(_regex(g).fullmatch(path) for g in ignores)
