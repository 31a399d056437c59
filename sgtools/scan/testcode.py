"""Test code is known: which files (and Rust `#[cfg(test)]` modules, Go test-helper packages) are tests, and
what a rule does there.

A hard-coded secret or a disabled TLS check in a test fixture is usually deliberate, so a finding there reads
differently. Each rule says what happens in tests with `metadata.inTests`: `report` (as anywhere), `info`
(reported at severity info) or `skip` (not reported). Rules about secrets, TLS, deserialisation and debug
servers default to `info`; the others to `report`. Every finding carries `inTest`.

Which paths are tests follows each language's conventions (DEFAULT_TEST_PATHS); a project replaces them with
`testPaths: [pattern, ...]` in sgconfig.yml (ast-grep ignores keys it does not know). Patterns are fnmatch
patterns matched against `/` + the workspace-relative path, so `*/tests/*` is a `tests` folder at any depth.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping, Sequence
from fnmatch import fnmatchcase
from typing import TYPE_CHECKING, Final, Literal

from sgtools.core.errors import RuleInvalid
from sgtools.core.lazyre import LazyRe

if TYPE_CHECKING:
    from sgtools.engine.match import AstGrepMatch
    from sgtools.project.config import ProjectConfig
    from sgtools.rules.ruleset import Rule

CONFIG_KEY: Final = "testPaths"
InTests = Literal["report", "info", "skip"]
IN_TESTS: Final[tuple[InTests, ...]] = ("report", "info", "skip")

# Folders (any depth) and file names that are tests by each language's convention. `*/test/*` covers
# Maven/Gradle's `src/test/`, Rust's and Python's `tests/` are in `*/tests/*`. Test helpers and fixtures count
# too: `test-ca/`, `test_utils/`, `integration-tests/`, `testutil/`, `testing/` (sqlalchemy.testing, numpy.testing),
# `testsuite/` (GNU projects' DejaGnu suites)
# and files named `*_tests.*` (minio-go's functional_tests.go, a test program) or Django's `tests.py`.
DEFAULT_TEST_PATHS: Final = (
    "*/tests/*", "*/test/*", "*/__tests__/*", "*/testdata/*", "*/spec/*",
    "*/test[-_]*/*", "*/*[-_]tests/*", "*/unit[-_]test/*", "*/integration[-_]test/*", "*/e2e[-_]test/*",
    "*/testutil/*", "*/testutils/*", "*/testing/*",  # not any `*-test/`: `ab-test/` is a feature
    "*/testsuite/*", "*/testsuites/*",  # GNU DejaGnu and Automake suites: binutils' gas/, ld/, gold/testsuite
    "*/*_tests.*", "*/tests.py",
    "*/test_*.py", "*/*_test.py", "*/conftest.py",  # pytest
    "*/*_test.go",  # go test
    "*.test.js", "*.test.jsx", "*.test.ts", "*.test.tsx", "*.test.mjs", "*.test.cjs",  # jest, vitest, mocha
    "*.spec.js", "*.spec.jsx", "*.spec.ts", "*.spec.tsx", "*.spec.mjs", "*.spec.cjs",
    "*/*_spec.rb", "*/*_test.rb",  # rspec, minitest
    "*/*Test.java", "*/*Tests.java", "*/*Test.kt", "*/*Tests.kt",  # JUnit
    "*/*_test.cc", "*/*_test.cpp", "*/*_unittest.cc",  # googletest
    "*/*Tests.cs", "*/*Test.cs", "*/*Test.php",
)

# Rule ids or tags with these words are about secrets, TLS, deserialisation or debug servers: deliberate in tests.
_QUIET_WORDS: Final = LazyRe(
    r"secret|password|passwd|credential|token|api-?key|private-?key|hard-?coded|tls|ssl|certificate|verify"
    r"|insecure|pickle|marshal|deserial|yaml-load|unsafe-load|debug", re.IGNORECASE)

_CFG_TEST: Final = re.compile(rb"#\[cfg\(test\)\]\s*(?:pub(?:\([^)]*\))?\s+)?mod\s+\w+\s*\{")
# A Go import declaration, single (`import "x"`) or grouped (`import ( ... )`), and a `testing` import in it.
_GO_IMPORT: Final = LazyRe(r"^import\s*(?:\((.*?)\)|(.*?)$)", re.MULTILINE | re.DOTALL)
_GO_TESTING: Final = LazyRe(r'^\s*(?:[\w.]+\s+)?"testing"\s*(?://.*)?$', re.MULTILINE)
# A module-level Python import (column 0: an import inside a function does not make the module a test helper).
_PY_IMPORT: Final = LazyRe(r"^(?:from\s+(\.*[\w.]*)\s+import\b|import\s+([\w.]+))", re.MULTILINE)


def test_patterns(cfg: ProjectConfig | None) -> tuple[str, ...]:
    """The project's `testPaths` when it sets them (checked), else the conventions."""
    value = cfg.raw.get(CONFIG_KEY) if cfg is not None else None
    if value is None:
        return DEFAULT_TEST_PATHS
    if not isinstance(value, list) or not all(isinstance(p, str) and p for p in value):
        raise RuleInvalid(f"sgconfig.yml `{CONFIG_KEY}` must be a list of fnmatch patterns such as '*/tests/*', "
                          f"not {value!r}. Fix it or remove it to use the conventions.")
    return tuple(value)


