"""The request's words written as code (issue 29): which words name code (backticked, qualified, called, a macro,
made with `new`, snake/camel/Pascal case, or listed beside such words), which are said as the place of the point
("assigning to innerHTML") or as one of a family ("finders like find_by_email"), and which form one list. The
modules that build rules from the request's words (requested.py, assigned.py) read the request through this.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

_MENTION = re.compile(r"(?<![\w.:$\\])(?P<new>\bnew\s+)?(?P<name>\.?[A-Za-z_]\w*(?:(?:\.|::)[A-Za-z_]\w*)*)"
                      r"(?P<tail>\(\)|\([\w\s,.]*\)|!)?")
_QUALIFIES = re.compile(r"(?:\.|::|->)[A-Za-z_]")  # right after a word: it qualifies the next one (`mem::transmute`)
SEPARATOR = re.compile(r"\s*(?:,\s*(?:and|or)?|and|or|nor|/)\s*")  # between the names of one list
# Words before a name that make it the place of the point, not the point: "assigning to innerHTML", "async
# callbacks in forEach", "set InsecureSkipVerify to true", "comparing size() with 0", "finders like find_by_email".
_PLACE_WORDS = frozenset({"to", "in", "into", "inside", "within", "on", "onto", "with", "from", "like", "as", "than",
                          "set", "setting", "assign", "assigning", "compare", "comparing", "pass", "passing", "passed",
                          "wrap", "wrapping", "around", "after", "before", "through", "via", "over"})


# A call written with a literal argument (`.equals(null)`, `sleep(0)`) is about that argument, not the name.
_LITERAL = re.compile(r"\b(null|nil|None|true|false|True|False|undefined|\d+)\b")
# A name after a keyword or an operator is part of code the request writes (`if (...) throw X(...)`, `x == foo`).
_CODE_WORDS = "throw|raise|return|await|yield|defer|go|if|for|while|catch|except|typeof|instanceof|sizeof|delete"
# Words that say the names written are some of a family, not all of it: "finders like find_by_email", "such as",
# "before_filter and friends", "unwrap_or(...) and the like", "X-style", `mysql_*`.
_FAMILY_BEFORE = re.compile(r"\b(like|such\s+as|e\.g\.,?|including)\s*$", re.IGNORECASE)
_FAMILY_AFTER = re.compile(r"\s*(and\s+(friends|the\s+like|similar|others|co\b)|-style\b|\*|,?\s*etc\b)",
                           re.IGNORECASE)


@dataclass(frozen=True)
class Mention:
    qualifier: str  # `table.` of `table.getn`, `std::` of `std::random_shuffle`
    name: str
    new: bool  # written `new URL(...)`: the object made, not every use of the type
    start: int
    end: int
    placed: bool  # said as part of more code (`isset($x) ? ...`, `Object.assign({}, a)`) or after a place word
    family: bool  # said as one of a family: "finders like find_by_email", "before_filter and friends"
    member: bool = False  # written after a dot alone (`.head`, `.last`): a member of any object, not any name


def mentions(request: str) -> list[Mention]:
    """The request's words written as code: in backticks, qualified, called (`f()`), a macro (`m!`), made with
    `new`, or a name no prose word has (`snake_case`, `camelCase`, `PascalCase`)."""
    quoted = [(m.start(1), m.end(1)) for m in re.finditer(r"`([^`]+)`", request)]
    found = [m for m in _MENTION.finditer(request) if m.group("name").lower() not in ("and", "or", "nor")]
    out = []
    for m, code in zip(found, _listed_with_code(request, found, quoted), strict=True):
        parts = re.split(r"(\.|::)", m.group("name").lstrip("."))
        last = parts[-1]
        span = next(((s, e) for s, e in quoted if s <= m.start("name") and m.end("name") <= e), None)
        if not code or len(last) < 2:
            continue
        whole_text = request[span[0]:span[1]].strip() if span is not None else None
        family = _FAMILY_BEFORE.search(request[:m.start()]) is not None or _FAMILY_AFTER.match(request, m.end())
        placed = _placed(request, m, whole_text)
        glob = "*" if request.startswith("*", m.end()) and not m.group("tail") else ""  # `mysql_*`: its stem
        out.append(Mention("".join(parts[:-1]), last + glob, bool(m.group("new")), m.start(), m.end(), placed,
                            bool(family), m.group("name").startswith(".") and len(parts) == 1))
    return out


def _listed_with_code(request: str, found: list[re.Match[str]], quoted: list[tuple[int, int]]) -> list[bool]:
    """Which words are code: written as code (see `mentions`), or a plain word listed beside code, which the list
    makes a name too ("it.skip, test.skip, xit, xdescribe"; "binding.pry / byebug")."""
    code = []
    for m in found:
        parts = re.split(r"(\.|::)", m.group("name").lstrip("."))
        code.append(bool(m.group("tail") or m.group("new")) or len(parts) > 1 or "_" in parts[-1].strip("_")
                    or m.group("name").startswith(".")
                    or re.search(r"[a-z][A-Z]|[A-Z]\w*[A-Z]", parts[-1]) is not None or request.startswith("*", m.end())
                    or any(s <= m.start("name") and m.end("name") <= e for s, e in quoted))
    changed = True
    while changed:
        changed = False
        for i, m in enumerate(found):
            said = _FAMILY_AFTER.match(request, found[i - 1].end()) if i else None
            if code[i] or (said is not None and said.end() >= m.end()):
                continue  # "and friends", "and the like": the family's words, not one of its names
            code[i] = changed = any(_beside(request, found, code, i, j) for j in (i - 1, i + 1))
    return code


def _beside(request: str, found: list[re.Match[str]], code: list[bool], i: int, j: int) -> bool:
    """Word i is listed beside code word j: by a slash, or by a comma or `and` / `or` where j is itself listed
    beside code (`a.x, b.x, y`), not a clause after one name ("assertEquals, use ...") nor after a list its `and` /
    `or` closed ("new Long(...) or new Boolean(...), use ...")."""
    def joined(a: int, b: int) -> str | None:
        between = request[found[min(a, b)].end():found[max(a, b)].start()]
        return between if SEPARATOR.fullmatch(between) else None
    if not 0 <= j < len(found) or not code[j] or (between := joined(i, j)) is None:
        return False
    k = 2 * j - i  # the word on j's other side
    before = joined(j, k) if 0 <= k < len(found) and code[k] else None
    closed = i > j and before is not None and re.search(r"\b(and|or|nor)\b", before) is not None
    return "/" in between or (before is not None and not closed)


def _placed(request: str, m: re.Match[str], quoted: str | None) -> bool:
    """The name is said as part of more code (`isset($x) ? ...` in backticks, `Object.assign({}, a)`,
    `.equals(null)`, `throw X(...)`) or as the place of the point ("assigning to innerHTML"); "like" and "such as"
    say one of a family instead ("finders like find_by_email")."""
    before = re.findall(r"[\w.]+", request[:m.start()])
    return (request[m.end():m.end() + 1] == "(" or _LITERAL.search(m.group("tail") or "") is not None
            or (quoted is not None and quoted not in (m.group(0).strip(), m.group("name")))
            or (bool(before) and before[-1].lower() in _PLACE_WORDS and not _FAMILY_BEFORE.search(request[:m.start()]))
            or code_before(request[:m.start()]))


def code_before(text: str) -> bool:
    """The text ends in a keyword or an operator: what the request writes next is part of more code."""
    return re.search(r"(\b(" + _CODE_WORDS + r")|[)=<>+*&|])\s*$", text) is not None


def runs(request: str, spans: Sequence[tuple[int, int]],
         gap: Callable[[str], str] = lambda text: text) -> list[list[int]]:
    """Which of the spans (in the request's order) it writes one after another as a list (`a, b and c`, `x / y`),
    by their indexes: a run goes on where the text between two spans, read by `gap`, is a separator."""
    groups: list[list[int]] = []
    for i, (start, _end) in enumerate(spans):
        if groups and SEPARATOR.fullmatch(gap(request[spans[i - 1][1]:start])):
            groups[-1].append(i)
        else:
            groups.append([i])
    return groups


def lists(request: str, mentions: list[Mention]) -> list[list[Mention]]:
    """Mentions written one after another as a list (`a, b and c`, `x / y`): one family of names."""
    return [[mentions[i] for i in run] for run in runs(request, [(m.start, m.end) for m in mentions])]


def qualifiers(request: str) -> set[str]:
    """The words the request writes as a qualifier of the next one (`mem` of `mem::transmute`, `DOMPurify` of
    `DOMPurify.sanitize`): code may leave them out or write them otherwise."""
    return {m.group() for m in re.finditer(r"[A-Za-z_]\w*", request) if _QUALIFIES.match(request, m.end())}
