"""Findings worth reading: the one pass over ast-grep's raw matches, for snippets and paths alike. It marks
test code (scan/testcode.py), drops findings silenced for an equivalent check of another linter
(scan/suppress.py) and findings in generated or bundled files (scan/generated.py), and counts what it leaves
out, so nothing is lost silently."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, cast

from sgtools.rules.ruleset import Rule
from sgtools.scan import generated, suppress, testcode

if TYPE_CHECKING:
    from sgtools.engine.match import AstGrepMatch
    from sgtools.project.config import ProjectConfig


class Signal:
    """One scan's settings for the pass and what it did, per rule id: findings in tests (reported), findings
    dropped in tests (`skip` rules), suppressed, dropped in generated files (and which files, with why). A plain
    class: no module on a CLI scan's path imports `dataclasses`."""

    __slots__ = ("generated", "generated_files", "honour_equivalents", "in_tests", "skip_generated",
                 "skipped_in_tests", "suppressed", "test_patterns")

    def __init__(self, test_patterns: Sequence[str] = testcode.DEFAULT_TEST_PATHS, honour_equivalents: bool = True,
                 skip_generated: bool = True) -> None:
        self.test_patterns = test_patterns
        self.honour_equivalents = honour_equivalents
        self.skip_generated = skip_generated
        self.in_tests: dict[str, int] = {}
        self.skipped_in_tests: dict[str, int] = {}
        self.suppressed: dict[str, int] = {}
        self.generated: dict[str, int] = {}  # per rule: findings dropped in generated files
        self.generated_files: dict[str, str] = {}  # file -> why it is generated

    @classmethod
    def for_config(cls, cfg: ProjectConfig | None) -> Signal:
        """The pass as the project configures it: its test paths, other linters' suppressions, generated files."""
        return cls(testcode.test_patterns(cfg), suppress.enabled(cfg), generated.enabled(cfg))

    def refine(self, raw: Iterable[AstGrepMatch], rules_by_id: Mapping[str, Rule],
               text_of: Callable[[str], str | None], *, file_override: str | None = None) -> list[AstGrepMatch]:
        """The raw matches to report, each marked `inTest` when in test code; the counters are updated.

        `text_of(raw_file)` gives a matched file's text (None when unreadable) for Rust `#[cfg(test)]`
        modules; `file_override` is the path a snippet is checked as (its matches say `STDIN`).
        """
        kept: list[AstGrepMatch] = []
        texts = _Texts(text_of, file_override)
        equivalents: dict[str, tuple[str, ...]] = {}  # per rule id, read from the rule once
        for m in raw:
            rule_id = str(m.get("ruleId", ""))
            rule = rules_by_id.get(rule_id)
            if self.skip_generated and self._generated(m, texts, rule_id):
                continue
            if self.honour_equivalents:
                checks = equivalents.get(rule_id)
                if checks is None:
                    checks = equivalents[rule_id] = suppress.equivalents(rule)
                if checks and self._suppressed(m, texts, checks, rule_id):
                    continue
            if self._in_test(m, texts):
                if not testcode.mark_in_test(m, rule):
                    _bump(self.skipped_in_tests, rule_id)
                    continue
                _bump(self.in_tests, rule_id)
            kept.append(m)
        return kept

    def _generated(self, m: AstGrepMatch, texts: _Texts, rule_id: str) -> bool:
        raw_file = str(m.get("file", ""))
        reason = texts.generated(raw_file)
        if reason is None:
            return False
        self.generated_files[texts.path(raw_file) or raw_file] = reason
        _bump(self.generated, rule_id)
        return True

    def _suppressed(self, m: AstGrepMatch, texts: _Texts, checks: tuple[str, ...], rule_id: str) -> bool:
        where = m["range"]
        if suppress.is_suppressed(texts.lines(str(m.get("file", ""))), int(where["start"]["line"]),
                                  int(where["end"]["line"]), checks):
            _bump(self.suppressed, rule_id)
            return True
        return False

    def _in_test(self, m: AstGrepMatch, texts: _Texts) -> bool:
        raw_file = str(m.get("file", ""))
        if texts.is_test(raw_file, self.test_patterns):
            return True
        language = str(m.get("language", "")).lower()
        if language in ("go", "python"):
            return texts.test_helper(language, raw_file)
        if language != "rust":
            return False
        start = int(m["range"]["byteOffset"]["start"])
        return any(a <= start < b for a, b in texts.cfg_test_spans(raw_file))

    def report(self) -> dict[str, Any]:
        """The result fields of what the pass did (only the non-empty ones)."""
        fields = {"suppressed": self.suppressed, "inTests": self.in_tests, "skippedInTests": self.skipped_in_tests,
                  "generated": self.generated}
        out: dict[str, Any] = {k: dict(sorted(v.items())) for k, v in fields.items() if v}
        if self.generated_files:
            out["skippedGenerated"] = [{"file": f, "why": w} for f, w in sorted(self.generated_files.items())]
        return out


