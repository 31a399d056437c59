"""Limits and defaults in one place, each overridable by an `SGTOOLS_*` environment variable.

Every timeout, size cap and result cap the package enforces is named here, so an operator can tune them
and a reader can find them without hunting for magic numbers.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, fields

from sgtools.core.errors import BadInput

# The ast-grep minor version this package is written and tested against.
SUPPORTED_AST_GREP = (0, 51)


@dataclass(frozen=True)
class Settings:
    engine_timeout: float = 30.0  # seconds for one ast-grep call on a snippet, a rule or a few files
    path_scan_timeout: float = 900.0  # seconds for one ast-grep call over a tree (a large repository is slow)
    engine_max_output: int = 64 * 1024 * 1024  # bytes of stdout we accept from one call
    version_timeout: float = 10.0  # seconds for `ast-grep --version`
    max_code_bytes: int = 2 * 1024 * 1024  # a snippet given to scan_code / test_rule
    max_rule_bytes: int = 256 * 1024  # one rule YAML document
    max_yaml_depth: int = 64  # nesting depth of a rule document
    max_examples: int = 200  # examples per rule
    default_max_results: int = 500  # findings returned when the caller sets no cap
    hard_max_results: int = 10_000  # the most any caller may ask for
    lock_timeout: float = 30.0  # seconds to wait for the workspace write lock
    max_file_bytes: int = 8 * 1024 * 1024  # a source file that fixes or rewrites touch
    http_timeout: float = 10.0  # seconds to connect / read a remote community source
    http_max_bytes: int = 4 * 1024 * 1024  # one remote index or rule file
    cache_ttl: float = 3600.0  # seconds a fetched community source stays fresh
    tool_timeout: float = 120.0  # seconds for one MCP tool call
    tool_max_output_chars: int = 256 * 1024  # one string in an MCP tool result, and its text rendering
    git_timeout: float = 60.0  # seconds for one git call (`scan --changed-since`, `--shard`)
    progress_delay: float = 1.0  # seconds a terminal scan runs before it shows progress on stderr
    scan_batch_bytes: int = 256 * 1024  # path bytes per ast-grep call when a scan names many files (--shard)
    max_arg_bytes: int = 128 * 1024 - 1  # one argv string (pattern, rewrite, dumped code): Linux MAX_ARG_STRLEN
    rule_check_workers: int = 4  # parallel ast-grep calls when checking a rule's examples
    max_reported_problems: int = 20  # structural problems listed in one rule-invalid message
    fixit_verify_max: int = 1000  # fix-its re-scanned to verify them, per scan call
    fixit_verify_max_bytes: int = 32 * 1024 * 1024  # edited text written for that verification, per scan call
    fixit_missing_check_max: int = 64  # fix-its whose edited text is also checked for MISSING tokens, per scan
    verify_workers: int = 4  # parallel ast-grep calls for those MISSING-token checks

    @classmethod
    def from_env(cls, environ: os._Environ[str] | dict[str, str] | None = None) -> Settings:
        """Read `SGTOOLS_<FIELD>` overrides; a bad value is an error, not silently ignored."""
        env = os.environ if environ is None else environ
        values: dict[str, float | int] = {}
        for f in fields(cls):
            raw = env.get(f"SGTOOLS_{f.name.upper()}")
            if raw is None:
                continue
            kind = float if f.type in ("float", float) else int
            try:
                values[f.name] = kind(raw)
            except ValueError:
                raise ValueError(f"SGTOOLS_{f.name.upper()}={raw!r} is not a valid {kind.__name__}") from None
        return cls(**values)  # type: ignore[arg-type]


_current: Settings | None = None


def get_settings() -> Settings:
    global _current
    if _current is None:
        _current = Settings.from_env()
    return _current


def requested_results(max_results: object) -> int:
    """A caller's `max_results`, checked, or the default when absent. Callers apply the hard maximum their own
    way (a scan clamps to it, a structural search refuses more)."""
    if max_results is None:
        return get_settings().default_max_results
    if not isinstance(max_results, int) or isinstance(max_results, bool) or max_results < 1:
        raise BadInput(f"max_results must be a positive integer, not {max_results!r}.")
    return max_results
