"""Lanes of the warm engine: several documents of one call split over two `ast-grep lsp` processes of the same
rule set, answered at the same time. The answer is the one-process answer, in order; each lane is a process
with the whole life cycle (SIGKILL between and during calls, SIGSTOP past the deadline, closed at exit)."""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Iterator

import pytest

from sgtools.core.settings import Settings
from sgtools.engine.warm import WarmEngine, WarmSpec, WarmUnavailable
from tests import test_warm_engine
from tests.conftest import warm_engine
from tests.test_warm_engine import TRICKY, gone, kill_during_a_call, shape

spec = test_warm_engine.spec  # the same fixture: the warm engine tests' two rules as a WarmSpec

TEXTS = [TRICKY, "x = 1\n", "eval(a)\neval(b)\n", "print(1)\n", TRICKY.replace("eval", "print")]


def shapes(found: list[list[dict]]) -> list[list[tuple]]:
    """Per text, its matches in a fixed order (the server publishes a document's diagnostics in no set order)."""
    return [shape(m) for m in found]


def lane_pid(warm: WarmEngine, spec: WarmSpec, lane: int) -> int:
    slot = warm._slots[spec.key() + ((lane,) if lane else ())]
    assert slot.session is not None
    return slot.session.pid


def _lanes(deadline: float) -> Iterator[WarmEngine]:
    for e in warm_engine(deadline, warm_engine_lanes=2):
        assert e.warm is not None
        yield e.warm


@pytest.fixture
def lanes() -> Iterator[WarmEngine]:
    """A deadline no loaded machine reaches by accident: these tests check what is served, not when."""
    yield from _lanes(30.0)


def test_documents_split_over_two_lanes_answer_as_one_process(lanes: WarmEngine, spec: WarmSpec) -> None:
    one = WarmEngine(Settings().replace(warm_engine=1, warm_engine_lanes=1, warm_engine_timeout=60.0))
    try:
        want = one.scan(spec, TEXTS, frozenset({"no-eval"}))
        assert len(one.pids()) == 1
    finally:
        one.close()
    assert shapes(lanes.scan(spec, TEXTS, frozenset({"no-eval"}))) == shapes(want)
    assert [len(m) for m in want] == [3, 0, 2, 1, 3]
    assert {m["replacement"] for m in want[2]} == {"ast.literal_eval(a)", "ast.literal_eval(b)"}
    assert len(lanes.pids()) == 2 and lanes.stats.starts == 2
    assert lanes.scan(spec, ["eval(1)\n"])[0][0]["ruleId"] == "no-eval"  # one document: one lane
    assert lanes.stats.starts == 2


def test_a_lane_killed_between_calls_restarts_alone(lanes: WarmEngine, spec: WarmSpec) -> None:
    want = shapes(lanes.scan(spec, TEXTS))
    first, second = lane_pid(lanes, spec, 0), lane_pid(lanes, spec, 1)
    os.kill(second, signal.SIGKILL)
    time.sleep(0.05)
    assert shapes(lanes.scan(spec, TEXTS)) == want
    assert lane_pid(lanes, spec, 0) == first and lane_pid(lanes, spec, 1) != second and gone(second)
    assert lanes.stats.starts == 3


def test_a_lane_killed_during_a_call_is_retried_then_answers_as_before(spec: WarmSpec) -> None:
    lanes = WarmEngine(Settings().replace(warm_engine=1, warm_engine_timeout=60.0, warm_engine_lanes=2))
    try:
        want = shapes(lanes.scan(spec, TEXTS))
        first, second = lane_pid(lanes, spec, 0), lane_pid(lanes, spec, 1)
        answer, error = kill_during_a_call(lanes, spec, second)  # the lane's process is replaced, the call retried
        assert error is None and isinstance(answer, list) and [len(found) for found in answer] == [1, 1, 1, 1]
        assert lanes.stats.kills == 1
        assert shapes(lanes.scan(spec, TEXTS)) == want
        assert lane_pid(lanes, spec, 1) != second and lane_pid(lanes, spec, 0) == first
    finally:
        lanes.close()


def test_a_hung_lane_is_killed_at_the_deadline_and_the_call_falls_back(lanes: WarmEngine, spec: WarmSpec) -> None:
    """Only the stopped lane's call runs under a 1 s deadline: the lanes start and restart under the fixture's 30 s
    hang guard, since a loaded machine can take longer than 1 s to start `ast-grep lsp`."""
    guard = lanes.settings
    want = shapes(lanes.scan(spec, TEXTS))
    first, second = lane_pid(lanes, spec, 0), lane_pid(lanes, spec, 1)
    os.kill(second, signal.SIGSTOP)  # alive and silent: only the deadline (1 s here) catches it
    lanes.settings = guard.replace(warm_engine_timeout=1.0)
    t = time.monotonic()
    with pytest.raises(WarmUnavailable, match="stopped"):
        lanes.scan(spec, TEXTS)
    assert time.monotonic() - t < 15  # the 1 s deadline decided, not the 30 s guard (half of it is the bound)
    assert gone(second) and not gone(first)  # SIGKILL reaches a stopped process; it was reaped
    lanes.settings = guard
    assert shapes(lanes.scan(spec, TEXTS)) == want and lane_pid(lanes, spec, 0) == first


def test_lanes_stay_within_the_process_cap(spec: WarmSpec) -> None:
    w = WarmEngine(Settings().replace(warm_engine=1, warm_engine_max=1, warm_engine_lanes=2,
                                         warm_engine_timeout=60.0))
    try:
        w.scan(spec, TEXTS)
        assert len(w.pids()) == 1  # one process allowed: no second lane that would evict the first
    finally:
        w.close()


def test_any_failure_of_a_lane_is_the_call_s_never_a_shorter_answer(lanes: WarmEngine, spec: WarmSpec,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    real = WarmEngine._scan_lane

    def second_lane_breaks(self: WarmEngine, spec: WarmSpec, lane: int, texts: list[str],
                           fixes_for: frozenset[str], skip: str = "", checks: bool = True) -> list[list[dict]]:
        if lane:
            raise RuntimeError("the second lane broke")
        return real(self, spec, lane, texts, fixes_for, skip, checks)

    monkeypatch.setattr(WarmEngine, "_scan_lane", second_lane_breaks)
    with pytest.raises(RuntimeError, match="second lane"):  # raised in the caller's thread, as one process would
        lanes.scan(spec, TEXTS)
    monkeypatch.setattr(WarmEngine, "_scan_lane", real)
    assert len(lanes.scan(spec, TEXTS)) == len(TEXTS)
