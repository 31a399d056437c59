"""ast-grep itself: finds the binary, runs it (through engine/spawn.py), parses its output, maps its failures.

Nothing else in the package knows ast-grep's command line, exit codes or stderr texts. Every call passes an
explicit `-c` so that an `sgconfig.yml` in a parent directory can never change what a call does.
"""

from __future__ import annotations

import functools
import json
import os
import re
import sys
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, cast

from sgtools.core import jsonfast
from sgtools.core.cache import StatMemo
from sgtools.core.errors import EngineFailed
from sgtools.core.lazyre import LazyRe
from sgtools.core.settings import SUPPORTED_AST_GREP, Settings, get_settings
from sgtools.engine import trust
from sgtools.engine.configview import engine_config
from sgtools.engine.spawn import Advice, EngineResult, spawn

if TYPE_CHECKING:
    from sgtools.engine.match import AstGrepMatch, PatternMatch
    from sgtools.engine.testreport import TestReport
    from sgtools.engine.warm import WarmEngine

BINARY_ENV = "SGTOOLS_AST_GREP"
BINARY_NAME = "ast-grep"
# `-c /dev/null` is ast-grep's documented-by-behaviour way to run with no project at all.
NO_CONFIG = os.devnull
# Exit codes of `ast-grep scan` that mean "the scan ran": 1 only says error-severity findings exist.
SCAN_OK = (0, 1)
TEST_FAILED = 4


class ScanWatch:
    """What a path scan reports besides matches, from ast-grep's own `--inspect`: `files`, the number of files it
    scanned (added to, across calls); and, when `on_file` is set, a call as each file is done (for progress).
    A plain class: no module on a CLI scan's path imports `dataclasses` (with `inspect`, ~40 million
    instructions of every start; tests/test_scan_startup.py)."""

    __slots__ = ("files", "on_file", "skipped")

    def __init__(self, on_file: Callable[[], None] | None = None, files: int = 0) -> None:
        self.on_file = on_file
        self.files = files
        # (path as ast-grep printed it, its reason) for each file it walked but could not scan: never counted
        # in `files` (an unreadable file is not a checked file)
        self.skipped: list[tuple[str, str]] = []


_SCANNED = LazyRe(r"^sg: summary\|file: scannedFileCount=(\d+),skippedFileCount=(\d+)", re.M)
_FILE_DONE = b"sg: entity|file|"


def find_binary(environ: dict[str, str] | os._Environ[str] | None = None) -> Path:
    """`SGTOOLS_AST_GREP`, else the `ast-grep` beside this interpreter (the wheel's), else PATH. Never `sg`."""
    env = os.environ if environ is None else environ
    override = env.get(BINARY_ENV)
    if override:
        path = Path(override).expanduser()
        if not path.is_file() or not os.access(path, os.X_OK):
            raise EngineFailed(
                f"{BINARY_ENV}={override} is not an executable file. "
                f"Point it at the ast-grep binary, or unset it to use the one from the ast-grep-cli package."
            )
        return path
    exe = "ast-grep.exe" if os.name == "nt" else BINARY_NAME
    for scripts in (Path(sys.executable).parent, Path(sys.prefix) / "bin"):
        candidate = scripts / exe
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return candidate
    import shutil  # only here: it imports zlib, bz2 and lzma (~7 million instructions of a CLI start)

    found = shutil.which(BINARY_NAME)
    if found:
        return Path(found)
    raise EngineFailed(
        "The ast-grep binary was not found. Install it with `pip install 'ast-grep-cli>=0.51,<0.52'` "
        f"or set {BINARY_ENV} to its path."
    )


def parse_version(text: str) -> tuple[int, ...]:
    match = re.search(r"(\d+)\.(\d+)\.(\d+)", text)
    if not match:
        raise EngineFailed(f"Could not read the ast-grep version from {text.strip()!r}. Reinstall ast-grep-cli.")
    return tuple(int(p) for p in match.groups())


def stderr_message(stderr: str) -> tuple[str, list[str]]:
    """ast-grep's `Error:` headline and its `╰▻` cause lines, without help links and backtraces."""
    headline = ""
    causes: list[str] = []
    for raw in stderr.splitlines():
        line = raw.strip()
        if line.startswith("Error:") and not headline:
            headline = line[len("Error:"):].strip()
        elif line.startswith("╰▻"):
            causes.append(line[len("╰▻"):].strip())
        elif (causes and line and not line.startswith(("Help:", "See also:", "✖", "Stack backtrace", "-->", "|"))
              and not re.match(r"^\d+\s*[:|]", line)):
            # Continuation of a multi-line cause, e.g. a pattern source quoted over several lines.
            causes[-1] += " " + line
    if not headline:
        headline = next((ln.strip() for ln in stderr.splitlines() if ln.strip()), "no error text")
    return headline, causes


