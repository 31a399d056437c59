"""Verification: every candidate rule scanned over every example in one ast-grep call.

All candidates go into one multi-document rule file with ids `c0`, `c1`, ...; the examples are temp files.
A rule ast-grep refuses (a pattern that is not one node, say) fails the whole call, so a refused batch is split
in halves until the refused rules are found and dropped: a bad candidate costs a few calls, never a wrong answer.
"""

from __future__ import annotations

import os
import re
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sgtools.core.errors import EngineFailed
from sgtools.engine.process import NO_CONFIG, Engine
from sgtools.engine.tempdirs import tmp_root
from sgtools.engine.texts import scan_texts
from sgtools.scan.rulefiles import yaml_doc

if TYPE_CHECKING:
    from sgtools.engine.match import AstGrepMatch

# ast-grep's exit code for a rule it cannot parse (pattern, kind, regex, YAML).
_RULE_REFUSED = 8


@dataclass
class Outcome:
    """Which examples one rule matched: per example, the matches' byte ranges and texts (and fixes)."""

    refused: bool = False
    hits: list[list[AstGrepMatch]] = field(default_factory=list)
    why: str = ""  # when refused: ast-grep's own words, its last (most specific) cause

    def matched(self, index: int) -> bool:
        return bool(self.hits[index])

    def separates(self, n_invalid: int) -> bool:
        """The rule flagged every invalid example (the first `n_invalid` texts) and none of the rest."""
        return not self.refused and all(self.hits[:n_invalid]) and not any(self.hits[n_invalid:])


@contextmanager
def rules_file(language: str, bodies: Mapping[str, Mapping[str, Any]], prefix: str) -> Iterator[Path]:
    """The candidate bodies, by id, as one multi-document rule file (severity hint) in the private temp directory,
    removed after: verification's and the workspace proof's (proof.py) one writer of it."""
    docs = [yaml_doc({"id": rule_id, "language": language, "severity": "hint", **body})
            for rule_id, body in bodies.items()]
    fd, name = tempfile.mkstemp(prefix=prefix, suffix=".yml", dir=tmp_root())
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write("\n---\n".join(docs) + "\n")
        yield Path(name)
    finally:
        Path(name).unlink(missing_ok=True)


def _run(engine: Engine, language: str, file_name: str, bodies: Sequence[Mapping[str, Any]], ids: Sequence[int],
         texts: Sequence[str]) -> dict[int, list[list[AstGrepMatch]]]:
    with rules_file(language, {f"c{i}": bodies[i] for i in ids}, "suggest-") as path:
        per_text = scan_texts(engine, NO_CONFIG, path, file_name, texts)
    out: dict[int, list[list[AstGrepMatch]]] = {i: [[] for _ in texts] for i in ids}
    for t, matches in enumerate(per_text):
        for m in matches:
            rid = str(m.get("ruleId", ""))
            if rid.startswith("c") and rid[1:].isdigit() and int(rid[1:]) in out:
                out[int(rid[1:])][t].append(m)
    return out


_SOURCE = re.compile(r"pattern source `(.*)`\.?$", re.S)


def _texts_of(node: Any) -> Iterator[str]:
    if isinstance(node, Mapping):
        for key, value in node.items():
            if key in ("pattern", "context") and isinstance(value, str):
                yield value
            else:
                yield from _texts_of(value)
    elif isinstance(node, list):
        for item in node:
            yield from _texts_of(item)


def _named_in(exc: EngineFailed, bodies: Sequence[Mapping[str, Any]], ids: list[int]) -> set[int]:
    """The rules whose pattern ast-grep quotes in its refusal (it writes `$` as its expando character `µ`)."""
    quoted = set()
    for cause in [*(exc.details.get("causes") or []), exc.message]:
        m = _SOURCE.search(str(cause))
        if m:
            quoted.add(m.group(1))
    if not quoted:
        return set()
    return {i for i in ids if any(t in quoted or t.replace("$", "µ") in quoted for t in _texts_of(bodies[i]["rule"]))}


def _batch(engine: Engine, language: str, file_name: str, bodies: Sequence[Mapping[str, Any]], ids: list[int],
           texts: Sequence[str], out: dict[int, Outcome]) -> None:
    try:
        found = _run(engine, language, file_name, bodies, ids, texts)
    except EngineFailed as exc:
        if exc.details.get("exitCode") != _RULE_REFUSED:
            raise
        named = _named_in(exc, bodies, ids)
        causes = [str(c) for c in exc.details.get("causes") or []]
        why = (causes[-1] if causes else exc.message)[:300]
        if named and len(named) < len(ids):  # ast-grep quoted the pattern it refused: drop just those rules
            for i in named:
                out[i] = Outcome(refused=True, hits=[[] for _ in texts], why=why)
            _batch(engine, language, file_name, bodies, [i for i in ids if i not in named], texts, out)
            return
        if len(ids) == 1:
            out[ids[0]] = Outcome(refused=True, hits=[[] for _ in texts], why=why)
            return
        half = len(ids) // 2
        _batch(engine, language, file_name, bodies, ids[:half], texts, out)
        _batch(engine, language, file_name, bodies, ids[half:], texts, out)
        return
    for i, hits in found.items():
        out[i] = Outcome(hits=hits)


def run_rules(engine: Engine, language: str, file_name: str, bodies: Sequence[Mapping[str, Any]],
              texts: Sequence[str]) -> list[Outcome]:
    """Each rule body (`rule`, `constraints`, `fix`, ...) scanned over `texts`; one Outcome per body, in order."""
    if not bodies:
        return []
    out: dict[int, Outcome] = {}
    _batch(engine, language, file_name, bodies, list(range(len(bodies))), texts, out)
    return [out[i] for i in range(len(bodies))]
