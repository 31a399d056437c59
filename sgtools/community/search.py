"""Relevance-ranked search over community rules: BM25F with field weights, a light stemmer, synonyms and typos.

An agent asks in words ("hardcoded pasword in python", "sqli"), not in rule ids, so matching is on stems,
known security synonyms and near-miss spellings; ids and tags weigh most because they are the curated words.
Everything derived from the rules (postings, idf, the typo table) is computed once per set of source digests
and kept as JSON in the user cache dir, so a new process answers its first query without rebuilding.
Standard library only: this module is imported on every CLI search.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import math
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from sgtools.community.terms import deletes, distance, stem, terms, words
from sgtools.core.atomic import write_atomic
from sgtools.core.languages import canonical

FORMAT = 2  # bump when the persisted layout, the tokenizer or the scoring inputs change
FIELD_WEIGHTS = {"id": 3.0, "tags": 3.0, "language": 1.5, "description": 1.5, "message": 1.0}
K1 = 1.2
B = 0.75
DOC_FIELDS = ("id", "language", "severity", "message", "description", "tags", "hasFix", "source")
# A query word -> words that mean the same to someone looking for a rule. Values are stemmed like the text.
SYNONYMS_RAW: dict[str, str] = {
    "sqli": "sql injection",
    "xss": "cross site scripting",
    "rce": "command execution injection",
    "cmdi": "command injection",
    "ssrf": "server side request forgery",
    "csrf": "cross site request forgery",
    "xxe": "xml external entity",
    "secret": "password credential key token hardcoded",
    "secrets": "password credential key token hardcoded",
    "credential": "password secret",
    "password": "credential secret",
    "passwd": "password",
    "pwd": "password",
    "creds": "credential password",
    "hardcoded": "hard coded",
    "crypto": "cryptographic cipher encryption hash",
    "encryption": "cipher crypto",
    "cipher": "encryption crypto",
    "tls": "ssl certificate",
    "ssl": "tls certificate",
    "cert": "certificate",
    "tmp": "temporary",
    "temp": "temporary",
    "regex": "regular expression",
    "redos": "regular expression denial",
    "deserialize": "deserialization pickle unmarshal",
    "pickle": "deserialization",
    "shell": "command subprocess",
    "exec": "execution command eval",
    "eval": "exec code injection",
    "debug": "debugging",
    "log": "logging print",
    "print": "logging",
    "js": "javascript",
    "ts": "typescript",
    "py": "python",
    "golang": "go",
    "auth": "authentication",
    "jwt": "token",
    "md5": "hash weak",
    "sha1": "hash weak",
    "random": "randomness insecure",
    "cors": "origin",
    "perf": "performance",
}
_TYPO_MIN = 4  # tokens shorter than this are never corrected: too many near neighbours
_TYPO_MAX = 24  # nor longer ones: no real word is that long, and the neighbourhood grows with the square
_QUERY_WORDS = 32  # words of a query that count; the rest cannot change a ranking over one-line descriptions
_PREFIX_MIN = 4

def _field_terms(doc: dict[str, Any]) -> dict[str, list[str]]:
    tags = doc.get("tags") or []
    return {
        "id": terms(str(doc.get("id", "")).replace("_", " ")),
        "tags": [t for tag in tags for t in terms(str(tag))],
        "language": terms(str(doc.get("language", ""))),
        "description": terms(str(doc.get("description") or "")),
        "message": terms(str(doc.get("message") or "")),
    }


def _postings(per_doc: list[dict[str, list[str]]]) -> dict[str, list[list[float]]]:
    """BM25F: each term's (document, saturated field-weighted frequency) pairs."""
    n = len(per_doc)
    avg = {f: (sum(len(t[f]) for t in per_doc) / n if n else 1.0) or 1.0 for f in FIELD_WEIGHTS}
    postings: dict[str, list[list[float]]] = {}
    for i, fields in enumerate(per_doc):
        weighted: dict[str, float] = {}
        for f, toks in fields.items():
            norm = 1 - B + B * len(toks) / avg[f]
            for t in toks:
                weighted[t] = weighted.get(t, 0.0) + FIELD_WEIGHTS[f] / norm
        for t, tf in weighted.items():
            postings.setdefault(t, []).append([i, round(tf / (K1 + tf), 6)])
    return postings


# ---- the index ----------------------------------------------------------------------------------------------


