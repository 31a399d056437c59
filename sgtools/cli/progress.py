"""A scan's progress on a terminal, as ruff and semgrep show it: `sgtools: scanning… 812/1,604 files 3s` on one
stderr line, redrawn twice a second, shown only once the scan has run longer than a moment, and erased at the end.

`done` counts the files ast-grep reports as scanned (its `--inspect entity` lines, read as they arrive); `total` is
the code files the scan will visit, counted beforehand from git (or a walk), or None when that count failed.
"""

from __future__ import annotations

import threading
import time
from types import TracebackType
from typing import TextIO

REDRAW = 0.5  # seconds between two redraws


class Progress:
    def __init__(self, stream: TextIO, delay: float, total: int | None = None) -> None:
        self.stream = stream
        self.delay = delay
        self.total = total
        self.done = 0
        self._stop = threading.Event()
        self._start = time.monotonic()
        self._shown = False
        self._thread = threading.Thread(target=self._run, name="sgtools-progress", daemon=True)

    def file_done(self) -> None:
        """Called (from the thread reading ast-grep's stderr) as each file is scanned."""
        self.done += 1

    def line(self) -> str:
        elapsed = f"{time.monotonic() - self._start:.0f}s"
        if self.total:
            return f"sgtools: scanning… {min(self.done, self.total):,}/{self.total:,} files {elapsed}"
        return f"sgtools: scanning… {self.done:,} files {elapsed}"

    def _run(self) -> None:
        if self._stop.wait(self.delay):
            return
        while not self._stop.is_set():
            self.stream.write("\r\033[K" + self.line())
            self.stream.flush()
            self._shown = True
            self._stop.wait(REDRAW)

    def __enter__(self) -> Progress:
        self._thread.start()
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self._stop.set()
        self._thread.join()
        if self._shown:
            self.stream.write("\r\033[K")
            self.stream.flush()