class Engine:
    """A handle on one ast-grep binary. Cheap to create; the binary is located on first use."""

    def __init__(self, binary: Path | None = None, settings: Settings | None = None,
                 custom_languages: trust.Mode | None = None) -> None:
        self._binary = binary
        self.settings = settings or get_settings()
        # "auto": a project's native parser libraries load only once the user trusted them (engine/trust.py).
        self.custom_languages: trust.Mode = custom_languages or trust.mode_from_env()
        # Long-lived `ast-grep lsp` processes for snippet checks (engine/warm.py): the MCP server turns them on
        # (`enable_warm`); the CLI, one call per process, keeps spawning.
        self.warm: WarmEngine | None = None

    @property
    def binary(self) -> Path:
        if self._binary is None:
            self._binary = find_binary()
        return self._binary

    def enable_warm(self) -> None:
        """Serve snippet checks from warm processes when `SGTOOLS_WARM_ENGINE` allows (a long-lived server only)."""
        if self.settings.warm_engine and self.warm is None:
            from sgtools.engine.warm import WarmEngine  # loaded only by a long-lived server that turns it on

            self.warm = WarmEngine(self.settings)

    # ---- process plumbing -------------------------------------------------------------------------

    def run(
        self,
        args: Sequence[str],
        *,
        cwd: Path,
        stdin: bytes | None = None,
        timeout: float | None = None,
        max_output: int | None = None,
        on_stderr: Callable[[bytes], None] | None = None,
        on_stdout: Callable[[bytes], None] | None = None,
    ) -> EngineResult:
        """Run the binary with an argument list (never a shell), a deadline and an output cap; `on_stderr` and
        `on_stdout` see each stream as it arrives."""
        limit = self.settings.engine_timeout if timeout is None else timeout
        cap = self.settings.engine_max_output if max_output is None else max_output
        # the setting that gave this deadline: a scan of a tree runs under its own, longer one
        setting = "PATH_SCAN_TIMEOUT" if timeout is not None and timeout == self.settings.path_scan_timeout \
            else "ENGINE_TIMEOUT"
        advice = Advice(f"Reinstall ast-grep-cli or set {BINARY_ENV} to a working binary (tried {self.binary}).",
                        f"Scan fewer paths, simplify the rule, or raise SGTOOLS_{setting}.",
                        "Narrow the paths or rules, lower max_results, or raise SGTOOLS_ENGINE_MAX_OUTPUT.")
        return spawn([str(self.binary), *args], cwd=cwd, timeout=limit, max_output=cap, advice=advice,
                     name="ast-grep", stdin=stdin, on_stderr=on_stderr, on_stdout=on_stdout)

    def fail(self, result: EngineResult, what: str) -> EngineFailed:
        headline, causes = stderr_message(result.stderr)
        detail = headline + ("" if not causes else ": " + "; ".join(causes))
        return EngineFailed(
            f"ast-grep could not {what} (exit {result.returncode}): {detail}",
            exitCode=result.returncode,
            error=headline,
            causes=causes,
        )

    # ---- version ----------------------------------------------------------------------------------

    def version(self) -> str:
        return _cached_version(str(self.binary), self.settings.version_timeout)

    def check_version(self) -> str:
        text = self.version()
        major_minor = parse_version(text)[:2]
        if major_minor != SUPPORTED_AST_GREP:
            want = ".".join(map(str, SUPPORTED_AST_GREP))
            raise EngineFailed(
                f"ast-grep {text} at {self.binary} is not supported; this version of context-sherpa needs "
                f"{want}.x. Run `pip install 'ast-grep-cli=={want}.*'` or point {BINARY_ENV} at a {want} binary."
            )
        return text

    # ---- scan -------------------------------------------------------------------------------------

    def scan(
        self,
        *,
        config: Path | str,
        cwd: Path,
        rule_file: Path | None = None,
        paths: Iterable[str] = (),
        stdin: bytes | None = None,
        extra: Sequence[str] = (),
        timeout: float | None = None,
        watch: ScanWatch | None = None,
    ) -> list[AstGrepMatch]:
        """`ast-grep scan --json=stream`, parsed. Missing paths and exit codes >= 2 raise. With `watch`, the
        files scanned are counted into it (and reported one by one to `watch.on_file`)."""
        args = ["scan", "-c", engine_config(config), "--json=stream", *self.language_flags(config)]
        if rule_file is not None:
            args += ["-r", str(rule_file)]
        if stdin is not None:
            args.append("--stdin")
        if watch is not None:  # each file's line names the ones ast-grep skipped (unreadable, not UTF-8)
            args += ["--inspect", "entity"]
        args += list(extra)
        path_list = list(paths)
        if path_list:
            args += ["--", *path_list]
        on_stderr = _file_counter(watch) if watch is not None else None
        # Matches are parsed as ast-grep prints them, so decoding (the larger cost on a tree with tens of
        # thousands of findings) overlaps the engine's own work instead of following it.
        parser = StreamParser()
        result = self.run(args, cwd=cwd, stdin=stdin, timeout=timeout, on_stderr=on_stderr, on_stdout=parser.feed)
        if watch is not None:
            watch.files += sum(int(n) - int(skipped) for n, skipped in _SCANNED.findall(result.stderr))
            kept = [ln for ln in result.stderr.splitlines() if not ln.startswith("sg: ")]
            result = result._replace(stderr="\n".join(kept))  # error texts without the inspection lines
        if result.returncode not in SCAN_OK:
            raise self.fail(result, "scan")
        missing = [ln[len("ERROR: "):] for ln in result.stderr.splitlines() if ln.startswith("ERROR: ")]
        if missing:
            raise EngineFailed(f"ast-grep could not read {missing[0]}. Check that the path exists and is readable.")
        return parser.finish()

    def check_rule(self, rule_file: Path, *, config: Path | str = NO_CONFIG, cwd: Path) -> EngineResult:
        """Compile one rule file without scanning anything; the caller inspects the result."""
        args = ["scan", "-c", engine_config(config), "--json=compact", *self.language_flags(config),
                "-r", str(rule_file), "--stdin"]
        return self.run(args, cwd=cwd, stdin=b"")

    def check_project(self, config: Path, *, cwd: Path) -> EngineResult:
        """Load every rule of a project (duplicate ids, global utils) by scanning empty input."""
        args = ["scan", "-c", engine_config(config), "--json=compact", *self.language_flags(config),
                "--inspect", "summary", "--", os.devnull]
        return self.run(args, cwd=cwd)

    # ---- run (pattern search / rewrite) ------------------------------------------------------------

    def run_pattern(
        self,
        pattern: str,
        language: str,
        *,
        cwd: Path,
        paths: Iterable[str] = (),
        rewrite: str | None = None,
        stdin: bytes | None = None,
        config: Path | str = NO_CONFIG,
    ) -> list[PatternMatch]:
        # `--pattern=` / `--rewrite=`: as a separate argv item, a value starting with "-" (`-$A`) is a clap error.
        args = ["run", "-c", engine_config(config), "--json=stream", *self.language_flags(config), "-l", language,
                f"--pattern={pattern}"]
        if rewrite is not None:
            args.append(f"--rewrite={rewrite}")
        if stdin is not None:
            args.append("--stdin")
        path_list = list(paths)
        if path_list:
            args += ["--", *path_list]
        result = self.run(args, cwd=cwd, stdin=stdin)
        if result.returncode not in (0, 1):  # `run` exits 1 when nothing matched
            raise self.fail(result, "run the pattern")
        return cast("list[PatternMatch]", parse_stream(result.stdout))  # the same JSON lines, without a rule's keys

    def dump_tree(self, code: str, language: str, fmt: str, *, cwd: Path,
                  config: Path | str = NO_CONFIG) -> tuple[str, EngineResult]:
        """The tree ast-grep prints for `--debug-query`; a multi-node snippet still prints it (exit 8).
        `config` only for a custom language, whose parser the project's config names."""
        args = ["run", "-c", engine_config(config), *self.language_flags(config), "-l", language, f"--pattern={code}",
                f"--debug-query={fmt}", "--stdin"]
        result = self.run(args, cwd=cwd, stdin=b"")
        lines = result.stderr.splitlines()
        start = next((i for i, ln in enumerate(lines) if ln.startswith("Debug ")), None)
        if start is None:
            return "", result
        body: list[str] = []
        for line in lines[start + 1:]:
            if line.startswith(("Error:", "Warning:")):
                break
            body.append(line)
        return "\n".join(body).strip("\n"), result

    # ---- test -------------------------------------------------------------------------------------

    def test(self, config: Path, *, cwd: Path, rule_filter: str | None = None,
             skip_snapshots: bool = True, update_snapshots: bool = False,
             languages_of: Path | None = None) -> TestReport:
        """`ast-grep test`. Our checks are the valid/invalid cases, so snapshots are skipped by default;
        `update_snapshots` (re)writes each tested rule's snapshot, so a plain `ast-grep test` passes too.
        `languages_of`: the project config whose trust decides custom languages (for a private copy of it)."""
        args = ["test", "-c", engine_config(config), *self.language_flags(languages_of or config)]
        if update_snapshots:
            args.append("--update-all")
        elif skip_snapshots:
            args.append("--skip-snapshot-tests")
        if rule_filter:
            args += ["-f", rule_filter]
        result = self.run(args, cwd=cwd)
        if result.returncode not in (0, TEST_FAILED):
            raise self.fail(result, "run the rule tests")
        from sgtools.engine.testreport import parse_test_output

        return parse_test_output(result.stdout.decode("utf-8", "replace"), result.returncode == 0)

    def language_flags(self, config: Path | str) -> list[str]:
        """The `--custom-languages` argument ast-grep gets with this config (trust decides, engine/trust.py)."""
        return trust.flag(config, self.custom_languages)


