"""The fix harness on real code from the package registries (bin/fix_harness.py): every bundled fix applied to
every finding, checked with the language's own tools. Slow, and it needs the corpus cache that the harness
fetches (`python -m bin.fix_harness`): skipped with the reason when the cache is absent."""

from __future__ import annotations

import pytest

from bin import fix_harness

CACHE = fix_harness.default_cache()
LANGUAGES = ["go"]
# Go: the safe fixes (range without the blank value) and the judged ones (ioutil, ReplaceAll), in file order, 20
# at most. The module-mode corpus (fix_sources.py) holds 274 fixes in 97 files, each fix a whole-package build:
# the harness's own run builds 138 of them (the unsafe ones sampled, 8 per rule and package) in about 22 minutes
# here; this sample is ~32 builds, about 2 minutes. The whole corpus is
# `python -m bin.fix_harness --no-fetch --languages go` (docs/fixes.md).
SAMPLE = 20

pytestmark = [pytest.mark.slow, pytest.mark.corpus]


@pytest.fixture(scope="module")
def fixes() -> list[fix_harness.Fix]:
    if not all((CACHE / "src" / lang / ".done").is_file() for lang in LANGUAGES):
        pytest.skip(f"no fix-harness corpus in {CACHE}: run `python -m bin.fix_harness` to fetch it")
    verdicts = fix_harness.load_verdicts()
    found = [f for lang in LANGUAGES for f in fix_harness.scan(CACHE / "src" / lang)]
    sample = sorted((f for f in found if f.safety == "safe" or f.key in verdicts),
                    key=lambda f: (f.safety != "safe", f.file, f.key))[:SAMPLE]
    fix_harness.check(sample, CACHE)
    return sample


def test_no_safe_fix_breaks_the_code(fixes: list[fix_harness.Fix]) -> None:
    assert len(fixes) >= 20
    assert {f.safety for f in fixes} == {"safe", "unsafe"}
    assert [f.key for f in fixes if f.safety == "safe" and f.broken] == []


def test_every_judged_safe_fix_was_right(fixes: list[fix_harness.Fix]) -> None:
    verdicts = fix_harness.load_verdicts()
    assert [f.key for f in fixes if f.safety == "safe" and verdicts.get(f.key, ("right",))[0] == "wrong"] == []
    go = fix_harness.summarize(fixes, verdicts)["languages"]["go"]
    # the unsafe ioutil fix was judged too, and is often wrong: that is why it is unsafe
    assert go["judged_unsafe"] > go["right_unsafe"]


def test_a_broken_fix_is_caught() -> None:
    """The checks themselves: a fix that breaks the syntax is reported by each language's check."""
    made = [fix_harness.Fix(lang, "r", f"p/x{ext}", 1, "a", "b", "safe", True, 0.9, None, bad, good)
            for lang, ext, bad, good in [("python", ".py", "x = (", "x = 1"),
                                         ("javascript", ".js", "f(", "f()"),
                                         ("go", ".go", "package p\nfunc f() { g( }", "package p\nfunc f() { g() }")]]
    fix_harness.check(made)
    assert all(f.broken for f in made), [f.broken for f in made]
