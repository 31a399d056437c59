"""Text to search terms: words (CWE ids split out), a small stemmer, and the edit distance for typos.

Indexing and querying share these, so a query word and an indexed word meet exactly when their terms do.
"""

from __future__ import annotations

import re

_TOKEN = re.compile(r"[a-z0-9]+")
_CWE = re.compile(r"cwe(\d+)")
_VOWELS = set("aeiouy")


def words(text: str) -> list[str]:
    out: list[str] = []
    for w in _TOKEN.findall(text.lower()):
        m = _CWE.fullmatch(w)
        out.extend(("cwe", m.group(1)) if m else (w,))
    return out


def stem(word: str) -> str:
    """A deliberately small stemmer: inflections (s, es, ed, ing) and a few derivations, so that
    injection/injections/injected and hardcode/hardcoded meet. Consistency matters more than linguistics."""
    if len(word) <= 3 or word.isdigit():
        return word
    w = _derivation(_inflection(_plural(word)))
    if w.endswith("e") and len(w) > 4:
        w = w[:-1]
    if w.endswith("y") and len(w) > 3:
        w = w[:-1] + "i"
    return w


def _plural(w: str) -> str:
    if w.endswith("ies") and len(w) > 4:
        return w[:-3] + "i"
    if w.endswith("sses"):
        return w[:-2]
    if w.endswith("s") and not w.endswith(("ss", "us", "is")):
        return w[:-1]
    return w


def _inflection(w: str) -> str:
    for suffix in ("ing", "ed"):
        base = w[: -len(suffix)]
        if w.endswith(suffix) and len(base) >= 3 and _VOWELS & set(base):
            if len(base) > 3 and base[-1] == base[-2] and base[-1] not in "lsz":
                return base[:-1]
            return base + "e" if base.endswith("at") else base
    return w


def _derivation(w: str) -> str:
    for suffix in ("ation", "ness", "ity", "ion", "ate", "ly"):
        if w.endswith(suffix) and len(w) - len(suffix) >= 4:
            return w[: -len(suffix)]
    return w


def terms(text: str) -> list[str]:
    return [stem(w) for w in words(text)]


def deletes(word: str) -> set[str]:
    """Every string one deletion away from `word` (the symmetric-delete typo table's keys)."""
    return {word[:i] + word[i + 1:] for i in range(len(word))}


def distance(a: str, b: str, limit: int) -> int:
    """Optimal-string-alignment edit distance, giving up (returning limit + 1) once it exceeds `limit`."""
    if abs(len(a) - len(b)) > limit:
        return limit + 1
    prev2: list[int] = []
    prev = list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        cur = [i] + [0] * len(b)
        for j in range(1, len(b) + 1):
            cost = 0 if a[i - 1] == b[j - 1] else 1
            cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost)
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                cur[j] = min(cur[j], prev2[j - 2] + 1)
        if min(cur) > limit:
            return limit + 1
        prev2, prev = prev, cur
    return prev[-1]
