"""The fault catalogue: each family of hostile-input and fault probes reports what it tried and what failed.

Run `pytest -s -k catalogue` (or any fault test with `-s`) to see the lines; a family passes only with zero failures.
"""

from __future__ import annotations

from collections.abc import Sequence


def report(family: str, probes: int, failures: Sequence[object]) -> None:
    """Print one catalogue line and fail the test, naming the first failures, unless none failed."""
    print(f"\nFAULT CATALOGUE | {family}: {probes} probes, {len(failures)} failures")
    assert probes > 0, f"{family}: no probe ran"
    assert not failures, f"{family}: {len(failures)} of {probes} probes failed, e.g. {list(failures)[:5]}"
