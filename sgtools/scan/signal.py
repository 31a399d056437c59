"""Findings worth reading: the one pass over ast-grep's raw matches, for snippets and paths alike. It marks
test code (scan/testcode.py), drops findings silenced for an equivalent check of another linter
(scan/suppress.py) and findings in generated or bundled files (scan/generated.py), and counts what it leaves
out, so nothing is lost silently."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from sgtools.rules.ruleset import Rule
from sgtools.scan import generated, suppress, testcode


@dataclass
class Signal:
    """One scan's settings for the pass and what it did, per rule id: findings in tests (reported), findings
    dropped in tests (`skip` rules)."""

    test_patterns: Sequence[str] = testcode.DEFAULT_TEST_PATHS
    honour_equivalents: bool = True
    skip_generated: bool = True
    in_tests: dict[str, int] = field(default_factory=dict)
    skipped_in_tests: dict[str, int] = field(default_factory=dict)
    suppressed: dict[str, int] = field(default_factory=dict)
    generated: dict[str, int] = field(default_factory=dict)  # per rule: findings dropped in generated files
    generated_files: dict[str, str] = field(default_factory=dict)  # file -> why it is generated

    def refine(self, raw: Iterable[dict[str, Any]], rules_by_id: Mapping[str, Rule],
               text_of: Callable[[str], str | None], *, file_override: str | None = None) -> list[dict[str, Any]]:
        """The raw matches to report, each marked `inTest` when in test code; the counters are updated.

        `text_of(raw_file)` gives a matched file's text (None when unreadable) for Rust `#[cfg(test)]`
        modules; `file_override` is the path a snippet is checked as (its matches say `STDIN`).
        """
        kept: list[dict[str, Any]] = []
        test_files: dict[str, bool] = {}
        cfg_spans: dict[str, list[tuple[int, int]]] = {}
        lines: dict[str, list[str]] = {}
        why: dict[str, str | None] = {}
        for m in raw:
            raw_file = str(m.get("file", ""))
            path = file_override if file_override is not None or raw_file == "STDIN" else raw_file
            rule_id = str(m.get("ruleId", ""))
            if self.skip_generated:
                if raw_file not in why:
                    why[raw_file] = generated.why_generated(path, text_of(raw_file) or "")
                reason = why[raw_file]
                if reason is not None:
                    self.generated_files[path or raw_file] = reason
                    _bump(self.generated, rule_id)
                    continue
            if raw_file not in test_files:
                test_files[raw_file] = testcode.is_test_path(path, self.test_patterns)
            in_test = test_files[raw_file]
            if not in_test and str(m.get("language", "")).lower() == "rust":
                if raw_file not in cfg_spans:
                    cfg_spans[raw_file] = testcode.cfg_test_spans(text_of(raw_file) or "")
                start = int(m["range"]["byteOffset"]["start"])
                in_test = any(a <= start < b for a, b in cfg_spans[raw_file])
            checks = suppress.equivalents(rules_by_id.get(rule_id)) if self.honour_equivalents else ()
            if checks:
                if raw_file not in lines:
                    lines[raw_file] = (text_of(raw_file) or "").splitlines()
                where = m["range"]
                if suppress.is_suppressed(lines[raw_file], int(where["start"]["line"]), int(where["end"]["line"]),
                                          checks):
                    _bump(self.suppressed, rule_id)
                    continue
            if in_test:
                if not testcode.mark_in_test(m, rules_by_id.get(rule_id)):
                    _bump(self.skipped_in_tests, rule_id)
                    continue
                _bump(self.in_tests, rule_id)
            kept.append(m)
        return kept

    def report(self) -> dict[str, Any]:
        """The result fields of what the pass did (only the non-empty ones)."""
        fields = {"suppressed": self.suppressed, "inTests": self.in_tests, "skippedInTests": self.skipped_in_tests,
                  "generated": self.generated}
        out: dict[str, Any] = {k: dict(sorted(v.items())) for k, v in fields.items() if v}
        if self.generated_files:
            out["skippedGenerated"] = [{"file": f, "why": w} for f, w in sorted(self.generated_files.items())]
        return out


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
