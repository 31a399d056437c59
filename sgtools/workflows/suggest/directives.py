"""The comment text the request writes (issue 29): "no swiftlint:disable all", "no /* istanbul ignore */ or /* c8
ignore */ coverage exclusions", "every unsafe block needs a // SAFETY: comment right above it". The request writes
the directive as it stands in a comment; an author's rule is the language's comment kinds with a regex of that text
as written (words at word boundaries, spaces as `\\s+`, the comment's opener left out: `/* istanbul` is also written
`// istanbul`), with the other variants the request lists in its place (`(istanbul|c8)\\s+ignore`). Where the
examples write a qualifier after a word of it (`swiftlint:disable:this all`), any is allowed there (`\\S*`).

Flagged comments: the text held by the invalid examples' comments and no valid one's. Flagged attributes and
preprocessor directives (`#![deny(warnings)]`, `#[allow(clippy::...)]`): the same, by the kind of the innermost one
holding it, an item the request writes first in parentheses standing among any others (`deny(missing_docs,
warnings)`). A comment needed above code: the text held by a comment in every valid example, and the construct a
near miss matches (`unsafe { ... }`) not following such a comment (`not: follows`), itself or the statement around
it, or not before one on its line (`precedes`: `eval(s) # nosec`) where the valid examples write it there. The
examples confirm the text; the request says it. First when it separates the examples, like the code the request
names (requested.py).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sgtools.workflows.suggest.author import matched
from sgtools.workflows.suggest.candidates import PINNED, PLAIN, REQUESTED, TYPED, Candidate, of_kinds
from sgtools.workflows.suggest.comments import any_case, comment_nodes
from sgtools.workflows.suggest.generalise import Generalised
from sgtools.workflows.suggest.preceding import before
from sgtools.workflows.suggest.sequence import in_sequence
from sgtools.workflows.suggest.tree import Example, Node
from sgtools.workflows.suggest.verify import Outcome

_TOKEN = re.compile(r"\w+|[^\w\s]")
_OPENER = frozenset("/*#;!-")  # comment openers and closers, around the text the request writes
_SPACED_PUNCT = frozenset(":=,()")  # punctuation also written with spaces around it (`type: ignore`, `type:ignore`)
# Comment kinds of the grammars that have more than one (`//` and `/* */` apart); the others call each `comment`.
_COMMENT_KINDS = {"swift": ("comment", "multiline_comment"), "rust": ("line_comment", "block_comment"),
                  "java": ("line_comment", "block_comment"), "kotlin": ("line_comment", "multiline_comment"),
                  "scala": ("comment", "block_comment"), "dart": ("comment", "block_comment", "documentation_comment")}
_DIRECTIVE = re.compile(r"attribute_item|attribute_list|preproc|pragma")  # kinds of directives written as code
_NEAR = 12  # the best plain patterns among the near misses, looked at
_LONGEST = 12  # tokens of the request in one text


@dataclass(frozen=True)
class _Tok:
    text: str
    start: int
    spaced: bool  # written after a space in the request

    @property
    def word(self) -> bool:
        return self.text[0].isalnum() or self.text[0] == "_"


def _tokens(request: str) -> list[_Tok]:
    return [_Tok(m.group(0), m.start(), m.start() > 0 and request[m.start() - 1].isspace())
            for m in _TOKEN.finditer(request)]


def _code_like(request: str, toks: Sequence[_Tok], opened: bool) -> bool:
    """Written as code, not prose: after a comment opener, with punctuation glued to a word (`tslint:disable`,
    `@ts-ignore`, `SAFETY:`), in backticks or quotes, or a word no prose writes (`NOSONAR`, `c8`, `snake_case`)."""
    glued = any(not t.spaced and (not t.word or not toks[k].word) for k, t in enumerate(toks[1:]))
    marked = any(re.fullmatch(r"[A-Z]{3,}|\w*\d\w*|\w+_\w+|[a-z]+[A-Z]\w*", t.text) for t in toks)
    quoted = any(q.start() < toks[0].start < q.end() for q in re.finditer(r"`[^`]+`|\"[^\"]+\"", request))
    return opened or glued or marked or quoted


def _gap(prev: _Tok, tok: _Tok, loose: str) -> str:
    """What may stand between two tokens: spaces where the request writes them; a list's other items before the
    one the request writes first in parentheses (`deny(warnings)` is also `deny(missing_docs, warnings)`)."""
    if prev.text == "(" and tok.text != ")":
        return r"\s*(?:[^()]*,\s*)?"
    if prev.text == tok.text == ":" and not tok.spaced:
        return ""
    if tok.spaced and prev.word and tok.word:
        return loose + r"\s+"
    if tok.spaced or tok.text in _SPACED_PUNCT or prev.text in _SPACED_PUNCT:
        return r"\s*"
    return ""


def _regex(variants: Sequence[Sequence[_Tok]], loose: set[int] | None) -> str:
    """The text as written, the variants' one differing word as alternatives, `\\S*` at the `loose` gaps (a
    group `q<k>` at each gap that may be, for None)."""
    first = variants[0]
    out = r"\b" if first[0].word else ""
    for k, tok in enumerate(first):
        if k:
            out += _gap(first[k - 1], tok, f"(?P<q{k}>\\S*)" if loose is None else r"\S*" if k in loose else "")
        words = list(dict.fromkeys(v[k].text for v in variants))
        out += re.escape(words[0]) if len(words) == 1 else "(" + "|".join(map(re.escape, words)) + ")"
    capitals = all(any_case(t.text) for v in variants for t in v if t.word)
    return ("(?i)" if capitals else "") + out + (r"\b" if first[-1].word else "")


def _qualified(variants: Sequence[Sequence[_Tok]], texts: Sequence[str]) -> set[int]:
    """The gaps where a text writes more glued to the word before it (`disable:this` for `disable`)."""
    probe = re.compile(_regex(variants, None))
    return {int(k[1:]) for text in texts for m in probe.finditer(text) for k, g in m.groupdict().items() if g}


def _family(toks: list[_Tok], core: list[_Tok]) -> list[list[_Tok]]:
    """The core with the request's other runs said the same way but for one word (`/* c8 ignore */` beside `/*
    istanbul ignore */`, `tslint:enable` beside `tslint:disable`): a list of variants."""
    n = len(core)
    best = [core]
    for p in () if n < 2 else (k for k, t in enumerate(core) if t.word):
        same = [toks[s:s + n] for s in range(len(toks) - n + 1)
                if all(toks[s + k].text == core[k].text for k in range(n) if k != p) and toks[s + p].word]
        if len(same) > len(best):
            best = same
    return best


def _opened(toks: list[_Tok], i: int) -> bool:
    """The token before `i` ends a comment opener written just before it (`// SAFETY:`, `/* istanbul`)."""
    return i > 0 and not toks[i - 1].word and toks[i - 1].text in _OPENER


