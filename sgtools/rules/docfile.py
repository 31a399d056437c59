"""A multi-document rule file edited one document at a time, every other byte kept."""

from __future__ import annotations

import itertools
import re
from pathlib import Path
from typing import Any

from sgtools.core import yamlio
from sgtools.core.errors import RuleInvalid
from sgtools.rules.ruleset import parse_rule_docs

DOC_START = re.compile(r"^---(?=[ \t\r]|$)", re.MULTILINE)


class DocFile:
    """A rule file cut into its `---` segments, so one document can be replaced or dropped while every other
    byte (comments, formatting) of the file stays as it was."""

    __slots__ = ("doc_segments", "docs", "segments")

    def __init__(self, segments: list[str], doc_segments: list[int], docs: list[dict[str, Any]]) -> None:
        self.segments = segments
        self.doc_segments = doc_segments  # segment index of each non-empty document, in order
        self.docs = docs

    @classmethod
    def parse(cls, text: str) -> DocFile:
        starts = [m.start() for m in DOC_START.finditer(text)]
        bounds = [0, *[s for s in starts if s > 0], len(text)]
        segments = [text[a:b] for a, b in itertools.pairwise(bounds)]
        doc_segments: list[int] = []
        docs: list[dict[str, Any]] = []
        for i, seg in enumerate(segments):
            doc = yamlio.load_one(seg)
            if doc is not None:
                if not isinstance(doc, dict):
                    raise RuleInvalid("a rule document must be a mapping; fix the file by hand.")
                doc_segments.append(i)
                docs.append(doc)
        parsed = parse_rule_docs(text, Path("rule.yml"))
        if parsed != docs:
            raise RuleInvalid("This rule file cannot be split safely into documents (a `---` inside a value?). "
                              "Edit it by hand.")
        return cls(segments, doc_segments, docs)

    def doc_text(self, index: int) -> str:
        seg = self.segments[self.doc_segments[index]]
        return DOC_START.sub("", seg, count=1).lstrip("\r\n") if seg.startswith("---") else seg

    def replace(self, index: int, rule_text: str) -> str:
        segments = list(self.segments)
        k = self.doc_segments[index]
        lead = "---\n" if segments[k].startswith("---") else ""
        segments[k] = lead + rule_text
        return self._joined(segments)

    def without(self, indexes: list[int]) -> str:
        drop = {self.doc_segments[i] for i in indexes}
        kept = [s for k, s in enumerate(self.segments) if k not in drop]
        if 0 in drop and kept and kept[0].startswith("---"):
            # The old first document had no `---`; neither does the new first one.
            kept[0] = DOC_START.sub("", kept[0], count=1).lstrip(" \t").lstrip("\r\n")
        return self._joined(kept)

    @staticmethod
    def _joined(segments: list[str]) -> str:
        out = ""
        for seg in segments:
            if out and not out.endswith("\n"):
                out += "\n"
            out += seg
        yamlio.load_all(out)  # the result must still be YAML
        return out
