"""Limits and defaults in one place, each overridable by an `SGTOOLS_*` environment variable.

Every timeout, size cap and result cap the package enforces is named here, so an operator can tune them
and a reader can find them without hunting for magic numbers. Every value is checked against its type and
bounds when the settings are built (the CLI and the MCP server build them at start-up), so a typo such as
`SGTOOLS_ENGINE_TIMEOUT=abc` is one `[bad-input]` line, not a traceback deep inside a scan.
"""

# No `from __future__ import annotations` here: NamedTuple turns each string annotation into a ForwardRef, compiling
# it (~0.35 million instructions a field, ~13 million for Settings on every CLI start); these are plain types.
import functools
import math
import os
from collections.abc import Iterable, Mapping
from typing import Any, NamedTuple

from sgtools.core.errors import BadInput

# The ast-grep minor version this package is written and tested against.
SUPPORTED_AST_GREP = (0, 51)

ENV_PREFIX = "SGTOOLS_"
DAY = 86_400.0
MAX_ARG_STRLEN = 128 * 1024 - 1  # Linux: the longest single argv string a process may receive


class Bounds:
    """What a setting accepts: its unit for messages, its lowest value (exclusive unless `zero_ok`), its highest.
    A plain class, never changed once built: every CLI start defines it, and a NamedTuple costs ~1 million
    instructions to define, a dataclass several times more."""

    __slots__ = ("high", "unit", "zero_ok")

    def __init__(self, unit: str = "", zero_ok: bool = False, high: float | None = None) -> None:
        self.unit = unit  # "seconds", "bytes" or "" for a count
        self.zero_ok = zero_ok
        self.high = high


SECONDS = Bounds("seconds", high=DAY)
BYTES = Bounds("bytes")
COUNT = Bounds()


class _Fields(NamedTuple):
    """Every limit and default, one field each (`Settings` adds the checks). A NamedTuple, not a frozen
    dataclass: no module on `sgtools scan`'s path imports `dataclasses` (docs/CONTRIBUTING-internal.md, records).
    A float field's default is a float (`_float_fields` reads the kind from it)."""

    engine_timeout: float = 30.0  # seconds for one ast-grep call on a snippet, a rule or a few files
    path_scan_timeout: float = 900.0  # seconds for one ast-grep call over a tree (a large repository is slow)
    engine_max_output: int = 64 * 1024 * 1024  # bytes of stdout we accept from one call
    version_timeout: float = 10.0  # seconds for `ast-grep --version`
    max_code_bytes: int = 2 * 1024 * 1024  # a snippet given to scan_code / test_rule
    max_overlay_files: int = 64  # files in one scan_code `files` call (a pending change checked together)
    max_overlay_bytes: int = 8 * 1024 * 1024  # all the code of one scan_code `files` call together
    max_rule_bytes: int = 256 * 1024  # one rule YAML document
    max_yaml_depth: int = 64  # nesting depth of a rule document
    max_examples: int = 200  # examples per rule
    default_max_results: int = 500  # findings returned when the caller sets no cap
    hard_max_results: int = 10_000  # the most any caller may ask for
    lock_timeout: float = 30.0  # seconds to wait for the workspace write lock
    max_file_bytes: int = 8 * 1024 * 1024  # a source file that fixes or rewrites touch
    max_input_bytes: int = 64 * 1024 * 1024  # one file or stdin the CLI or a hook reads (hook JSON, a baseline)
    http_timeout: float = 10.0  # seconds to connect / read a remote community source
    http_max_bytes: int = 4 * 1024 * 1024  # one remote index or rule file
    cache_ttl: float = 3600.0  # seconds a fetched community source stays fresh
    tool_timeout: float = 120.0  # seconds for one MCP tool call
    tool_max_output_chars: int = 256 * 1024  # one string in an MCP tool result, and its text rendering
    git_timeout: float = 60.0  # seconds for one git call (`scan --changed-since`, `--shard`)
    progress_delay: float = 1.0  # seconds a terminal scan runs before it shows progress on stderr
    scan_batch_bytes: int = 256 * 1024  # path bytes per ast-grep call when a scan names many files (--shard)
    max_arg_bytes: int = MAX_ARG_STRLEN  # one argv string (pattern, rewrite, dumped code): Linux MAX_ARG_STRLEN
    rule_check_workers: int = 4  # parallel ast-grep calls when checking a rule's examples
    max_reported_problems: int = 20  # structural problems listed in one rule-invalid message
    fixit_verify_max: int = 100_000  # fix-its verified per scan call (checked together in copies, see fixits/verify)
    fixit_verify_max_bytes: int = 32 * 1024 * 1024  # edited text written for that verification, per scan call
    fixit_verify_chunk_bytes: int = 4 * 1024 * 1024  # text (originals and copies) one verification re-scan call gets
    fixit_missing_check_max: int = 64  # fix-its whose edited text is also checked for MISSING tokens, per scan
    verify_workers: int = 4  # parallel ast-grep calls for those MISSING-token checks
    suggest_max_candidates: int = 10  # the most candidate rules one suggest_rule call may ask for
    suggest_proof_files: int = 2000  # workspace files of the language suggest_rule runs its candidates over
    suggest_proof_seconds: float = 3.0  # seconds that workspace proof may take (then it says it stopped)
    suggest_known_rules: int = 1  # 1: suggest_rule offers a known rule (known_rules/) proven on the examples; 0: never
    analysis_max_engine_calls: int = 200  # syntax-tree dumps one rule analysis may make (a draft with 8,000 patterns)
    max_message_bytes: int = 16 * 1024 * 1024  # one MCP message (a stdio line, an HTTP body) checked by the guard
    max_json_depth: int = 64  # nesting of one MCP message; deeper is refused with -32600 before parsing
    warm_engine: int = 1  # 1: the MCP server checks snippets with long-lived `ast-grep lsp` processes; 0: spawns only
    warm_engine_timeout: float = 5.0  # seconds one warm-engine call may take before it is killed (spawn fallback)
    warm_engine_max: int = 8  # live warm-engine processes (one per rule set and lane), least recently used go first
    warm_engine_lanes: int = 2  # warm-engine processes of one rule set that share a call's documents (one per core)