class _Texts:
    """Matched files' texts and what is derived from them, each worked out once per file."""

    def __init__(self, text_of: Callable[[str], str | None], file_override: str | None) -> None:
        self._text_of, self._override = text_of, file_override
        self._cache: dict[tuple[str, str], Any] = {}

    def _once(self, kind: str, raw_file: str, make: Callable[[], Any]) -> Any:
        key = (kind, raw_file)
        try:
            return self._cache[key]  # asked once per finding: one lookup when known
        except KeyError:
            value = self._cache[key] = make()
            return value

    def path(self, raw_file: str) -> str | None:
        """The workspace path a match is in (a snippet's virtual path; its matches say `STDIN`)."""
        return self._override if self._override is not None or raw_file == "STDIN" else raw_file

    def text(self, raw_file: str) -> str:
        return str(self._once("text", raw_file, lambda: self._text_of(raw_file) or ""))

    def lines(self, raw_file: str) -> list[str]:
        return cast("list[str]", self._once("lines", raw_file, lambda: self.text(raw_file).splitlines()))

    def is_test(self, raw_file: str, patterns: Sequence[str]) -> bool:
        """Whether the file is test code by `patterns`: matched once per file, not once per finding (a dense
        file has hundreds of findings and the conventions are dozens of globs)."""
        return bool(self._once("test", raw_file, lambda: testcode.is_test_path(self.path(raw_file), patterns)))

    def generated(self, raw_file: str) -> str | None:
        why = self._once("generated", raw_file, lambda: generated.why_generated(self.path(raw_file),
                                                                                self.text(raw_file)))
        return None if why is None else str(why)

    def test_helper(self, language: str, raw_file: str) -> bool:
        return bool(self._once("helper", raw_file,
                               lambda: testcode.imports_test_support(language, self.text(raw_file))))

    def cfg_test_spans(self, raw_file: str) -> list[tuple[int, int]]:
        return cast("list[tuple[int, int]]",
                    self._once("cfg", raw_file, lambda: testcode.cfg_test_spans(self.text(raw_file))))


def _bump(counter: dict[str, int], rule_id: str) -> None:
    counter[rule_id] = counter.get(rule_id, 0) + 1


COUNTED = ("suppressed", "inTests", "skippedInTests", "generated")


def merge(into: dict[str, Any], part: Mapping[str, Any]) -> None:
    """Add one scan result's signal fields (`Signal.report`) to `into`: a scan split into batches reports once."""
    for key in COUNTED:
        for rule_id, n in (part.get(key) or {}).items():
            into.setdefault(key, {})[rule_id] = into.get(key, {}).get(rule_id, 0) + int(n)
    files = part.get("skippedGenerated") or []
    if files:
        into["skippedGenerated"] = sorted([*into.get("skippedGenerated", []), *files], key=lambda f: f["file"])
    unread = part.get("fileErrors") or []
    if unread:
        into["fileErrors"] = sorted([*into.get("fileErrors", []), *unread], key=lambda f: f["file"])
