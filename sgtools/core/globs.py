"""Rule globs (`files`, `ignores`, `languageGlobs`) matched in time linear in the path, like ast-grep's globset.

A rule file is untrusted input: a glob such as `*a*a*a*a*a*a*a*a*ab` is valid for globset, which matches it
with an automaton, while a backtracking regex takes exponential time on it and holds the GIL. So a glob is
parsed into a small Thompson automaton and matched by a lazily built DFA: each path character costs one dict
look-up once seen, at most one pass over the automaton's states otherwise; the DFA cache is bounded.

Semantics are globset's defaults (literal_separator off, so `*` and `?` also match `/`): `**/` at the start
matches any leading directories or none, `/**` at the end anything below, `/**/` in the middle one or more
separators; `{a,b}` alternates (nestable); `[...]` classes with ranges and `!`/`^` negation; `\\` escapes.
A glob globset would reject (unclosed class or alternation, reversed range, dangling escape) compiles to None.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any, TypeAlias

# ---- the parsed form: a sequence of nodes ---------------------------------------------------------------------


@dataclass(frozen=True)
class _Char:
    """One character: a literal (`chars` of length 1), any (`any_char`), or a class (`ranges`, `negate`)."""
    ranges: tuple[tuple[str, str], ...] = ()
    negate: bool = False
    any_char: bool = False

    def accepts(self, c: str) -> bool:
        if self.any_char:
            return True
        inside = any(lo <= c <= hi for lo, hi in self.ranges)
        return inside != self.negate


@dataclass(frozen=True)
class _AnyRun:
    """Any run of characters, possibly empty (`*`, `**`)."""


@dataclass(frozen=True)
class _Alt:
    options: tuple[tuple[_Node, ...], ...]


_Node: TypeAlias = _Char | _AnyRun | _Alt
_SLASH = _Char(ranges=(("/", "/"),))


def _lit(c: str) -> _Char:
    return _Char(ranges=((c, c),))


def _class(glob: str, i: int) -> tuple[_Char, int]:
    """A `[...]` class starting at glob[i] == '[' -> (node, index after it)."""
    j = i + 1
    negate = j < len(glob) and glob[j] in "!^"
    if negate:
        j += 1
    ranges: list[tuple[str, str]] = []
    first = True
    while j < len(glob) and (glob[j] != "]" or first):
        first = False
        ch = glob[j]
        if j + 2 < len(glob) and glob[j + 1] == "-" and glob[j + 2] != "]":
            if glob[j + 2] < ch:
                raise ValueError(f"invalid range {ch}-{glob[j + 2]} in glob {glob!r}")
            ranges.append((ch, glob[j + 2]))
            j += 3
            continue
        ranges.append((ch, ch))
        j += 1
    if j >= len(glob):
        raise ValueError(f"unclosed character class in glob {glob!r}")
    return _Char(ranges=tuple(ranges), negate=negate), j + 1


def _alternatives(glob: str, i: int) -> tuple[list[str], int]:
    """`{a,b{c,d}}` starting at glob[i] == '{' -> (top-level alternatives, index after the closing brace)."""
    depth = 0
    parts: list[str] = []
    current: list[str] = []
    j = i
    while j < len(glob):
        ch = glob[j]
        if ch == "\\" and j + 1 < len(glob):
            current.append(glob[j:j + 2])
            j += 2
            continue
        if ch == "{":
            depth += 1
            if depth > 1:
                current.append(ch)
        elif ch == "}":
            depth -= 1
            if depth == 0:
                parts.append("".join(current))
                return parts, j + 1
            current.append(ch)
        elif ch == "," and depth == 1:
            parts.append("".join(current))
            current = []
        else:
            current.append(ch)
        j += 1
    raise ValueError(f"unclosed alternation in glob {glob!r}")


def _double_star(glob: str, i: int, out: list[_Node]) -> int:
    """`**` at glob[i]: append its meaning to `out`, return the index after it."""
    n = len(glob)
    at_start = i == 0
    after_sep = i > 0 and glob[i - 1] == "/"
    nxt = glob[i + 2] if i + 2 < n else ""
    if at_start and nxt == "/":  # `**/x`: no leading directory, a leading `/`, or any run ending in `/`
        out.append(_Alt(((), (_SLASH,), (_AnyRun(), _SLASH))))
        return i + 3
    if after_sep and nxt == "/":  # `a/**/b`: one separator, or a run between two
        out[-1:] = [_Alt(((_SLASH,), (_SLASH, _AnyRun(), _SLASH)))]
        return i + 3
    if after_sep and nxt == "":  # `a/**`: anything below
        out[-1:] = [_SLASH, _AnyRun()]
        return i + 2
    out.append(_AnyRun())
    return i + 2


def parse(glob: str) -> tuple[_Node, ...]:
    """The glob as a node sequence; ValueError when globset would reject it."""
    out: list[_Node] = []
    i = 0
    n = len(glob)
    while i < n:
        ch = glob[i]
        if ch == "\\":
            if i + 1 >= n:
                raise ValueError(f"dangling escape in glob {glob!r}")
            out.append(_lit(glob[i + 1]))
            i += 2
        elif ch == "*":
            if i + 1 < n and glob[i + 1] == "*":
                i = _double_star(glob, i, out)
                continue
            out.append(_AnyRun())
            i += 1
        elif ch == "?":
            out.append(_Char(any_char=True))
            i += 1
        elif ch == "[":
            node, i = _class(glob, i)
            out.append(node)
        elif ch == "{":
            alts, i = _alternatives(glob, i)
            out.append(_Alt(tuple(parse(a) for a in alts)))
        elif ch == "}":
            raise ValueError(f"unopened alternation in glob {glob!r}")
        else:
            out.append(_lit(ch))
            i += 1
    return tuple(out)


# ---- the automaton ----------------------------------------------------------------------------------------------


@dataclass
class _Nfa:
    """States are ints. A char state consumes one character it accepts and moves to `nxt`; a split state has
    epsilon edges only; `final` accepts."""
    preds: dict[int, _Char] = field(default_factory=dict)
    nxt: dict[int, int] = field(default_factory=dict)
    eps: dict[int, list[int]] = field(default_factory=dict)
    count: int = 0

    def new(self) -> int:
        self.count += 1
        return self.count - 1

    def build(self, seq: tuple[_Node, ...], out: int) -> int:
        """States for `seq` followed by state `out`; returns the entry state (built back to front)."""
        state = out
        for node in reversed(seq):
            state = self._node(node, state)
        return state

    def _node(self, node: _Node, out: int) -> int:
        s = self.new()
        if isinstance(node, _Char):
            self.preds[s] = node
            self.nxt[s] = out
        elif isinstance(node, _AnyRun):  # s: eps -> (consume any -> s) | out
            any_state = self.new()
            self.preds[any_state] = _Char(any_char=True)
            self.nxt[any_state] = s
            self.eps[s] = [any_state, out]
        else:
            self.eps[s] = [self.build(option, out) for option in node.options]
        return s


_MAX_DFA_STATES = 4096  # per glob; past it the cache restarts (matching stays linear, only slower)


class GlobMatcher:
    """A compiled glob. `match(path)` is O(len(path) * automaton size) at worst, one dict look-up per
    character once the DFA is warm. Thread-safe."""

    def __init__(self, glob: str, nodes: tuple[_Node, ...]) -> None:
        self.glob = glob
        nfa = _Nfa()
        self._final = nfa.new()
        start = nfa.build(nodes, self._final)
        self._nfa = nfa
        self._closure: dict[int, frozenset[int]] = {}
        self._lock = threading.Lock()
        self._start = self._close([start])
        self._dfa: dict[frozenset[int], dict[str, frozenset[int]]] = {}

    def _close(self, states: list[int]) -> frozenset[int]:
        """Epsilon closure, keeping only char states and the final state (all a DFA state needs)."""
        seen: set[int] = set()
        stack = list(states)
        while stack:
            s = stack.pop()
            if s in seen:
                continue
            seen.add(s)
            stack.extend(self._nfa.eps.get(s, ()))
        return frozenset(s for s in seen if s in self._nfa.preds or s == self._final)

    def _step(self, current: frozenset[int], c: str) -> frozenset[int]:
        targets = [self._nfa.nxt[s] for s in current if s != self._final and self._nfa.preds[s].accepts(c)]
        return self._close(targets)

    def match(self, path: str) -> bool:
        """Does the whole of `path` match the glob?"""
        state = self._start
        with self._lock:
            dfa = self._dfa
            for c in path:
                row = dfa.get(state)
                if row is None:
                    if len(dfa) >= _MAX_DFA_STATES:
                        dfa.clear()
                    row = dfa[state] = {}
                nxt = row.get(c)
                if nxt is None:
                    nxt = row[c] = self._step(state, c)
                if not nxt:
                    return False
                state = nxt
        return self._final in state


_cache: dict[str, GlobMatcher | None] = {}
_cache_lock = threading.Lock()


def compile_glob(glob: str) -> GlobMatcher | None:
    """The matcher of one glob, or None when globset would reject it (ast-grep then rejects the rule)."""
    with _cache_lock:
        if glob in _cache:
            return _cache[glob]
    try:
        matcher: GlobMatcher | None = GlobMatcher(glob, parse(glob))
    except ValueError:
        matcher = None
    with _cache_lock:
        return _cache.setdefault(glob, matcher)


def glob_match(glob: str, path: str) -> bool:
    matcher = compile_glob(glob)
    return matcher is not None and matcher.match(path)


def glob_list(value: Any) -> list[str]:
    """A `files`/`ignores` value as a list of globs (one string or a list)."""
    if isinstance(value, str):
        return [value]
    return [str(v) for v in value] if isinstance(value, list) else []