def _ends(run: Sequence[_Tok]) -> bool:
    """A run that starts with a word or `@` and ends with a word or punctuation glued to it (`SAFETY:`), not a
    closing bracket (`deny(warnings)` is also `deny(warnings, unused)`) nor a comment's closer (`FALLTHROUGH */`
    is also `// fallthrough`)."""
    last = run[-1]
    return (run[0].word or run[0].text == "@") and (last.word or (
        not last.spaced and last.text not in ")]}>" and last.text not in _OPENER))


def written_text(request: str, must: Sequence[Sequence[str]], never: Sequence[str]) -> str | None:
    """The regex of the text the request writes (as code, without the comment opener before it) that a comment of
    each of `must` holds and none of `never`: the longest, with the variants the request lists beside it."""
    toks = _tokens(request)
    texts = [t for ts in must for t in ts]
    found: list[tuple[int, int, str]] = []
    for i in range(len(toks)):
        for j in range(i + 1, min(len(toks), i + _LONGEST) + 1):
            run = toks[i:j]
            if not any(re.search(_regex([run], _qualified([run], texts)), t) for t in texts):
                break  # a longer run is not written either
            if not _ends(run) or not _code_like(request, run, _opened(toks, i)):
                continue
            variants = _family(toks, run)
            regex = _regex(variants, _qualified(variants, texts))
            if all(any(re.search(regex, t) for t in ts) for ts in must) and not any(re.search(regex, t)
                                                                                 for t in never):
                found.append((len(run), len(variants), regex))
    return max(found)[2] if found else None


def comment_kinds(language: str, examples: Sequence[Example]) -> list[str]:
    """The language's comment kinds with those the examples show."""
    shown = {n.kind for e in examples for n in e.nodes() if "comment" in n.kind and n.named and n.parent is not None
             and "comment" not in n.parent.kind}
    return sorted(set(_COMMENT_KINDS.get(language, ("comment",))) | shown)


def _comments(example: Example) -> list[str]:
    return [n.text for n in comment_nodes(example)]


def directive_forms(request: str | None, invalid: Sequence[Example], valid: Sequence[Example], language: str,
                    start: int) -> list[Candidate]:
    """Comments holding the text the request writes, as every invalid example's comments do and no valid one's."""
    if not request or not invalid:
        return []
    comments = [_comments(e) for e in invalid]
    if not all(comments):
        return []
    regex = written_text(request, comments, [t for e in valid for t in _comments(e)])
    if regex is None:
        return []
    node = comment_nodes(invalid[0])[0]  # there is one: every invalid example has comments
    note = ("flags every comment holding the text the request writes, as written or spaced otherwise; lets through "
            "the same directive spelt another way")
    return [Candidate({"rule": {**of_kinds(comment_kinds(language, [*invalid, *valid])), "regex": regex}},
                      Generalised.written(node, "comment"), REQUESTED, start, note)]


def _directives(example: Example) -> list[Node]:
    """The directives and the attribute each holds (Rust's `attribute` in `#[...]` and `#![...]` alike)."""
    return [n for n in example.nodes() if n.named and (_DIRECTIVE.search(n.kind) or (
        "attribute" in n.kind and n.parent is not None and _DIRECTIVE.search(n.parent.kind)))]


