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

# Test code in the usual layouts of the built-in languages (Python, Go, JS/TS, Java/Kotlin/C#, Ruby, Rust, PHP,
# Swift, C/C++): test folders (`Tests/` and `Foo.Tests/` in .NET and Swift, `androidTest/`) and test file names.
TEST_GLOBS = ("**/test/**", "**/tests/**", "**/Tests/**", "**/*.Tests/**", "**/__tests__/**", "**/spec/**",
              "**/androidTest/**", "**/test_*", "**/*_test.*", "**/*.test.*", "**/*.spec.*", "**/*_spec.*",
              "**/*_unittest.*", "**/*Test.*", "**/*Tests.*", "**/conftest.py")
# Test code in words: tests, specs, the test suite, test files.
_TESTS = r"(?:unit\s+|integration\s+)?(?:test\s+(?:code|files?|suites?)|spec\s+files?|tests?|specs?)"
_NOT_TESTS = re.compile(r"\b(?:library|production|prod|application|app|shipped|release|non-test|runtime)\s+code\b"
                        r"|\blibrary\s+(?:functions?|methods?|classes|crates?|modules?|packages?)\b"
                        r"|\bnon-(?:tests?|specs?)\b|\bin\s+production\b"
                        r"|\b(?:except|outside(?:\s+of)?|not|excluding|other than|but not|apart from)\s+(?:in\s+)?"
                        rf"(?:the\s+|our\s+)?{_TESTS}\b", re.I)
# One word may name the kind of test: "in request specs", "in controller tests", "in Go tests".
_ONLY_TESTS = re.compile(r"\b(?:in|inside|within)\s+(?:the\s+|our\s+)?(?:[\w-]+\s+)?(?:tests?|specs?)"
                         r"(?!\s*(?:method|function|class|case)s?\b)(?![\w@])"
                         r"|\b(?:test|spec)\s+(?:code|files?|suites?)\b", re.I)


# Test code that lives in library files, by language: Rust's `#[cfg(test)] mod tests` and `#[test]` functions (an
# attribute among others before it, `#[tokio::test]` too). "Library code" leaves them out with `not: inside`.
_AFTER_ATTRIBUTES = {"not": {"kind": "attribute_item"}}
TEST_CONTEXTS: dict[str, dict[str, Any]] = {
    "rust": {"any": [
        {"kind": "mod_item", "follows": {"kind": "attribute_item", "regex": r"^#\[cfg\(test\)\]$",
                                         "stopBy": _AFTER_ATTRIBUTES}},
        {"kind": "function_item", "follows": {"kind": "attribute_item", "regex": r"^#\[(\w+::)*test\]$",
                                              "stopBy": _AFTER_ATTRIBUTES}}], "stopBy": "end"},
}


def in_file_tests(language: str, scope: Mapping[str, Any]) -> dict[str, Any] | None:
    """The `not: inside` clause that leaves out the tests written inside library files, when the scope leaves
    out test code and the language writes tests there (Rust); None otherwise."""
    context = TEST_CONTEXTS.get(language)
    return {"not": {"inside": context}} if context is not None and "ignores" in scope else None


def with_clause(body: Mapping[str, Any], clause: dict[str, Any]) -> dict[str, Any]:
    """A rule body whose rule also holds `clause` (in_file_tests' `not: inside`), for every candidate alike."""
    return {**body, "rule": {"all": [body["rule"], clause]}}


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


def note(scope: dict[str, list[str]], words: str, in_files: bool = False) -> str:
    key = "ignores" if "ignores" in scope else "files"
    which = "leaves out test code" if key == "ignores" else "flags test code only"
    inline = " and the test modules and functions inside other files (`not: inside`)" if in_files else ""
    return f"{which} (`{key}`: the usual test paths{inline}), as the request says ({words!r})"


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