class StreamParser:
    """`--json=stream` output parsed chunk by chunk as it arrives (a line may span chunks). A line that is not
    JSON is kept and raised by `finish`, never from inside the read loop, which must go on draining the pipes."""

    def __init__(self) -> None:
        self.items: list[AstGrepMatch] = []
        self._carry: list[bytes] = []  # the unfinished line's pieces: joined once, however many chunks it spans
        self._bad: bytes | None = None

    def feed(self, chunk: bytes) -> None:
        cut = chunk.rfind(b"\n")
        if cut < 0:
            self._carry.append(chunk)
            return
        self._parse(b"".join([*self._carry, chunk[:cut]]))
        self._carry = [chunk[cut + 1:]]

    def finish(self) -> list[AstGrepMatch]:
        self._parse(b"".join(self._carry))
        self._carry = []
        if self._bad is not None:
            raise EngineFailed(f"ast-grep printed output that is not JSON: {self._bad[:200]!r}")
        return self.items

    def _parse(self, block: bytes) -> None:
        loads, append = jsonfast.loads, self.items.append
        for line in block.splitlines():
            if line.strip() and self._bad is None:
                try:
                    append(loads(line))
                except json.JSONDecodeError:
                    self._bad = line


def parse_stream(stdout: bytes) -> list[AstGrepMatch]:
    parser = StreamParser()
    parser.feed(stdout)
    return parser.finish()


