"""`sgtools serve` puts its start-up objects out of the cycle collector's reach (cli/serve.py `_freeze_start_up`),
so a full collection during a call walks only what calls made since, not the SDK's ~95,000 objects."""

from __future__ import annotations

import gc
from pathlib import Path
from typing import Any

import pytest

import sgtools.cli as cli
from sgtools.cli import serve
from sgtools.engine import lifecycle


def test_serve_freezes_what_the_start_up_made(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[int] = []

    def serving(_srv: Any, _args: Any, _level: str) -> None:  # the server's loop itself is not run here
        seen.append(gc.get_freeze_count())

    monkeypatch.setattr(serve, "_serve", serving)
    monkeypatch.setattr(lifecycle, "kill_all", lambda: None)  # it would refuse every later test's processes
    gc.unfreeze()
    try:
        args = cli.build_parser("serve").parse_args(["serve", "--root", str(tmp_path)])
        assert serve.run(args) == 0
    finally:
        gc.unfreeze()  # the rest of the test session collects as before
    assert seen and seen[0] > 10_000  # the SDK, pydantic's models and the tools, all frozen before serving
