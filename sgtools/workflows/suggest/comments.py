"""Comments as an ast-grep author flags them (issue 29): by kind and a word every invalid comment has and no valid
one does (`TODO`, `@ts-ignore`), or by a marker written bare where the valid comments qualify it (`# type:
ignore` beside `# type: ignore[attr-defined]`, `//nolint` beside `//nolint:errcheck`): the marker at the start of
the comment, not followed by the qualifier's opening character."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from sgtools.workflows.suggest.candidates import COMMENT, Candidate, of_kinds
from sgtools.workflows.suggest.generalise import Generalised
from sgtools.workflows.suggest.roots import common_prefix
from sgtools.workflows.suggest.tree import Example, Node

_WORD_TOKEN = re.compile(r"[@A-Za-z_][\w@.:-]*\w|[A-Za-z_]")
_LEAD = re.compile(r"^\W*")  # the comment's opener and spaces: `#`, `//`, `/*`, `--`
_MIN_MARKER = 3  # word characters a bare marker needs


def any_case(word: str) -> bool:
    """A marker in capitals (`TODO`, `NOSONAR`) is also written `todo`."""
    return re.fullmatch(r"[A-Z]{3,}", word) is not None


def _comment_words(node: Node) -> set[str]:
    return set(_WORD_TOKEN.findall(node.text))


def comment_nodes(example: Example) -> list[Node]:
    """The example's comments, every kind of them (`comment`, `line_comment`, `multiline_comment`)."""
    return [n for n in example.nodes() if "comment" in n.kind and n.named]


def _marker(texts: Sequence[str]) -> str | None:
    """The words every comment starts with (after its opener), cut at a word's end: `type: ignore`, `nolint`."""
    bodies = [_LEAD.sub("", t) for t in texts]
    head = common_prefix(bodies).rstrip()
    if any(len(b) > len(head) and re.match(r"\w", b[len(head)]) for b in bodies):
        head = re.sub(r"\W*\w+$", "", head)  # cut inside a word: back to the last whole one
    return head if len(re.sub(r"\W", "", head)) >= _MIN_MARKER else None


def _after(starts: re.Pattern[str], text: str) -> str | None:
    """The character after the marker at the comment's start ('' at its end), None when it does not start so."""
    m = starts.match(text)
    return None if m is None else text[m.end():m.end() + 1]


def _bare_marker(invalid: list[list[Node]], fine: Sequence[Node]) -> tuple[str, str] | None:
    """(marker, regex) for a marker the invalid comments write bare and the valid ones qualify."""
    head = _marker([n.text for ns in invalid for n in ns])
    if head is None:
        return None
    words = re.findall(r"\w+", head)
    body = r"\W*".join(re.escape(w) for w in words)
    starts = re.compile(r"^\W*" + body)
    nexts = {c for c in (_after(starts, n.text) for n in fine) if c is not None}
    bad_nexts = {c for c in (_after(starts, n.text) for ns in invalid for n in ns) if c is not None}
    qualifiers = {c for c in nexts if c and not c.isspace() and not re.match(r"\w", c)}
    if not qualifiers or qualifiers != nexts or qualifiers & bad_nexts:
        return None  # no valid comment qualifies the marker, or one writes it bare too
    shown = "".join(sorted(qualifiers))
    return head, rf"^\W*{body}($|[^{re.escape(shown)}])"


def _opener(texts: Sequence[str]) -> str:
    """The comment opener every text starts with (`//`, `/*`, `#`), '' when they differ."""
    openers = {re.match(r"[^\w\s]*", t).group(0) for t in texts}  # type: ignore[union-attr]
    return openers.pop() if len(openers) == 1 else ""