class SearchIndex:
    """Postings with precomputed BM25F term weights, idf, and a typo table (deletion neighbourhoods)."""

    def __init__(self, data: dict[str, Any]) -> None:
        self.key: str = data["key"]
        self.docs: list[dict[str, Any]] = data["docs"]
        self.postings: dict[str, list[list[float]]] = data["postings"]
        self.idf: dict[str, float] = data["idf"]
        self.surface: dict[str, str] = data["surface"]  # written word (and each stem) -> stem
        # written word minus one letter -> written words; derived from `surface`, so it is not persisted (it is over
        # half of the file) and is built on the first query that needs typo correction.
        self._deletes_table: dict[str, list[str]] | None = data.get("deletes")
        self.synonyms: dict[str, list[list[str]]] = data["synonyms"]
        self.vocab_sorted: list[str] = sorted(self.idf)
        self.origin = "built"  # "built" | "disk" | "memory": how this process got it (for tests and stats)

    # ---- building ----

    @classmethod
    def build(cls, docs: Iterable[dict[str, Any]], key: str = "") -> SearchIndex:
        kept = [{k: d.get(k) for k in DOC_FIELDS} for d in docs]
        postings = _postings([_field_terms(d) for d in kept])
        n = len(kept)
        idf = {t: round(math.log(1 + (n - len(p) + 0.5) / (len(p) + 0.5)), 6) for t, p in postings.items()}
        surface: dict[str, str] = {}
        for d in kept:
            text = " ".join(str(d.get(k) or "") for k in ("id", "language", "description", "message"))
            for w in words(text.replace("_", " ") + " " + " ".join(map(str, d.get("tags") or []))):
                surface.setdefault(w, stem(w))
        for t in idf:
            surface.setdefault(t, t)
        synonyms: dict[str, list[list[str]]] = {}
        for word, expansion in SYNONYMS_RAW.items():
            known = [t for t in terms(expansion) if t in idf]
            if known:
                alts = [known]
                synonyms[stem(word)] = alts
                synonyms.setdefault(word, alts)
        return cls({"key": key, "docs": kept, "postings": postings, "idf": idf, "surface": surface,
                    "synonyms": synonyms})

    @property
    def deletes(self) -> dict[str, list[str]]:
        if self._deletes_table is None:
            table: dict[str, list[str]] = {}
            for w in sorted(self.surface):
                if len(w) >= _TYPO_MIN:
                    for gone in sorted(deletes(w)):
                        table.setdefault(gone, []).append(w)
            self._deletes_table = table
        return self._deletes_table

    def to_json(self) -> bytes:
        data = {"format": FORMAT, "key": self.key, "docs": self.docs, "postings": self.postings, "idf": self.idf,
                "surface": self.surface, "synonyms": self.synonyms}
        return json.dumps(data, separators=(",", ":"), sort_keys=True).encode("utf-8")

    # ---- querying ----

    def _typos(self, word: str) -> list[tuple[str, float]]:
        """Indexed stems whose written form is within edit distance 1 (2 for words of 6+ letters)."""
        limit = 1 if len(word) < 6 else 2
        variants = {word} | deletes(word)
        if limit == 2:
            variants |= {d2 for d in list(variants) for d2 in deletes(d)}
        forms: set[str] = set()
        for v in variants:
            if v in self.surface:
                forms.add(v)
            forms.update(self.deletes.get(v, ()))
        out: dict[str, float] = {}
        for form in forms:
            dist = distance(word, form, limit)
            target = self.surface.get(form, form)
            if dist <= limit and target in self.idf:
                out[target] = max(out.get(target, 0.0), 0.8 if dist <= 1 else 0.6)
        return sorted(out.items())

    def _alternatives(self, raw: str) -> list[list[tuple[str, float]]]:
        """Ways to read one query word: itself, its synonyms, a spelling fix, a prefix, or two words run together."""
        s = stem(raw)
        alts: list[list[tuple[str, float]]] = []
        if s in self.idf:
            alts.append([(s, 1.0)])
        elif raw in self.surface and self.surface[raw] in self.idf:
            alts.append([(self.surface[raw], 1.0)])
        for key in (raw, s):
            for expansion in self.synonyms.get(key, ()):
                alts.append([(t, 0.7) for t in expansion])
        if not alts and _TYPO_MIN <= len(raw) <= _TYPO_MAX:
            alts += [[(t, w)] for t, w in self._typos(raw)]
            if not alts:
                for i in range(3, len(raw) - 2):  # "hardcoded" vs "hard coded"
                    a, b = stem(raw[:i]), stem(raw[i:])
                    if a in self.idf and b in self.idf:
                        alts.append([(a, 0.8), (b, 0.8)])
        if not alts and len(s) >= _PREFIX_MIN:
            import bisect

            i = bisect.bisect_left(self.vocab_sorted, s)
            while i < len(self.vocab_sorted) and self.vocab_sorted[i].startswith(s) and len(alts) < 8:
                alts.append([(self.vocab_sorted[i], 0.6)])
                i += 1
        return alts

    def search(self, query: str, *, language: str | None = None, tags: Iterable[str] = (),
               limit: int = 10, source: str | None = None) -> list[tuple[dict[str, Any], float]]:
        allowed = self._allowed(language, tags, source)
        raw_words = list(dict.fromkeys(words(query)))[:_QUERY_WORDS]
        if not raw_words:
            pool = range(len(self.docs)) if allowed is None else sorted(allowed)
            hits = sorted(pool, key=lambda i: self.docs[i]["id"])[:limit]
            return [(self.docs[i], 0.0) for i in hits]
        groups = [self._alternatives(w) for w in raw_words]
        # Two query words that are one indexed word ("hard coded" -> hardcod) count as one more group.
        for a, b in itertools.pairwise(raw_words):
            joined = stem(a + b)
            if joined in self.idf:
                groups.append([[(joined, 1.0)]])
        scores: dict[int, float] = {}
        matched: dict[int, int] = {}
        for alts in groups:
            for d, v in self._best(alts, allowed).items():
                scores[d] = scores.get(d, 0.0) + v
                matched[d] = matched.get(d, 0) + 1
        joined_query = "-".join(raw_words)
        exact = " ".join(query.lower().split())
        ranked = sorted(self._rank(d, v * (0.35 + 0.65 * matched[d] / len(groups)), joined_query, exact)
                        for d, v in scores.items())
        return [(self.docs[d], round(-neg, 4)) for _tier, neg, _rid, d in ranked[:limit]]

    def _allowed(self, language: str | None, tags: Iterable[str], source: str | None) -> set[int] | None:
        """The documents the filters leave (None: no filter)."""
        lang = canonical(language) if language else None
        if language and lang is None:
            lang = language.strip().lower()
        want_tags = {t.strip().lower() for t in tags if t.strip()}
        if not (lang or want_tags or source):
            return None
        return {i for i, d in enumerate(self.docs)
                if (not lang or d.get("language") == lang)
                and (not source or from_source(d, source))
                and want_tags <= {str(t).lower() for t in d.get("tags") or []}}

    def _best(self, alts: list[list[tuple[str, float]]], allowed: set[int] | None) -> dict[int, float]:
        """Each document's score for one query word: its best-scoring alternative (the word, a synonym, a typo)."""
        best: dict[int, float] = {}
        for alt in alts:
            acc: dict[int, float] = {}
            for term, weight in alt:
                idf = self.idf.get(term, 0.0) * weight
                for doc, tfw in self.postings.get(term, ()):
                    d = int(doc)
                    if allowed is None or d in allowed:
                        acc[d] = acc.get(d, 0.0) + idf * tfw
            for d, v in acc.items():
                if v > best.get(d, 0.0):
                    best[d] = v
        return best

    def _rank(self, d: int, score: float, joined_query: str, exact: str) -> tuple[int, float, str, int]:
        """A sort key: a query that is a rule's id or its whole message names that rule, from whichever source,
        so it goes first, above any looser match however well its words score; then by score."""
        entry = self.docs[d]
        rid = str(entry["id"]).lower()
        if rid == joined_query:
            score *= 2.0
        elif joined_query in rid:
            score *= 1.25
        message = " ".join(str(entry.get("message", "")).lower().split())
        named = rid in (exact, joined_query) or message == exact
        return (0 if named else 1, -score, rid, d)