class Settings(_Fields):
    """The checked settings: every value within its type and bounds whichever way it was built (the constructor,
    `replace`, `_replace`, `_make`), else a `[bad-input]` error naming the field."""

    __slots__ = ()

    def __new__(cls, *args: Any, **kwargs: Any) -> "Settings":
        return super().__new__(cls, *args, **kwargs).checked()

    @classmethod
    def _make(cls, iterable: Iterable[Any]) -> "Settings":  # type: ignore[override]  # `_replace` uses it
        return super()._make(iterable).checked()

    def checked(self) -> "Settings":
        """These settings, when every value is within its type and bounds; else a `[bad-input]` error."""
        for name, value in zip(self._fields, self, strict=True):
            problem = _problem(name, value)
            if problem:
                raise BadInput(f"Settings.{name} must be {problem}, got {value!r}.")
        return self

    def replace(self, **changes: Any) -> "Settings":
        """A copy with `changes`, checked (as `dataclasses.replace` checked the frozen dataclass this was)."""
        return self._replace(**changes)

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> "Settings":
        """Read `SGTOOLS_<FIELD>` overrides; a bad value is a `[bad-input]` error naming the variable, never
        silently ignored or replaced by the default."""
        env = os.environ if environ is None else environ
        values: dict[str, float | int] = {}
        for field in cls._fields:
            name = env_name(field)
            raw = env.get(name)
            if raw is None:
                continue
            value = _parse(field, raw)
            problem = _problem(field, value)
            if problem or isinstance(value, str):
                raise BadInput(f"{name} must be {problem}, got {raw!r}. Fix or unset it "
                               f"(default: {cls._field_defaults[field]}).")
            values[field] = value
        return cls(**values)