def is_test_path(path: str | None, patterns: Sequence[str] = DEFAULT_TEST_PATHS) -> bool:
    """Whether the workspace-relative `path` is test code by `patterns`."""
    if not path:
        return False
    probe = "/" + path.replace("\\", "/").lstrip("/")
    return any(literal in probe and fnmatchcase(probe, p) for p, literal in _with_literals(tuple(patterns)))


@functools.lru_cache(maxsize=8)
def _with_literals(patterns: tuple[str, ...]) -> tuple[tuple[str, str], ...]:
    """Each pattern with the longest run of plain characters that any path it matches contains (fnmatchcase is
    case-sensitive): a path without it is not tried, so a file outside the test conventions (most files) does
    not compile the 44 default patterns into regexes."""
    return tuple((p, max(re.split(r"\*|\?|\[!?\]?[^\]]*\]?", p), key=len)) for p in patterns)


def cfg_test_spans(text: str) -> list[tuple[int, int]]:
    """Byte ranges of Rust `#[cfg(test)] mod x { ... }` blocks (braces counted; strings and comments are
    not parsed, which is enough for the unit-test modules this is for)."""
    if "cfg(test)" not in text:
        return []
    data = text.encode("utf-8")
    spans: list[tuple[int, int]] = []
    for m in _CFG_TEST.finditer(data):
        depth, i = 1, m.end()
        while i < len(data) and depth:
            depth += {ord("{"): 1, ord("}"): -1}.get(data[i], 0)
            i += 1
        spans.append((m.start(), i))
    return spans


def go_imports_testing(text: str) -> bool:
    """Whether Go source imports the `testing` package: outside a `_test.go` file that is a test-helper package
    (x/crypto's `internal/acmetest`, docker's `graphtest`): code that ships never does (`testing/fstest` and the
    like are not `testing`)."""
    if '"testing"' not in text:
        return False
    return any(_GO_TESTING.search(m.group(1) if m.group(1) is not None else m.group(2))
               for m in _GO_IMPORT.finditer(text))


def python_imports_testing(text: str) -> bool:
    """Whether a Python module imports pytest or a `testing` package at module level: a test helper
    (sqlalchemy's `dialects/*/provision.py` builds test databases with `from ...testing.provision import`;
    numpy.testing, twisted's `internet.testing`). `unittest` is left out: shipped code uses `unittest.mock`."""
    if "testing" not in text and "pytest" not in text:
        return False
    for m in _PY_IMPORT.finditer(text):
        parts = (m.group(1) or m.group(2) or "").lstrip(".").split(".")
        if parts[0] == "pytest" or "testing" in parts:
            return True
    return False


_HELPER_CHECKS: Final = {"go": go_imports_testing, "python": python_imports_testing}


def imports_test_support(language: str, text: str) -> bool:
    """Whether a file outside the test paths is a test helper by what it imports (Go and Python)."""
    check = _HELPER_CHECKS.get(language)
    return check is not None and check(text)


def in_tests_problem(rule: Rule) -> str | None:
    """Why the rule's `metadata.inTests` cannot be used, else None: the scan sets such a rule aside in
    `ruleErrors` when it loads the rules, so one typo does not fail every finding of every other rule."""
    meta = rule.data.get("metadata")
    value = meta.get("inTests") if isinstance(meta, Mapping) else None
    if value is None or value in IN_TESTS:
        return None
    return f"metadata.inTests is {value!r}; use one of {', '.join(IN_TESTS)}."


def in_tests_policy(rule: Rule | None) -> InTests:
    """What `rule` does in tests: its `metadata.inTests`, else `info` for secret/TLS/deserialisation/debug
    rules, else `report`."""
    if rule is None:
        return "report"
    meta = rule.data.get("metadata")
    value = meta.get("inTests") if isinstance(meta, Mapping) else None
    if value is not None:
        if (problem := in_tests_problem(rule)) is not None:
            raise RuleInvalid(f"Rule {rule.id}: {problem}")
        return value  # type: ignore[no-any-return]
    tags = meta.get("tags") if isinstance(meta, Mapping) else None
    words = " ".join([rule.id, *(str(t) for t in tags or [] if isinstance(tags, list))])
    return "info" if _QUIET_WORDS.search(words) else "report"


def mark_in_test(match: AstGrepMatch, rule: Rule | None) -> bool:
    """Mark a raw ast-grep match found in test code (`inTest`, severity per the rule's policy); False when the
    rule skips tests and the match is to be dropped."""
    policy = in_tests_policy(rule)
    if policy == "skip":
        return False
    match["inTest"] = True
    if policy == "info" and str(match.get("severity") or (rule.severity if rule else "")) in ("error", "warning"):
        match["severity"] = "info"
    return True