def from_source(doc: dict[str, Any], source: str) -> bool:
    """A result's source label is its declared name, followed by `(location)` for a configured source."""
    label = str(doc.get("source") or "")
    want = source.strip()
    return label == want or label.startswith(want + " (") or label.endswith(f"({want})")


# ---- persistence --------------------------------------------------------------------------------------------

_memory: dict[str, SearchIndex] = {}


def index_key(digests: Iterable[tuple[str, str]]) -> str:
    """One key for an ordered set of (source location, index digest): any change means a rebuild."""
    h = hashlib.sha256(f"search-format-{FORMAT}".encode())
    for location, digest in digests:
        h.update(f"\0{location}\0{digest}".encode())
    return h.hexdigest()


def load_or_build(key: str, docs: Callable[[], list[dict[str, Any]]], cache: Path | None) -> SearchIndex:
    """The search index for `key`: from this process, else from the cache dir, else built (and saved)."""
    if key in _memory:
        found = _memory[key]
        found.origin = "memory"
        return found
    path = cache / f"search-{key[:40]}.json" if cache is not None else None
    if path is not None and path.is_file():
        try:
            data = json.loads(path.read_bytes())
            if data.get("format") == FORMAT and data.get("key") == key:
                index = SearchIndex(data)
                index.origin = "disk"
                _memory.clear()
                _memory[key] = index
                return index
        except (OSError, ValueError, KeyError, TypeError):
            pass  # a damaged cache file is rebuilt below
    index = SearchIndex.build(docs(), key)
    if path is not None:
        _save(path, index.to_json())
    _memory.clear()
    _memory[key] = index
    return index


def _save(path: Path, data: bytes) -> None:
    """Atomic replace; older search indexes in the same directory are removed (they can never match again)."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(path, data)
        for old in path.parent.glob("search-*.json"):
            if old != path:
                old.unlink(missing_ok=True)
    except OSError:
        pass  # a read-only cache dir only costs a rebuild next time
