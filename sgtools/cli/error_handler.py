"""What the CLI does when a command fails, as pre-commit's `error_handler.py` does.

An expected failure (an `SgToolsError`) is one `[code]` line and exit 2. An unexpected exception is a bug: the user
gets one line naming a log file and exit 3 (never 1, which means findings, so CI cannot mistake a crash for a
result); the log, in the user cache directory, holds the versions, the command line and the full traceback.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Callable
from pathlib import Path

from sgtools import __version__
from sgtools.cli.exit_codes import EXIT_ERROR, EXIT_INTERNAL, EXIT_INTERRUPTED, EXIT_OK
from sgtools.cli.voice import speak
from sgtools.core.cache import cache_root
from sgtools.core.errors import SgToolsError
from sgtools.core.oserrors import io_error

LOG_NAME = "sgtools.log"


def log_path() -> Path:
    return cache_root() / LOG_NAME


def run_guarded(command: Callable[[], int]) -> int:
    """Run one CLI command and turn every way it can end into an exit code."""
    try:
        return command()
    except SgToolsError as exc:
        print(speak(exc.render()), file=sys.stderr)  # in the CLI's words: commands, not MCP tools
        return EXIT_ERROR
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED
    except BrokenPipeError:  # `sgtools ... | head`: the reader left early; that is not an error of ours
        _silence_stdout()
        return EXIT_OK
    except OSError as exc:  # the environment (read-only, full disk, wrong file type), not a bug
        print(speak(io_error(exc).render()), file=sys.stderr)
        return EXIT_ERROR
    except Exception as exc:
        return internal_error(exc)


def internal_error(exc: BaseException) -> int:
    """Log the traceback, print one line naming the log, return `EXIT_INTERNAL`."""
    path = log_path()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(_report(exc), encoding="utf-8")
        where = f"The traceback is in {path}"
    except OSError as log_exc:  # the cache directory is unwritable: the traceback goes to stderr instead
        import traceback

        traceback.print_exception(exc, file=sys.stderr)
        where = f"The traceback is above (writing {path} failed: {log_exc.strerror or log_exc})"
    _flush_or_silence_stdout()
    print(f"sgtools {__version__}: internal error ({type(exc).__name__}: {_one_line(exc)}). {where}; "
          "please report it with that file.", file=sys.stderr)
    return EXIT_INTERNAL


def _report(exc: BaseException) -> str:
    import platform  # only when something went wrong: not on every run's start-up path
    import traceback

    return (
        f"### version information\n\nsgtools: {__version__}\npython: {sys.version.split()[0]}\n"
        f"platform: {platform.platform()}\ncommand: {' '.join(sys.argv)}\ncwd: {os.getcwd()}\n\n"
        f"### error\n\n{type(exc).__name__}: {_one_line(exc)}\n\n"
        f"```\n{''.join(traceback.format_exception(exc))}```\n"
    )


def _one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    return text[:200] + "..." if len(text) > 200 else text


def _flush_or_silence_stdout() -> None:
    """A failed stdout (a full disk, a closed pipe) must not turn exit 3 into Python's exit 120 at shutdown."""
    try:
        sys.stdout.flush()
    except (OSError, ValueError):
        _silence_stdout()


def _silence_stdout() -> None:
    with contextlib.suppress(OSError, ValueError):
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