@functools.lru_cache(maxsize=8)
def _cached_version(binary: str, timeout: float) -> str:
    """Asked once per binary: in this process (lru_cache), and across processes by the binary's stat, so a CLI
    call spends no `ast-grep --version` spawn beside its real work (a replaced binary has a new stat)."""
    path = Path(binary)
    try:
        st = path.stat()
    except OSError:
        return _ask_version(binary, timeout)
    remembered = _versions.get("version", path, st)
    if isinstance(remembered, str):
        return remembered
    text = _ask_version(binary, timeout)
    _versions.put("version", path, st, text)
    _versions.flush()
    return text


_versions = StatMemo("engine-version-v1", "version")


def _ask_version(binary: str, timeout: float) -> str:
    out = spawn([binary, "--version"], cwd=None, timeout=timeout, max_output=65536, advice=Advice(
        f"Reinstall ast-grep-cli or set {BINARY_ENV}.", "Check the binary.", "Check the binary."),
        name=f"`{binary} --version`")
    text = out.stdout.decode("utf-8", "replace").strip()
    if out.returncode != 0 or not text.startswith("ast-grep"):
        raise EngineFailed(
            f"{binary} does not look like ast-grep (`--version` printed {text[:80]!r}, exit {out.returncode}). "
            f"Set {BINARY_ENV} to the ast-grep binary from the ast-grep-cli package."
        )
    return text.split()[-1]


def _file_counter(watch: ScanWatch) -> Callable[[bytes], None]:
    """A stderr reader that calls `watch.on_file` once per `--inspect entity` file line and notes the files
    ast-grep skipped (`sg: entity|file|PATH: skipped=REASON`) in `watch.skipped`, lines split across chunks."""
    carry = b""

    def feed(chunk: bytes) -> None:
        nonlocal carry
        *lines, carry = (carry + chunk).split(b"\n")
        for line in lines:
            if line.startswith(_FILE_DONE):
                if watch.on_file is not None:
                    watch.on_file()
                name, sep, reason = line[len(_FILE_DONE):].rpartition(b": skipped=")
                if sep:
                    watch.skipped.append((os.fsdecode(name), reason.decode("ascii", "replace").strip()))
    return feed