# Settings whose bounds differ from the default for their type (float: SECONDS, int: COUNT or BYTES by name).
_BOUNDS: dict[str, Bounds] = {
    "cache_ttl": Bounds("seconds", zero_ok=True, high=365 * DAY),  # 0: always revalidate
    "progress_delay": Bounds("seconds", zero_ok=True, high=DAY),  # 0: show progress at once
    "path_scan_timeout": Bounds("seconds", high=7 * DAY),
    "max_arg_bytes": Bounds("bytes", high=MAX_ARG_STRLEN),  # more would fail in execve, not in our checks
    "max_yaml_depth": Bounds(high=10_000),
    "max_json_depth": Bounds(high=500),  # json and pydantic recurse per level
    "rule_check_workers": Bounds(high=64),
    "verify_workers": Bounds(high=64),
    "suggest_max_candidates": Bounds(high=100),
    "suggest_proof_files": Bounds(high=1_000_000),
    "suggest_proof_seconds": Bounds("seconds", high=600),
    "warm_engine": Bounds(zero_ok=True, high=1),
    "suggest_known_rules": Bounds(zero_ok=True, high=1),
    "warm_engine_timeout": Bounds("seconds", high=600),
    "warm_engine_max": Bounds(high=64),
    "warm_engine_lanes": Bounds(high=16),
}


def env_name(field_name: str) -> str:
    return f"{ENV_PREFIX}{field_name.upper()}"


def bounds(field_name: str) -> Bounds:
    if field_name in _BOUNDS:
        return _BOUNDS[field_name]
    if _is_float(field_name):
        return SECONDS
    return BYTES if field_name.endswith("_bytes") or field_name.endswith("_output") else COUNT


def _is_float(field_name: str) -> bool:
    return field_name in _float_fields()


@functools.cache
def _float_fields() -> frozenset[str]:
    """Asked for each field when settings are built: one pass over the fields, not one per field."""
    return frozenset(name for name, default in Settings._field_defaults.items() if isinstance(default, float))


def _requirement(b: Bounds, is_float: bool) -> str:
    noun = "number" if is_float else "whole number"
    unit = f" of {b.unit}" if b.unit else ""
    return f"a {noun}{unit}, 0 or more" if b.zero_ok else f"a positive {noun}{unit}"


def _parse(field_name: str, raw: str) -> float | int | str:
    """The value as its field's type, or the raw text when it does not parse (then `_problem` refuses it)."""
    try:
        return float(raw) if _is_float(field_name) else int(raw.strip())
    except ValueError:
        return raw


def _problem(field_name: str, value: object) -> str | None:
    """What the setting must be, when `value` breaks its type or bounds; None when it is acceptable."""
    b = bounds(field_name)
    is_float = _is_float(field_name)
    wanted = _requirement(b, is_float)
    numeric = (float, int) if is_float else (int,)
    if isinstance(value, bool) or not isinstance(value, numeric):
        return wanted
    if is_float and not math.isfinite(value):
        return wanted
    if value < 0 or (value == 0 and not b.zero_ok):
        return wanted
    if b.high is not None and value > b.high:
        high = int(b.high) if float(b.high).is_integer() else b.high
        return f"at most {high}" + (f" {b.unit}" if b.unit else "")
    return None


_current: Settings | None = None


def get_settings() -> Settings:
    """The process's settings from the environment, built once. Adapters (CLI, MCP server) call this at start-up
    and hand the result to services through `Workspace.settings` / `Engine.settings`."""
    global _current
    if _current is None:
        _current = Settings.from_env()
    return _current


def requested_results(max_results: object, settings: Settings | None = None) -> int:
    """A caller's `max_results`, checked, or the default when absent. Callers apply the hard maximum their own
    way (a scan clamps to it, a structural search refuses more)."""
    if max_results is None:
        s = settings or get_settings()
        return min(s.default_max_results, s.hard_max_results)  # lowering only the hard cap lowers the default too
    if not isinstance(max_results, int) or isinstance(max_results, bool) or max_results < 1:
        raise BadInput(f"max_results must be a positive integer, not {max_results!r}.")
    return max_results
