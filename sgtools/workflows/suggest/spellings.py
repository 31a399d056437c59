"""The spelling a request's words say a name or literal must have (issue 29), read from the words alone: an affix
("counter names must end in _total", "don't prefix interface names with I"), a letter's case ("long literals take
an uppercase L"), a naming style ("snake_case"), a number's range ("no tabIndex above 0"), a marker's written form
("TODO(crbug.com/123456)"); each as a regex per kind of node that carries it (a name, a string, a number as
written, a comment), and which side of the regex is wrong. Where it goes in a rule is spelled.py's part.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sgtools.workflows.suggest.comments import any_case
from sgtools.workflows.suggest.tree import Example, Node

NAME, STRING, NUMBER, COMMENT = "name", "string", "number", "comment"  # what carries a spelling
_NEGATED = re.compile(r"\b(no|not|never|don'?t|do\s+not|avoid|without|nor)\b", re.IGNORECASE)
_AFFIX = r"[`'\"]?([A-Za-z_$][\w$]*|_\w*)[`'\"]?"
_SUFFIX = re.compile(rf"\b(?:end(?:s|ing)?|ended)\s+(?:in|with)\s+{_AFFIX}|\bsuffix(?:ed|es)?\s+(?:with\s+)?{_AFFIX}",
                     re.IGNORECASE)
_PREFIX = re.compile(rf"\b(?:start(?:s|ing)?|begin(?:s|ning)?)\s+with\s+{_AFFIX}|"
                     rf"\bprefix(?:ed|es|ing)?\s+(?:[a-z]+\s+){{0,3}}?with\s+{_AFFIX}", re.IGNORECASE)
_WORD = r"[`'\"]?[A-Za-z_$][\w$]*[`'\"]?"
# More affixes listed after the first: "start with is, has or can", "end in Async/Task".
_MORE = re.compile(rf"(?:\s*,\s*{_WORD})*\s*,?\s+(?:or|and)\s+{_WORD}|(?:\s*/\s*{_WORD})+")
# A naming style by name: "function names must be snake_case", "no camelCase constants", "all caps".
_STYLES = {"snake": r"_*[a-z][a-z0-9]*(_[a-z0-9]+)*_*", "camel": r"[a-z][a-zA-Z0-9]*",
           "pascal": r"[A-Z][a-zA-Z0-9]*", "upper": r"_*[A-Z][A-Z0-9]*(_[A-Z0-9]+)*_*",
           "kebab": r"[a-z][a-z0-9]*(-[a-z0-9]+)*"}
_STYLE = re.compile(r"\b(?:(?P<style>snake|(?:lower|upper)?camel|pascal|kebab|(?:screaming|upper)[_ -]?snake|upper|"
                    r"constant)[_ -]?case\b(?!\s+(?:letter|[A-Za-z])\b)|(?P<caps>all[ -]caps))", re.IGNORECASE)
_CASED = re.compile(r"\b(?P<case>upper|lower|capital)(?:[- ]?case)?\s+(?P<what>letter|[A-Za-z])\b", re.IGNORECASE)
_ABOVE = re.compile(r"\b(?:(?P<up>above|greater\s+than|more\s+than|over|at\s+least|(?P<down>below|under|less\s+than|"
                    r"fewer\s+than|at\s+most))\s+(?P<n>\d+)\b|(?P<sign>positive|negative))\b", re.IGNORECASE)
_FORM = re.compile(r"(?<![\w/])(?P<form>(?P<marker>[A-Z]{3,})\(\S*\d\S*?\))")  # `TODO(crbug.com/123456)`
_NUMBER_KIND = re.compile(r"integer|number|float|decimal|hex|octal|binary|real|int_literal|numeric")
_WRAP_OPEN, _WRAP_CLOSE = r"^[\s{(\"'`]*", r"[\s})\"'`]*$"  # a value as written: `{1}`, `"1"`, `( 1 )`
VALUE = re.compile(_WRAP_OPEN + r"[-+]?\s*\d[\w.]*" + _WRAP_CLOSE)


@dataclass(frozen=True)
class Spelling:
    regex: dict[str, str]  # per carrier class, the regex the spelling tests
    flagged: bool  # True: a carrier is wrong when it matches; False: when it does not
    what: str  # for the note
    alone: bool = True  # said on the carrier by itself where it is a construct (not a number's range)
    holds: str | None = None  # what a carrier says to be subject to the spelling (a comment's marker)

    def wrong(self, node: Node, as_: str | None = None) -> bool:
        """The node is spelt as the request forbids, read as a carrier of its own class or of `as_`."""
        regex = self.regex.get(as_ or carrier(node) or "")
        return regex is not None and (self.holds is None or re.search(self.holds, node.text) is not None) and (
            re.search(regex, node.text) is not None) == self.flagged

    def shown(self, examples: Sequence[Example]) -> bool:
        """Some example writes a node spelt as the request asks: a spelling every name must have is confirmed by
        the valid examples carrying it (`SaveAsync`), not by their lacking the construct."""
        return any(self.regex.get(kind := carrier(n) or "") is not None and not self.wrong(n, kind)
                   and (self.holds is None or re.search(self.holds, n.text) is not None)
                   for e in examples for n in e.nodes())

    def clause(self, as_: str) -> dict[str, Any]:
        regex = self.regex[as_]
        return {"regex": regex} if self.flagged else {"not": {"regex": regex}}


def carrier(node: Node) -> str | None:
    """What kind of spelling-carrying node this is: a comment, a whole string, a number as written (with its sign
    and the braces or quotes around it) or a name; None for anything else."""
    if not node.named:
        return None
    if "comment" in node.kind:
        return COMMENT
    if "string" in node.kind and not (node.parent is not None and "string" in node.parent.kind):
        return STRING
    if VALUE.fullmatch(node.text) and any(_NUMBER_KIND.search(d.kind) for d in node.walk()):
        return NUMBER if not (node.parent is not None and VALUE.fullmatch(node.parent.text)) else None
    if not node.children and re.fullmatch(r"[A-Za-z_$][\w$]*", node.text) and not (
            node.parent is not None and "string" in node.parent.kind):
        return NAME
    return None


def _affixed(affixes: list[str], suffix: bool) -> dict[str, str]:
    """The regex of affixes on a name and inside a string: a prefix up to a word part (`^I[A-Z]`, `^get_`)."""
    word = re.escape(affixes[0]) if len(affixes) == 1 else "(" + "|".join(map(re.escape, affixes)) + ")"
    if suffix:
        return {NAME: f"{word}$", STRING: f"{word}[\"'`]$"}
    part = "[A-Z0-9_]" if all(a[-1:].isalnum() for a in affixes) else ""
    return {NAME: f"^{word}{part}", STRING: f"^[@$\\w]{{0,2}}[\"'`]{word}{part}"}


def above(n: int) -> str:
    """The integers greater than n: more digits, or as many and greater at the first digit that differs."""
    digits = str(n)
    out = [rf"[1-9]\d{{{len(digits)},}}"]
    for i, ch in enumerate(digits):
        if ch != "9":
            rest = len(digits) - i - 1
            out.append(digits[:i] + f"[{int(ch) + 1}-9]" + (rf"\d{{{rest}}}" if rest else ""))
    return "(" + "|".join(out) + ")"


def _negated(request: str, at: int) -> bool:
    """A negation word earlier in the clause that says it (`no tabIndex above 0`, `don't prefix ...`)."""
    clause = re.split(r"[;:.]|,\s", request[:at])[-1]
    return _NEGATED.search(clause) is not None


def spellings(request: str) -> list[Spelling]:
    """The spellings the request's words say: an affix, a letter's case, a number's range, a marker's form."""
    out: list[Spelling] = []
    for pattern, suffix in ((_SUFFIX, True), (_PREFIX, False)):
        for m in pattern.finditer(request):
            affix = next(g for g in m.groups() if g)
            if affix.lower() in ("a", "an", "the"):
                continue
            more = _MORE.match(request, m.end())
            affixes = [affix, *(w.strip("`'\"") for w in re.findall(_WORD, more.group(0)) if w not in ("or", "and"))
                       ] if more else [affix]
            out.append(Spelling(_affixed(affixes, suffix), _negated(request, m.start()),
                                f"{'ending' if suffix else 'starting'} with {' / '.join(affixes)}"))
    out += _cased(request) + _styled(request)
    out += [said for m in _ABOVE.finditer(request) if (said := _ranged(request, m)) is not None]
    for m in _FORM.finditer(request):
        form = re.sub(r"\d+", r"\\d+", re.escape(m.group("form")))
        marker = m.group("marker")
        holds = rf"(?i)\b{marker}\b" if any_case(marker) else rf"\b{marker}\b"
        out.append(Spelling({COMMENT: form}, False, m.group("form"), holds=holds))
    return out


def _styled(request: str) -> list[Spelling]:
    """A naming style the request names (`snake_case`, `PascalCase`, "all caps"): a name, or a string's text, in it
    whole; wrong when it is not, or, after a negation ("no camelCase constants"), when it is."""
    out: list[Spelling] = []
    for m in _STYLE.finditer(request):
        said = (m.group("style") or "upper").lower()
        style = next(v for k, v in _STYLES.items() if k in said or (k == "upper" and "constant" in said))
        if said[:1] in "su" and said not in ("snake", "upper") and ("snake" in said or "camel" in said):
            # SCREAMING_SNAKE_CASE, UPPER_SNAKE_CASE; UpperCamelCase is PascalCase
            style = _STYLES["upper" if "snake" in said else "pascal"]
        out.append(Spelling({NAME: f"^{style}$", STRING: f"^[@$\\w]{{0,2}}[\"'`]{style}[\"'`]$"},
                            _negated(request, m.start()), m.group(0)))
    return out


def _ranged(request: str, m: re.Match[str]) -> Spelling | None:
    """A number's range: above N (at least N: above N - 1), positive, negative; below N and at most N said by the
    numbers above N - 1 and N, the other side of it wrong: "no timeouts below 100" flags a number as written that
    is not above 99, "must be at most 3" one above 3."""
    sign = (m.group("sign") or "").lower()
    n = 0 if sign else int(m.group("n"))
    word = (m.group("up") or "").lower()
    floor = n - 1 if word in ("at least", "below", "under", "less than", "fewer than") else n
    if sign == "negative":
        value = r"-\s*\d[\w.]*"
    elif floor >= 0:
        value = r"\+?" + above(floor) + "[lLuU]*"
    else:
        return None
    negated = _negated(request, m.start())
    return Spelling({NUMBER: _WRAP_OPEN + value + _WRAP_CLOSE}, negated != bool(m.group("down")), m.group(0),
                    alone=False)


def _cased(request: str) -> list[Spelling]:
    """A letter the request says in one case (`uppercase L`: the other case is wrong, at the end or the start of
    the literal, wherever the examples write it); a first letter in a case (`start with a lower-case letter`)."""
    out: list[Spelling] = []
    for m in _CASED.finditer(request):
        upper = m.group("case").lower() in ("upper", "capital")
        what = m.group("what")
        if what.lower() == "letter":
            first = "[a-z]" if upper else "[A-Z]"
            out.append(Spelling({NAME: f"^{first}", STRING: f"^[@$\\w]{{0,2}}[\"'`]{first}"}, True, m.group(0)))
            continue
        wrong = what.lower() if upper else what.upper()
        if _negated(request, m.start()) and what == (what.lower() if not upper else what.upper()):
            wrong = what  # "no lowercase l": the letter said is the wrong one
        for at in (f"{wrong}$", f"^{wrong}"):
            out.append(Spelling({NUMBER: at, NAME: at}, True, m.group(0)))
    return out
