"""The intent catalogue is sound: each request's hand-written reference rule gets all of its held-out snippets
right with plain ast-grep, every snippet parses cleanly, and the shape and the fixed split hold."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from sgtools.engine.process import Engine
from sgtools.project.workspace import Workspace
from tests import intent_catalogue as cat

REQUESTS = cat.load()
DEV2 = cat.load_dev2()
DEV3 = cat.load_dev3()
DEV4 = cat.load_dev4()
DEV5 = cat.load_dev5()
DEV6 = cat.load_dev6()
DEV7 = cat.load_dev7()
DEV8 = cat.load_dev8()
DEV9 = cat.load_dev9()
DEV10 = cat.load_dev10()
DEV11 = cat.load_dev11()
DEV12 = cat.load_dev12()
DEV13 = cat.load_dev13()
DEV14 = cat.load_dev14()
DEV15 = cat.load_dev15()
DEV16 = cat.load_dev16()
DEV17 = cat.load_dev17()
DEV18 = cat.load_dev18()
DEV19 = cat.load_dev19()
DEV20 = cat.load_dev20()
DEV21 = cat.load_dev21()
DEV22 = cat.load_dev22()
DEV23 = cat.load_dev23()
DEV24 = cat.load_dev24()
DEV25 = cat.load_dev25()
DEV26 = cat.load_dev26()
DEV27 = cat.load_dev27()
DEV28 = cat.load_dev28()
DEV29 = cat.load_dev29()
DEV30 = cat.load_dev30()
DEV31 = cat.load_dev31()


def test_shape_and_fixed_split() -> None:
    assert len(REQUESTS) >= 60
    assert len({r.language for r in REQUESTS}) >= 12
    assert len({r.id for r in REQUESTS}) == len(REQUESTS)
    for r in REQUESTS:
        assert (len(r.invalid), len(r.valid), len(r.held_invalid), len(r.held_valid)) == (2, 2, 4, 4), r.id
        given = {*r.invalid, *r.valid}
        assert not given & {*r.held_invalid, *r.held_valid}, f"{r.id}: a held-out snippet was also given"
    halves = {h: [r for r in REQUESTS if r.half == h] for h in cat.HALVES}
    assert [r.index for r in halves["dev"]] == list(range(0, len(REQUESTS), 2))
    assert abs(len(halves["dev"]) - len(halves["test"])) <= 1
    assert len({r.language for r in halves["test"]}) >= 10


def test_second_development_set_shape() -> None:
    """dev2: at least 24 requests over at least 10 languages, each 2 + 2 given and 4 + 4 held out, none a
    request of the catalogue, every one development signal."""
    assert len(DEV2) >= 24
    assert len({r.language for r in DEV2}) >= 10
    ids = {r.id for r in DEV2}
    assert len(ids) == len(DEV2) and not ids & {r.id for r in REQUESTS}
    catalogue_texts = {t for r in REQUESTS for t in (*r.invalid, *r.valid, *r.held_invalid, *r.held_valid)}
    for r in DEV2:
        assert r.half == "dev2"
        assert (len(r.invalid), len(r.valid), len(r.held_invalid), len(r.held_valid)) == (2, 2, 4, 4), r.id
        given = {*r.invalid, *r.valid}
        assert not given & {*r.held_invalid, *r.held_valid}, f"{r.id}: a held-out snippet was also given"
        assert not given & catalogue_texts, f"{r.id}: an example of the catalogue"


@pytest.mark.parametrize(("name", "scoped", "earlier"), [("dev3", DEV3, [*REQUESTS, *DEV2]),
                                                          ("dev4", DEV4, [*REQUESTS, *DEV2, *DEV3]),
                                                          ("dev5", DEV5, [*REQUESTS, *DEV2, *DEV3, *DEV4]),
                                                          ("dev6", DEV6, [*REQUESTS, *DEV2, *DEV3, *DEV4, *DEV5]),
                                                          ("dev7", DEV7, [*REQUESTS, *DEV2, *DEV3, *DEV4, *DEV5,
                                                                          *DEV6]),
                                                          ("dev8", DEV8, [*REQUESTS, *DEV2, *DEV3, *DEV4, *DEV5,
                                                                          *DEV6, *DEV7]),
                                                          ("dev9", DEV9, [*REQUESTS, *DEV2, *DEV3, *DEV4, *DEV5,
                                                                          *DEV6, *DEV7, *DEV8]),
                                                          ("dev10", DEV10, [*REQUESTS, *DEV2, *DEV3, *DEV4, *DEV5,
                                                                            *DEV6, *DEV7, *DEV8, *DEV9]),
                                                          ("dev11", DEV11, [*REQUESTS, *DEV2, *DEV3, *DEV4, *DEV5,
                                                                            *DEV6, *DEV7, *DEV8, *DEV9, *DEV10]),
                                                          ("dev12", DEV12, [*REQUESTS, *DEV2, *DEV3, *DEV4, *DEV5,
                                                                            *DEV6, *DEV7, *DEV8, *DEV9, *DEV10,
                                                                            *DEV11]),
                                                          ("dev13", DEV13, [*REQUESTS, *DEV2, *DEV3, *DEV4, *DEV5,
                                                                            *DEV6, *DEV7, *DEV8, *DEV9, *DEV10,
                                                                            *DEV11, *DEV12]),
                                                          ("dev14", DEV14, [*REQUESTS, *DEV2, *DEV3, *DEV4, *DEV5,
                                                                            *DEV6, *DEV7, *DEV8, *DEV9, *DEV10,
                                                                            *DEV11, *DEV12, *DEV13]),
                                                          ("dev15", DEV15, [*REQUESTS, *DEV2, *DEV3, *DEV4, *DEV5,
                                                                            *DEV6, *DEV7, *DEV8, *DEV9, *DEV10,
                                                                            *DEV11, *DEV12, *DEV13, *DEV14]),
                                                          ("dev16", DEV16, [*REQUESTS, *DEV2, *DEV3, *DEV4, *DEV5,
                                                                            *DEV6, *DEV7, *DEV8, *DEV9, *DEV10,
                                                                            *DEV11, *DEV12, *DEV13, *DEV14,
                                                                            *DEV15]),
                                                          ("dev18", DEV18, [*REQUESTS, *DEV2, *DEV3, *DEV4, *DEV5,
                                                                            *DEV6, *DEV7, *DEV8, *DEV9, *DEV10,
                                                                            *DEV11, *DEV12, *DEV13, *DEV14,
                                                                            *DEV15, *DEV16]),
                                                          ("dev17", DEV17, [*REQUESTS, *DEV2, *DEV3, *DEV4, *DEV5,
                                                                            *DEV6, *DEV7, *DEV8, *DEV9, *DEV10,
                                                                            *DEV11, *DEV12, *DEV13, *DEV14,
                                                                            *DEV15, *DEV16, *DEV18]),
                                                          ("dev19", DEV19, [*REQUESTS, *DEV2, *DEV3, *DEV4, *DEV5,
                                                                            *DEV6, *DEV7, *DEV8, *DEV9, *DEV10,
                                                                            *DEV11, *DEV12, *DEV13, *DEV14,
                                                                            *DEV15, *DEV16, *DEV17, *DEV18]),
                                                          ("dev21", DEV21, [*REQUESTS, *DEV2, *DEV3, *DEV4, *DEV5,
                                                                            *DEV6, *DEV7, *DEV8, *DEV9, *DEV10,
                                                                            *DEV11, *DEV12, *DEV13, *DEV14,
                                                                            *DEV15, *DEV16, *DEV17, *DEV18,
                                                                            *DEV19]),
                                                          ("dev20", DEV20, [*REQUESTS, *DEV2, *DEV3, *DEV4, *DEV5,
                                                                            *DEV6, *DEV7, *DEV8, *DEV9, *DEV10,
                                                                            *DEV11, *DEV12, *DEV13, *DEV14,
                                                                            *DEV15, *DEV16, *DEV17, *DEV18,
                                                                            *DEV19, *DEV21]),
                                                          ("dev22", DEV22, [*REQUESTS, *DEV2, *DEV3, *DEV4, *DEV5,
                                                                            *DEV6, *DEV7, *DEV8, *DEV9, *DEV10,
                                                                            *DEV11, *DEV12, *DEV13, *DEV14,
                                                                            *DEV15, *DEV16, *DEV17, *DEV18,
                                                                            *DEV19, *DEV20, *DEV21]),
                                                          ("dev23", DEV23, [*REQUESTS, *DEV2, *DEV3, *DEV4, *DEV5,
                                                                            *DEV6, *DEV7, *DEV8, *DEV9, *DEV10,
                                                                            *DEV11, *DEV12, *DEV13, *DEV14,
                                                                            *DEV15, *DEV16, *DEV17, *DEV18,
                                                                            *DEV19, *DEV20, *DEV21, *DEV22]),
                                                          ("dev24", DEV24, [*REQUESTS, *DEV2, *DEV3, *DEV4, *DEV5,
                                                                            *DEV6, *DEV7, *DEV8, *DEV9, *DEV10,
                                                                            *DEV11, *DEV12, *DEV13, *DEV14,
                                                                            *DEV15, *DEV16, *DEV17, *DEV18,
                                                                            *DEV19, *DEV20, *DEV21, *DEV22,
                                                                            *DEV23]),
                                                          ("dev25", DEV25, [*REQUESTS, *DEV2, *DEV3, *DEV4, *DEV5,
                                                                            *DEV6, *DEV7, *DEV8, *DEV9, *DEV10,
                                                                            *DEV11, *DEV12, *DEV13, *DEV14,
                                                                            *DEV15, *DEV16, *DEV17, *DEV18,
                                                                            *DEV19, *DEV20, *DEV21, *DEV22,
                                                                            *DEV23, *DEV24]),
                                                          ("dev26", DEV26, [*REQUESTS, *DEV2, *DEV3, *DEV4, *DEV5,
                                                                            *DEV6, *DEV7, *DEV8, *DEV9, *DEV10,
                                                                            *DEV11, *DEV12, *DEV13, *DEV14,
                                                                            *DEV15, *DEV16, *DEV17, *DEV18,
                                                                            *DEV19, *DEV20, *DEV21, *DEV22,
                                                                            *DEV23, *DEV24, *DEV25]),
                                                          ("dev27", DEV27, [*REQUESTS, *DEV2, *DEV3, *DEV4, *DEV5,
                                                                            *DEV6, *DEV7, *DEV8, *DEV9, *DEV10,
                                                                            *DEV11, *DEV12, *DEV13, *DEV14,
                                                                            *DEV15, *DEV16, *DEV17, *DEV18,
                                                                            *DEV19, *DEV20, *DEV21, *DEV22,
                                                                            *DEV23, *DEV24, *DEV25, *DEV26]),
                                                          ("dev28", DEV28, [*REQUESTS, *DEV2, *DEV3, *DEV4, *DEV5,
                                                                            *DEV6, *DEV7, *DEV8, *DEV9, *DEV10,
                                                                            *DEV11, *DEV12, *DEV13, *DEV14,
                                                                            *DEV15, *DEV16, *DEV17, *DEV18,
                                                                            *DEV19, *DEV20, *DEV21, *DEV22,
                                                                            *DEV23, *DEV24, *DEV25, *DEV26, *DEV27]),
                                                          ("dev29", DEV29, [*REQUESTS, *DEV2, *DEV3, *DEV4, *DEV5,
                                                                            *DEV6, *DEV7, *DEV8, *DEV9, *DEV10,
                                                                            *DEV11, *DEV12, *DEV13, *DEV14,
                                                                            *DEV15, *DEV16, *DEV17, *DEV18,
                                                                            *DEV19, *DEV20, *DEV21, *DEV22,
                                                                            *DEV23, *DEV24, *DEV25, *DEV26, *DEV27,
                                                                            *DEV28]),
                                                          ("dev30", DEV30, [*REQUESTS, *DEV2, *DEV3, *DEV4, *DEV5,
                                                                            *DEV6, *DEV7, *DEV8, *DEV9, *DEV10,
                                                                            *DEV11, *DEV12, *DEV13, *DEV14,
                                                                            *DEV15, *DEV16, *DEV17, *DEV18,
                                                                            *DEV19, *DEV20, *DEV21, *DEV22,
                                                                            *DEV23, *DEV24, *DEV25, *DEV26, *DEV27,
                                                                            *DEV28, *DEV29]),
                                                          ("dev31", DEV31, [*REQUESTS, *DEV2, *DEV3, *DEV4, *DEV5,
                                                                            *DEV6, *DEV7, *DEV8, *DEV9, *DEV10,
                                                                            *DEV11, *DEV12, *DEV13, *DEV14,
                                                                            *DEV15, *DEV16, *DEV17, *DEV18,
                                                                            *DEV19, *DEV20, *DEV21, *DEV22,
                                                                            *DEV23, *DEV24, *DEV25, *DEV26, *DEV27,
                                                                            *DEV28, *DEV29, *DEV30])])
def test_scoped_development_set_shape(name: str, scoped: list[cat.Request], earlier: list[cat.Request]) -> None:
    """dev3 to dev31: 30 requests over at least 12 languages, 2 + 2 given and 4 + 4 held out, none repeating a
    request or a snippet of the sets before it; some ask for a path scope of each kind."""
    assert len(scoped) >= 30
    assert len({r.language for r in scoped}) >= 12
    ids = {r.id for r in scoped}
    assert len(ids) == len(scoped) and not ids & {r.id for r in earlier}
    assert not {r.request for r in scoped} & {r.request for r in earlier}
    earlier_texts = {t for r in earlier for t in (*r.invalid, *r.valid, *r.held_invalid, *r.held_valid)}
    for r in scoped:
        assert r.half == name and r.scope in ("", "ignores", "files"), r.id
        assert (len(r.invalid), len(r.valid), len(r.held_invalid), len(r.held_valid)) == (2, 2, 4, 4), r.id
        texts = {*r.invalid, *r.valid, *r.held_invalid, *r.held_valid}
        assert len(texts) == 12, f"{r.id}: a snippet twice"
        assert not texts & earlier_texts, f"{r.id}: a snippet of an earlier set"
    assert {r.scope for r in scoped} == {"", "ignores", "files"}


def test_the_judge_reads_the_scope() -> None:
    assert cat.scope_of({"rule": {}, "ignores": ["**/tests/**"]}) == "ignores"
    assert cat.scope_of({"rule": {}, "files": ["**/*_spec.*"]}) == "files"
    assert cat.scope_of({"rule": {}}) == ""


EVERY = [*REQUESTS, *DEV2, *DEV3, *DEV4, *DEV5, *DEV6, *DEV7, *DEV8, *DEV9, *DEV10, *DEV11, *DEV12, *DEV13,
         *DEV14, *DEV15, *DEV16, *DEV17, *DEV18, *DEV19, *DEV20, *DEV21, *DEV22, *DEV23, *DEV24, *DEV25, *DEV26,
         *DEV27, *DEV28, *DEV29, *DEV30, *DEV31]


@pytest.mark.parametrize("req", EVERY, ids=[r.id for r in EVERY])
def test_reference_rule_gets_every_snippet_right(engine: Engine, req: cat.Request) -> None:
    texts = [*req.invalid, *req.held_invalid, *req.valid, *req.held_valid]
    should = [True] * (len(req.invalid) + len(req.held_invalid)) + [False] * (len(req.valid) + len(req.held_valid))
    flags, errors = cat.judge(engine, req.language, [req.reference, {"rule": {"kind": "ERROR"}}], texts)
    wrong = [t for t, f, s in zip(texts, flags, should, strict=True) if f != s]
    assert not wrong, f"{req.id}: the reference rule is wrong on {wrong}"
    unparsed = [t for t, e in zip(texts, errors, strict=True) if e]
    assert not unparsed, f"{req.id}: these snippets do not parse cleanly as {req.language}: {unparsed}"


@pytest.mark.slow
def test_suggest_rule_on_the_catalogue(engine: Engine, tmp_path: Path) -> None:
    """The figures docs/suggest-rule.md reports, as a floor; every "no rule" answer names real differences."""
    ws = Workspace(tmp_path)
    right = {h: 0 for h in cat.SETS}
    for req in [*REQUESTS, *DEV2, *DEV3, *DEV4, *DEV5, *DEV6, *DEV7, *DEV8, *DEV9, *DEV10, *DEV11, *DEV12, *DEV13,
                *DEV14, *DEV15, *DEV16, *DEV17, *DEV18, *DEV19, *DEV20, *DEV21, *DEV22, *DEV23, *DEV24, *DEV25, *DEV26,
                *DEV27, *DEV28, *DEV29, *DEV30, *DEV31]:
        scored = cat.score(ws, engine, req)
        right[req.half] += scored.right
        if not scored.found:
            # Advice to drop an example is what must never appear; quoted code (`dropIfExists`) may say "drop".
            assert "drop" not in re.sub(r"`[^`]*`", "", scored.explanation), (req.id, scored.explanation)
            assert not cat.wrong_claims(scored.explanation, req.invalid, req.valid), (req.id, scored.explanation)
    developed = {h: n for h, n in right.items() if h not in cat.HELD_OUT}
    # Floors at the figures with the known rules (77c3ef9; before them: dev3 25, dev8 20, dev10 18, dev11 12, dev20 4
    # ...; docs/suggest-rule.md, "Rules already written for the request"). dev31's is its first run's.
    assert (right["dev"] >= 30 and right["dev2"] >= 29 and right["dev3"] >= 29 and right["dev4"] >= 29
            and right["dev5"] >= 27 and right["dev6"] >= 27 and right["dev7"] >= 28
            and right["dev8"] >= 27 and right["dev9"] >= 29 and right["dev10"] >= 24 and right["dev11"] >= 21
            and right["dev12"] >= 23 and right["dev13"] >= 18 and right["dev14"] >= 10
            and right["dev15"] >= 11 and right["dev16"] >= 13 and right["dev17"] >= 9 and right["dev18"] >= 10
            and right["dev19"] >= 11 and right["dev20"] >= 11 and right["dev21"] >= 19
            and right["dev22"] >= 9 and right["dev23"] >= 9 and right["dev24"] >= 10
            and right["dev25"] >= 10 and right["dev26"] >= 1 and right["dev27"] >= 1
            and right["dev28"] >= 10 and right["dev29"] >= 3 and right["dev30"] >= 30
            and right["dev31"] >= 26), developed
    # The test half's floor, its figure never printed: a tuner who sees it fail learns one bit, not a figure.
    assert right["test"] >= 28, "the test half fell below its floor (its figure is not shown)"


def test_held_out_sets_are_never_shown_nor_run_by_default(capsys: pytest.CaptureFixture[str]) -> None:
    """The held-out sets (the test half, a set sealed until its first run) are scored only when named, never with
    their misses printed: a tuner's default run (`--half all`) cannot look at them by accident."""
    from bin import intent_eval

    assert set(cat.HELD_OUT) <= set(cat.SETS) and {"test"} <= set(cat.HELD_OUT)
    for held in cat.HELD_OUT:
        with pytest.raises(SystemExit) as refused:
            intent_eval.main(["--half", held, "--show"])
        assert refused.value.code == 2 and "held out" in capsys.readouterr().err
    held_ids = [r.id for r in cat.load_all() if r.half in cat.HELD_OUT]
    assert held_ids and intent_eval.main([arg for i in held_ids for arg in ("--only", i)]) == 0
    assert capsys.readouterr().out == "", "the default run scored a held-out request"


def test_by_form_counts_the_top_rules_right_per_form_over_every_set_named(capsys: pytest.CaptureFixture[str]) -> None:
    """`--by-form` (docs/suggest-rule.md, "How far a suggestion carries"): one line per top form, over the sets run
    (`--half` repeats), each right/seen; the per-set lines come first, as without it."""
    from bin import intent_eval

    ids = [REQUESTS[0].id, DEV2[0].id]
    only = [arg for i in ids for arg in ("--only", i)]
    assert intent_eval.main(["--half", "dev", "--half", "dev2", "--by-form", *only]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in lines[:2]] == ["dev", "dev2"]
    counts = [re.match(r"  (\d+)/(\d+) \S", line) for line in lines[2:]]
    assert all(counts) and sum(int(m.group(2)) for m in counts if m) == 2, lines
