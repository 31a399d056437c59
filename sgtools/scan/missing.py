"""MISSING tokens counted by the warm engine (issue 31 part 1): fix-it verification (fixits/verify.py) asks how
many tokens tree-sitter inserted as MISSING in a text before and after a fix that could drop one; the spawn path
reads them from `ast-grep run --debug-query=cst` (one process per text, scan/rulefiles.py `missing_counter`).

The language server never reports tree facts, and no rule can name a MISSING node (`kind` takes named kinds
only, and a MISSING token is mostly an anonymous `)` or `;`). But a rule can visit them: the rule of
`missing_rule_doc` matches the root node (its kind per language, `ROOT_KINDS`) and its message is a `rewrite`
transform of the root whose rewriters match every node with empty text, anonymous ones writing `a` and named ones
`n`, joined by `,` (rewriters visit every node of the tree, as `--debug-query` does, and need no kind). An
anonymous node with empty text is a MISSING token: a grammar's anonymous tokens are literal strings, which
tree-sitter never lets match nothing. A named one with empty text may be a MISSING token (`identifier`) or an
empty non-terminal (an error-recovered `block`): then the count is not known here (`count` gives None) and the
caller asks the spawn path. So a count from here is the dump's count whenever it is given.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

MISSING_RULE_ID = "_sgtools-missing-tokens"
CLEAN_RULE_ID = "_sgtools-clean-parse"
_PREFIX = "sgtools-missing:"
_ROOT = "SGTOOLSROOT"
_OUT = "SGTOOLSMISSING"

# The kind of the root node ast-grep 0.51's parser gives (`--debug-query=cst`), for the languages whose counts
# were checked against the dump on every case of the essentials corpus and of the bundled rules' tests, whole and
# cut short (tests/test_missing_tokens.py checks the kinds and a sample). Other languages stay on the spawn path.
ROOT_KINDS: dict[str, str] = {
    "bash": "program", "c": "translation_unit", "cpp": "translation_unit", "csharp": "compilation_unit",
    "go": "source_file", "html": "document", "java": "program", "javascript": "program", "kotlin": "source_file",
    "lua": "chunk", "php": "program", "python": "module", "ruby": "program", "rust": "source_file",
    "scala": "compilation_unit", "swift": "source_file", "tsx": "program", "typescript": "program",
    "yaml": "stream",
}
# Go's grammar ends a statement at the end of input with a zero-width anonymous terminator (not MISSING), which
# this rule cannot tell from a MISSING token: Go texts are counted here only when they end with a line break.
_ENDS_WITH_TOKEN = frozenset({"go"})


def missing_rule_doc(language: str) -> dict[str, Any] | None:
    """The counting rule for `language` (a built-in language key), None for a language without a known root."""
    root = ROOT_KINDS.get(language)
    if root is None:
        return None
    empty = {"regex": "^$"}
    return {
        "id": MISSING_RULE_ID, "language": language, "severity": "hint", "message": f"{_PREFIX}${_OUT}",
        "rule": {"kind": root, "pattern": f"$${_ROOT}"},
        "transform": {_OUT: {"rewrite": {"source": f"${_ROOT}", "rewriters": ["sgtools-anon", "sgtools-named"],
                                         "joinBy": ","}}},
        "rewriters": [
            {"id": "sgtools-anon", "rule": {**empty, "not": {"pattern": "$SGTOOLSNAMED"}}, "fix": "a"},
            {"id": "sgtools-named", "rule": {**empty, "pattern": "$SGTOOLSNAMED"}, "fix": "n"},
        ],
    }


def clean_rule_doc(language: str) -> dict[str, Any] | None:
    """A rule that matches the root (its kind per language, `ROOT_KINDS`) of a tree with no ERROR node and no node
    with empty text, so no MISSING token: where it matches, the parse-error rule and `missing_rule_doc`'s would
    find nothing and count 0. It walks the tree once, without converting a match per node (a clean 30-line
    TypeScript text: 0.36 M instructions of ast-grep's, against 1.9 M for those two rules, callgrind)."""
    root = ROOT_KINDS.get(language)
    if root is None:
        return None
    return {"id": CLEAN_RULE_ID, "language": language, "severity": "hint",
            "rule": {"kind": root, "not": {"has": {"stopBy": "end", "any": [{"kind": "ERROR"}, {"regex": "^$"}]}}}}


def certified(matches: Sequence[Mapping[str, Any]]) -> bool:
    """Whether `clean_rule_doc`'s rule matched in one document's matches."""
    return any(m.get("ruleId") == CLEAN_RULE_ID for m in matches)


def countable(language: str, text: str) -> bool:
    """Whether this rule can count `text`'s MISSING tokens in `language` (else: the spawn path)."""
    return language in ROOT_KINDS and (language not in _ENDS_WITH_TOKEN or text.endswith("\n"))


def keep(counts: dict[str, int | None], language: str, texts: Sequence[str],
         found: Sequence[Sequence[Mapping[str, Any]]]) -> None:
    """Record in `counts` each countable text's MISSING tokens from its warm document's matches (the counting
    rule is in every document), so a later count of the same text costs no engine call."""
    counts.update((text, count(ms)) for text, ms in zip(texts, found, strict=True) if countable(language, text))


def keep_clean(counts: dict[str, int | None], language: str, texts: Sequence[str]) -> None:
    """Record 0 for each countable text that `clean_rule_doc`'s rule certified (no MISSING token), whose document
    ran no counting rule."""
    counts.update((text, 0) for text in texts if countable(language, text))


def count(matches: Sequence[Mapping[str, Any]]) -> int | None:
    """The MISSING tokens of one document from its matches (those of `MISSING_RULE_ID`), or None when this rule
    cannot tell: no root match (a root of another kind, a suppression comment on the first line), more than one,
    or a named node with empty text."""
    found = [str(m.get("message", "")) for m in matches if m.get("ruleId") == MISSING_RULE_ID]
    if len(found) != 1 or not found[0].startswith(_PREFIX):
        return None
    marks = [x for x in found[0][len(_PREFIX):].split(",") if x]
    if any(x != "a" for x in marks):
        return None
    return len(marks)
