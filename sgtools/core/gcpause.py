"""Python's cycle collector paused for a stretch of work that allocates a great many objects and frees none of
them in reference cycles: the collector, triggered by allocation counts alone, would walk them again and again.

A CLI scan of a dense tree (millions of small dicts and lists for its findings: a third of its CPU time) and the
imports of a CLI start (tens of thousands of functions, classes and constants) are such stretches. Reference
counting still frees everything; the collector runs again afterwards, when it was on before.
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator


@contextlib.contextmanager
def collector_paused() -> Iterator[None]:
    was_on = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_on:
            gc.enable()
