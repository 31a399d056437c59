"""`sgtools --help` and each subcommand's `--help` list everything, laid out as argparse's own formatter lays them
out: a run builds only the sub-parser of its command, and the CLI hands argparse the terminal width itself (so a
run that prints no help never imports shutil, see tests/test_scan_startup.py)."""

from __future__ import annotations

import argparse
import contextlib
import io

import pytest

from sgtools.cli import COMMAND_MODULES, build_parser, main


def _printed_help(argv: list[str]) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), pytest.raises(SystemExit) as done:
        main(argv)
    assert done.value.code == 0
    return out.getvalue()


def _stock_helps() -> dict[str, str]:
    """Every command's help from the parser of all commands, with argparse's own HelpFormatter."""
    parser = build_parser()
    subs = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    helps = {}
    for name, sub in subs.choices.items():
        sub.formatter_class = argparse.HelpFormatter
        helps[name] = sub.format_help()
    parser.formatter_class = argparse.HelpFormatter
    helps[""] = parser.format_help()
    return helps


@pytest.mark.parametrize("columns", ["60", "100", "200"])
def test_every_help_is_argparse_s_own(monkeypatch: pytest.MonkeyPatch, columns: str) -> None:
    monkeypatch.setenv("COLUMNS", columns)
    stock = _stock_helps()
    assert set(stock) == {"", *COMMAND_MODULES}
    assert _printed_help(["--help"]) == stock[""]
    for name in COMMAND_MODULES:
        assert name in stock[""]
        assert _printed_help([name, "--help"]) == stock[name], name  # built alone, as a run builds it