def _start_forms(invalid: list[list[Node]], fine: Sequence[Node], kind: dict[str, Any],
                 start: int) -> list[Candidate]:
    """Comments by how they start: a phrase of two or more words every invalid comment opens with (a directive,
    `/// <reference path=`: the words anywhere in a comment also flag prose), a marker the invalid comments hold
    and nothing after it (`eslint-disable` bare, beside `eslint-disable no-console`), or, when the valid examples
    write comments too and none opens so, the opener itself (`//` beside `/* */`). None that a valid comment
    matches."""
    texts = [n.text for ns in invalid for n in ns]
    out: list[tuple[str, str, bool]] = []  # (regex, what it says, a phrase)
    head = _marker(texts)
    words = re.findall(r"\w+", head or "")
    if head is not None and len([w for w in head.split() if re.search(r"\w", w)]) >= 2:
        out.append((r"^\W*" + r"\W*".join(map(re.escape, words)) + r"\b", f"starts with `{head}`", True))
    if words:
        bare = r"^\W*" + r"\W*".join(map(re.escape, words)) + r"[\w-]*\s*(\*/)?\s*$"
        out.append((bare, f"holds `{head}` and nothing after it", False))
    opener = _opener(texts)
    if fine and opener:
        out.append(("^" + re.escape(opener), f"starts with `{opener}`", False))
    return [Candidate({"rule": {**kind, "regex": regex}},
                      Generalised.written(invalid[0][0], f"comment {what.split('`')[1]}"), COMMENT, start + 10 + i,
                      f"flags every comment that {what}, as the invalid examples' do; lets through the same words "
                      "written another way", phrase=first)
            for i, (regex, what, first) in enumerate(out)
            if all(re.search(regex, t) for t in texts) and not any(re.search(regex, n.text) for n in fine)]


def _bare_tag(invalid: list[list[Node]], fine: Sequence[Node], kind: dict[str, Any],
              start: int) -> list[Candidate]:
    """A doc tag every invalid comment holds with nothing after it, wherever it stands in the comment (`@deprecated`
    alone on its line, before the closing `*/` or the next tag), where every valid comment that holds it says
    something after it (`@deprecated Use loadConfig instead`): the tag says what it is about, or nothing."""
    out: list[Candidate] = []
    tags = set.intersection(*({t for n in ns for t in re.findall(r"(?<![\w@])[@\\][A-Za-z]\w+", n.text)}
                              for ns in invalid))
    for tag in sorted(tags):
        regex = re.escape(tag) + r"[\s*/]*($|[@\\])"
        holding = [n for n in fine if tag in n.text]
        if holding and not any(re.search(regex, n.text) for n in holding) and all(
                any(re.search(regex, n.text) for n in ns) for ns in invalid):
            out.append(Candidate({"rule": {**kind, "regex": regex}},
                                 Generalised.written(invalid[0][0], f"comment {tag} bare"), COMMENT,
                                 start + 20 + len(out), f"flags every comment whose `{tag}` says nothing after it, "
                                 "before its end or its next tag; lets through the tag with any text after it"))
    return out


def comment_forms(invalid: Sequence[Example], valid: Sequence[Example], start: int) -> list[Candidate]:
    """Comments by kind and a word all invalid examples' comments share and no valid comment has; else by a
    marker the invalid comments write bare and the valid ones qualify (`nolint` beside `nolint:errcheck`)."""
    per_example = [comment_nodes(e) for e in invalid]
    if not all(per_example):
        return []
    words = set.intersection(*(set().union(*(_comment_words(n) for n in ns)) for ns in per_example))
    fine_nodes = [n for e in valid for n in comment_nodes(e)]
    fine = set().union(*(_comment_words(n) for n in fine_nodes))
    kinds = sorted({n.kind for ns in per_example for n in ns})
    kind: dict[str, Any] = of_kinds(kinds)
    out: list[Candidate] = []
    for word in sorted(words - fine, key=lambda w: (-len(w), w))[:2]:
        regex = (r"\b" if re.match(r"\w", word) else "") + re.escape(word) + (r"\b" if re.search(r"\w$", word) else "")
        if any_case(word):
            regex = "(?i)" + regex
        note = (f"flags every comment containing `{word}`; lets through the same note written differently "
                "(another word or spelling)")
        out.append(Candidate({"rule": {**kind, "regex": regex}},
                             Generalised.written(per_example[0][0], f"comment {word}"), COMMENT, start + len(out),
                             note))
    out[:0] = _start_forms(per_example, fine_nodes, kind, start) + _bare_tag(per_example, fine_nodes, kind, start)
    bare = _bare_marker(per_example, fine_nodes)
    if bare is not None:
        note = (f"flags every comment that starts with `{bare[0]}` written bare (not qualified as the valid "
                "examples do); lets through the marker later in a comment")
        out.append(Candidate({"rule": {**kind, "regex": bare[1]}},
                             Generalised.written(per_example[0][0], f"comment {bare[0]}"), COMMENT, start + len(out),
                             note))
    return out
