"""The CLI's exit codes, in one place (SPEC "CLI"). Scripts and CI branch on these, so they never change meaning."""

from __future__ import annotations

EXIT_OK = 0  # done; nothing at or above --fail-on was found
EXIT_FINDINGS = 1  # the check found something: findings at or above --fail-on, a failed `rule test` / `rule lint`
EXIT_ERROR = 2  # usage, configuration or engine error: a `[code]` line on stderr says which and what to do
EXIT_INTERNAL = 3  # an unexpected internal error (a bug): one line on stderr, the traceback in the log file
EXIT_INTERRUPTED = 130  # Ctrl-C, as a shell reports SIGINT
