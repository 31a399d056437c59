"""The precision verdict file (issue 18) stays well-formed, and the harness reports from it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
VERDICTS = ROOT / "community_index" / "precision" / "verdicts.tsv"


def test_every_verdict_names_a_bundled_rule_a_verdict_and_a_reason() -> None:
    rows = [ln.split("\t") for ln in VERDICTS.read_text().splitlines()[1:]]
    rules = {p.stem for p in (ROOT / "community_index" / "rules").rglob("*.yml")}
    assert rows and all(len(r) == 5 for r in rows)
    for rule, _lang, loc, verdict, reason in rows:
        assert rule in rules and verdict in {"tp", "ok", "fp"} and ":" in loc and reason.strip()


def test_report_prints_precision_per_rule_and_overall() -> None:
    out = subprocess.run([sys.executable, str(ROOT / "bin" / "precision.py"), "report"], capture_output=True,
                         text=True, check=True).stdout
    rows = VERDICTS.read_text().splitlines()[1:]
    fps = sum(ln.split("\t")[3] == "fp" for ln in rows)
    assert f"overall: {len(rows)} judged" in out and f"{fps} false positive(s)" in out
    assert "unwrap-rust" in out and "precision" in out


def test_rows_are_sorted_by_language_rule_location_and_judged_once() -> None:
    """Sorted, so the helpers judging different languages add rows in separate regions of the file."""
    rows = [ln.split("\t") for ln in VERDICTS.read_text().splitlines()[1:]]
    assert rows == sorted(rows, key=lambda r: (r[1], r[0], r[2]))
    assert len({(r[0], r[2]) for r in rows}) == len(rows)


def test_report_prints_each_language_with_its_counts() -> None:
    out = subprocess.run([sys.executable, str(ROOT / "bin" / "precision.py"), "report"], capture_output=True,
                         text=True, check=True).stdout
    rows = [ln.split("\t") for ln in VERDICTS.read_text().splitlines()[1:]]
    for lang in {r[1] for r in rows}:
        n = sum(r[1] == lang for r in rows)
        assert any(ln.startswith(f"language {lang} ") and f" {n} judged" in ln for ln in out.splitlines()), lang