def _innermost(nodes: list[Node], regex: str) -> list[Node]:
    """The nodes holding the text with no such node inside them: the attribute, not the item around it."""
    held = [n for n in nodes if re.search(regex, n.text)]
    return [n for n in held if not any(o is not n and any(a is n for a in o.ancestors()) for o in held)]


def attribute_forms(request: str | None, invalid: Sequence[Example], valid: Sequence[Example],
                    start: int) -> list[Candidate]:
    """Attributes or preprocessor directives holding the text the request writes, as one
    in every invalid example does and none in a valid one (`#![deny(warnings)]`, `#[allow(clippy::...)]`): by the
    kind of the innermost one holding it."""
    found = [_directives(e) for e in invalid] if request else []
    if not found or not all(found):
        return []
    regex = written_text(str(request), [[n.text for n in ns] for ns in found],
                         [n.text for e in valid for n in _directives(e)])
    if regex is None:
        return []
    nodes = [n for ns in found for n in _innermost(ns, regex)]
    note = ("flags every directive holding the text the request writes, among any other items of its lists; lets "
            "through the same directive spelt another way")
    return [Candidate({"rule": {**of_kinds(sorted({n.kind for n in nodes})), "regex": regex}},
                      Generalised.written(nodes[0], nodes[0].kind), REQUESTED, start, note)]


def _anchor(node: Node) -> Node:
    """The node where it stands in a sequence, else the nearest statement around it (`let v = unsafe {...};`)."""
    return node if in_sequence(node) else next((a for a in node.ancestors() if in_sequence(a)), node)


def _trailing(decl: Node) -> Node | None:
    """The comment after `decl` on its last line (`run(cmd)  # nosec`), if any."""
    kin = [c for c in decl.parent.children if c.named] if decl.parent is not None else []
    at = next((i for i, c in enumerate(kin) if c is decl), len(kin))
    root = [decl, *decl.ancestors()][-1]
    after = kin[at + 1] if at + 1 < len(kin) else None
    between = root.text[decl.end - root.start:after.start - root.start] if after is not None else "\n"
    return after if after is not None and "comment" in after.kind and "\n" not in between else None


def _sides(node: Node, regex: str) -> set[str]:
    """Where a comment holding the text stands by the node or the statement around it: right before it, or after
    it on its line."""
    anchor = _anchor(node)
    after = _trailing(anchor)
    return ({"follows"} if any("comment" in c.kind and re.search(regex, c.text) for c in before(anchor)) else set()) | (
        {"precedes"} if after is not None and re.search(regex, after.text) else set())


def _unless(regex: str, kinds: list[str], found: list[Node], sides: set[str]) -> dict[str, Any]:
    """`follows` a comment holding the text (past other comments and attributes) or `precedes` one on its line, as
    the valid examples write it, by the node itself or, where a match stands inside a statement, by any node
    around it."""
    skipped = sorted(set(kinds) | {c.kind for x in found for c in before(_anchor(x))})
    near = {"follows": {**of_kinds(kinds), "regex": regex, "stopBy": {"not": of_kinds(skipped)}},
            "precedes": {**of_kinds(kinds), "regex": regex}}
    each = [{side: near[side]} for side in sorted(sides)]
    said: dict[str, Any] = each[0] if len(each) == 1 else {"any": each}
    if any(_anchor(x) is not x for x in found):  # the statement around it, whatever its kind
        said = {"any": [said, {"inside": {"stopBy": "end", **said}}]}
    return said


def commented_forms(request: str | None, misses: Sequence[tuple[Candidate, Outcome]], invalid: Sequence[Example],
                    valid: Sequence[Example], language: str, start: int) -> list[Candidate]:
    """A near miss whose valid matches all stand after a comment holding the text the request writes and whose
    invalid ones none: `not: follows` such a comment, by the match itself or the statement around it."""
    regex = written_text(request, [_comments(e) for e in valid], []) if request and valid else None
    if regex is None:
        return []
    n = len(invalid)
    for cand, outcome in [m for m in misses if m[0].form in (PLAIN, TYPED, PINNED)][:_NEAR]:
        good = [x for xs in matched(outcome, valid, n) for x in xs]
        bad = [x for xs in matched(outcome, invalid, 0) for x in xs]
        sides = [_sides(x, regex) for x in good]
        if not good or not bad or not all(sides) or any(_sides(x, regex) for x in bad):
            continue
        said = _unless(regex, comment_kinds(language, [*invalid, *valid]), good + bad, set().union(*sides))
        note = ("flags it unless a comment holding the text the request writes comes right before it (or after it "
                "on its line, as the valid examples write it), or the statement around it; lets through any comment "
                "so worded")
        return [Candidate({**cand.body, "rule": {"all": [cand.body["rule"], {"not": said}]}},
                          Generalised.written(bad[0], "commented"), REQUESTED, start, note)]
    return []
