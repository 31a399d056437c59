"""Adopting rules on an existing code base: record today's findings once, then report only new ones.

A fingerprint is a hash of the rule id, the file, the matched text with its whitespace normalised, and the
occurrence index of that same text for that rule in that file. It has no line number, so a finding stays
known when lines are added or removed above it; a second copy of the same offending code is new.
"""

# No `from __future__ import annotations`: a NamedTuple compiles each string annotation (see core/settings.py).
import json
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from sgtools.core import bounded
from sgtools.core.digest import sha256
from sgtools.core.errors import BadInput

if TYPE_CHECKING:  # a shape only: the CLI's scan never loads contracts/scan.py (the server's schemas do)
    from sgtools.contracts.scan import Diagnostic

BASELINE_VERSION = 1
_FINGERPRINT_CHARS = 32  # 128 bits of sha256: collisions are not a practical concern for one repository


def normalise(text: str) -> str:
    return " ".join(text.split())


def fingerprint(rule_id: str, file: str, text: str, occurrence: int) -> str:
    return _digest(rule_id, file, normalise(text), occurrence)


def _digest(rule_id: str, file: str, normalised: str, occurrence: int) -> str:
    key = "\0".join((rule_id, file, normalised, str(occurrence)))
    return sha256(key.encode("utf-8", "surrogatepass")).hexdigest()[:_FINGERPRINT_CHARS]


def fingerprints(diags: "list[Diagnostic]") -> list[str]:
    """One fingerprint per diagnostic, in order; occurrences are counted in (file, byteStart) order."""
    order = sorted(range(len(diags)), key=lambda i: (str(diags[i].get("file")), diags[i].get("byteStart") or 0, i))
    seen: dict[tuple[str, str, str], int] = {}
    out = [""] * len(diags)
    for i in order:
        d = diags[i]
        key = (str(d.get("ruleId")), str(d.get("file")), normalise(str(d.get("text") or "")))
        n = seen.get(key, 0)
        seen[key] = n + 1
        out[i] = _digest(*key, n)  # the text is normalised once, here
    return out


def with_fingerprints(diags: "list[Diagnostic]") -> "list[Diagnostic]":
    """The diagnostics, each given a `fingerprint` key (SARIF partialFingerprints, JSON output), in place: the
    CLI's findings are its own, and copying tens of thousands of them cost as much as hashing."""
    for d, fp in zip(diags, fingerprints(diags), strict=True):
        d["fingerprint"] = fp
    return diags


class Baseline(NamedTuple):
    """The fingerprints of known findings and the file they came from (a NamedTuple: every CLI start defines
    it, and a dataclass costs several times more to define)."""

    known: frozenset[str]
    path: str

    def split(self, diags: "list[Diagnostic]") -> "tuple[list[Diagnostic], list[Diagnostic]]":
        """(new findings, known findings) for diagnostics that carry a `fingerprint`."""
        new = [d for d in diags if d.get("fingerprint") not in self.known]
        old = [d for d in diags if d.get("fingerprint") in self.known]
        return new, old


def of(diags: "list[Diagnostic]", path: str) -> Baseline:
    """The baseline that `dumps(diags)` records, without reading the file back."""
    return Baseline(known=frozenset(str(d["fingerprint"]) for d in diags), path=path)


def dumps(diags: "list[Diagnostic]") -> str:
    """The baseline file: sorted and line-stable, so it reviews well in a diff."""
    entries = sorted(
        ({"fingerprint": d["fingerprint"], "ruleId": d.get("ruleId"), "file": d.get("file"),
          "line": d.get("line"), "text": normalise(str(d.get("text") or ""))[:200]} for d in diags),
        key=lambda e: (str(e["file"]), int(e["line"] or 0), str(e["ruleId"]), str(e["fingerprint"])),
    )
    doc = {"version": BASELINE_VERSION, "tool": "sgtools", "findings": entries}
    return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"


def load(path: Path, shown_as: str | None = None) -> Baseline:
    name = shown_as or str(path)
    try:
        doc = json.loads(bounded.read_file(path, f"The baseline {name}", "max_input_bytes").decode("utf-8"))
    except FileNotFoundError:
        raise BadInput(f"The baseline {name} does not exist. Create it with `sgtools scan --write-baseline "
                       f"{name}`, then retry.") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise BadInput(f"The baseline {name} cannot be read ({exc}). Write it again with --write-baseline.") from None
    findings = doc.get("findings") if isinstance(doc, dict) else None
    if not isinstance(doc, dict) or doc.get("version") != BASELINE_VERSION or not isinstance(findings, list):
        raise BadInput(f"{name} is not an sgtools baseline (version {BASELINE_VERSION}). Write it again with "
                       "--write-baseline.")
    known = frozenset(str(e["fingerprint"]) for e in findings if isinstance(e, dict) and "fingerprint" in e)
    return Baseline(known=known, path=name)
