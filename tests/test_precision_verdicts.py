"""The precision verdict file (issue 18) stays well-formed, and the harness reports from it."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parent.parent
VERDICTS = ROOT / "community_index" / "precision" / "verdicts.tsv"


@pytest.mark.parametrize("verdicts", [VERDICTS, VERDICTS.with_name("verdicts-before.tsv")], ids=lambda p: p.name)
def test_every_verdict_names_a_bundled_rule_a_verdict_and_a_reason(verdicts: Path) -> None:
    rows = [ln.split("\t") for ln in verdicts.read_text().splitlines()[1:]]
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


def _harness() -> ModuleType:
    spec = importlib.util.spec_from_file_location("precision", ROOT / "bin" / "precision.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_a_finding_joins_its_verdict_across_install_roots_and_debian_revisions() -> None:
    p = _harness()
    found = p.location("ruby-rack_2.2.22-0+deb12u1_all",
                       "usr/share/rubygems-integration/all/gems/rack-2.2.22/lib/rack/auth/digest/md5.rb", 105)
    assert found == "ruby-rack_2.2.22-0+deb12u1_all/rack-2.2.22/lib/rack/auth/digest/md5.rb:105"
    row = "ruby-rack_2.2.22-0+deb12u2_all/rack-2.2.22/lib/rack/auth/digest/md5.rb:105"  # judged on another revision
    assert p.verdict_key("r", found) == p.verdict_key("r", row)
    go = p.location("golang-x_1_all", "usr/share/gocode/src/golang.org/x/crypto/a.go", 7)
    assert p.verdict_key("r", go) == p.verdict_key("r", "go-debian/golang-x_1_all/golang.org/x/crypto/a.go:7")
    assert p.verdict_key("r", go) != p.verdict_key("r", "go-debian/golang-x_1_all/golang.org/x/crypto/a.go:8")
    assert p.verdict_key("r", "click-8.1.7/x.py:1") != p.verdict_key("r", "click-8.1.8/x.py:1")  # pinned versions


def test_the_sample_meets_issue_18s_bar() -> None:
    """At least 300 judged findings over at least 6 languages; at least 95% right among the judged findings the
    bundled rules report today (a false positive whose fix landed, "fixed in ...", is reported no more; `python
    bin/precision.py kept` checks the true positives still are, on the fetched corpus, by hand: docs/signal.md),
    and at least 90% counting every false positive ever judged."""
    rows = [ln.split("\t") for ln in VERDICTS.read_text().splitlines()[1:]]
    assert len(rows) >= 300 and len({r[1] for r in rows}) >= 6
    right = sum(r[3] in {"tp", "ok"} for r in rows)
    fixed = sum(r[3] == "fp" and "fixed in" in r[4] for r in rows)
    assert right / (len(rows) - fixed) >= 0.95
    assert right / len(rows) >= 0.90
