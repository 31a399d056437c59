"""Starting a process, the one place that does: ast-grep (through `Engine.run`), the helper tools (git, a C
compiler) through `run_tool`, and the warm engine's long-lived `ast-grep lsp` through `spawn_long_lived`. An
argument list, never a shell; an explicit environment; a deadline and an output cap, past which the whole process
group is killed; stdin fed and both outputs read in one loop.
"""

# No `from __future__ import annotations`: a NamedTuple compiles each string annotation (see core/settings.py).
import contextlib
import os
import selectors
import signal
import subprocess
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import NamedTuple

from sgtools.core.errors import EngineFailed, Timeout, TooLarge
from sgtools.core.settings import get_settings

_READ_CHUNK = 65536


class EngineResult(NamedTuple):
    """What one ast-grep run gave back (a NamedTuple: every CLI start defines it, and a dataclass costs several
    times more to define)."""

    returncode: int
    stdout: bytes
    stderr: str


class Advice:
    """What to tell the caller when a process cannot start, runs out of time, or says too much."""

    __slots__ = ("start", "timeout", "too_large")

    def __init__(self, start: str, timeout: str, too_large: str) -> None:
        self.start = start
        self.timeout = timeout
        self.too_large = too_large


def child_env(**extra: str) -> dict[str, str]:
    env = dict(_CHILD_ENV)
    env.update(extra)
    return env


def _child_env() -> dict[str, str]:
    env = dict(os.environ)
    env.pop("RUST_BACKTRACE", None)  # keep error texts free of stack traces
    env["NO_COLOR"] = "1"
    return env


# Built once: copying os.environ on every call is measurable on the snippet-scan hot path.
_CHILD_ENV = _child_env()


def spawn(argv: Sequence[str], *, cwd: Path | None, timeout: float, max_output: int, advice: Advice,
          name: str | None = None, stdin: bytes | None = None, env: dict[str, str] | None = None,
          on_stderr: Callable[[bytes], None] | None = None,
          on_stdout: Callable[[bytes], None] | None = None) -> EngineResult:
    """Run `argv` to completion; `name` (default: the program) is what the errors call it, `on_stderr` and
    `on_stdout` see each stream as it arrives (so a caller can parse output while the process still runs)."""
    label = name or str(argv[0])
    try:
        proc = subprocess.Popen(
            [str(a) for a in argv],
            cwd=str(cwd) if cwd is not None else None,
            stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,
            env=_CHILD_ENV if env is None else env,
        )
    except OSError as exc:
        raise EngineFailed(f"Could not start {label}: {exc.strerror or exc}. {advice.start}") from None
    out, err, problem = _collect(proc, time.monotonic() + timeout, max_output, stdin, on_stderr, on_stdout)
    if problem == "timeout":
        raise Timeout(f"{label} did not finish within {timeout:g} s and was stopped. {advice.timeout}")
    if problem == "too-large":
        raise TooLarge(f"{label} produced more than {max_output} bytes of output and was stopped. {advice.too_large}")
    return EngineResult(proc.returncode, out, err.decode("utf-8", "replace"))


def run_tool(argv: Sequence[str], cwd: Path, timeout: float, *, max_output: int | None = None) -> EngineResult:
    """Run a helper tool other than ast-grep (git for `scan --changed-since`, a C compiler for a grammar), with
    the engine's deadline, output cap and process-group kill."""
    cap = get_settings().engine_max_output if max_output is None else max_output
    # never wait for credentials on a terminal nobody watches
    return spawn(argv, cwd=cwd, timeout=timeout, max_output=cap, env=child_env(GIT_TERMINAL_PROMPT="0"),
                 advice=Advice("Install it or put it on PATH, then retry.", "Retry, or raise the limit.",
                               "Narrow the request."))


class _Streams:
    """stdin fed and stdout/stderr read through one selector, no writer thread."""

    def __init__(self, proc: subprocess.Popen[bytes], sel: selectors.BaseSelector, stdin: bytes | None,
                 on_stderr: Callable[[bytes], None] | None, on_stdout: Callable[[bytes], None] | None) -> None:
        assert proc.stdout is not None and proc.stderr is not None
        self.proc, self.sel, self.on_stderr, self.on_stdout = proc, sel, on_stderr, on_stdout
        self.out, self.err = bytearray(), bytearray()
        self.pending = memoryview(stdin) if stdin is not None else None
        sel.register(proc.stdout, selectors.EVENT_READ, self.out)
        sel.register(proc.stderr, selectors.EVENT_READ, self.err)
        if proc.stdin is not None:
            if self.pending:
                os.set_blocking(proc.stdin.fileno(), False)
                sel.register(proc.stdin, selectors.EVENT_WRITE, None)
            else:
                proc.stdin.close()

    def write(self, key: selectors.SelectorKey) -> None:
        assert self.pending is not None and self.proc.stdin is not None
        try:
            self.pending = self.pending[os.write(key.fd, self.pending[:_READ_CHUNK]):]
        except BlockingIOError:
            return
        except OSError:  # the process closed its stdin early (BrokenPipe): it has what it needs
            self.pending = self.pending[len(self.pending):]
        if not self.pending:
            self.sel.unregister(key.fileobj)
            with contextlib.suppress(OSError):
                self.proc.stdin.close()

    def read(self, key: selectors.SelectorKey, cap: int) -> bool:
        """Read one chunk; False once stdout is over the cap (stderr is only truncated)."""
        chunk = os.read(key.fd, _READ_CHUNK)
        if not chunk:
            self.sel.unregister(key.fileobj)
            return True
        buf: bytearray = key.data
        buf += chunk
        if len(self.out) > cap:
            return False
        if self.on_stderr is not None and buf is self.err:
            self.on_stderr(chunk)
        elif self.on_stdout is not None and buf is self.out:
            self.on_stdout(chunk)
        if len(self.err) > cap:
            del self.err[cap:]
        return True


def _collect(proc: subprocess.Popen[bytes], deadline: float, cap: int, stdin: bytes | None = None,
             on_stderr: Callable[[bytes], None] | None = None,
             on_stdout: Callable[[bytes], None] | None = None) -> tuple[bytes, bytes, str | None]:
    """Feed stdin and read stdout and stderr until exit, killing the process group on timeout or past the
    output cap."""
    assert proc.stdout is not None and proc.stderr is not None
    with selectors.DefaultSelector() as sel:
        streams = _Streams(proc, sel, stdin, on_stderr, on_stdout)
        problem = _pump(streams, deadline, cap)
    if problem:
        _kill(proc)
    else:
        try:
            proc.wait(max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            _kill(proc)
            problem = "timeout"
    proc.stdout.close()
    proc.stderr.close()
    return bytes(streams.out), bytes(streams.err), problem


def _pump(streams: _Streams, deadline: float, cap: int) -> str | None:
    """Move bytes until every stream is closed; "timeout" or "too-large" when it had to stop."""
    while streams.sel.get_map():
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return "timeout"
        for key, _ in streams.sel.select(remaining):
            if key.data is None:  # stdin is writable
                streams.write(key)
            elif not streams.read(key, cap):
                return "too-large"
    return None


LongLived = subprocess.Popen[bytes]  # what `spawn_long_lived` returns, for callers' annotations


def spawn_long_lived(argv: Sequence[str], *, cwd: Path, advice: Advice, name: str) -> LongLived:
    """Start a process that stays up (the warm engine): stdin and stdout are the caller's pipes, stderr is
    discarded (a full stderr pipe nobody reads would stall it), and it leads its own process group so that
    `kill_group` takes it and anything it started. The caller owns its deadlines and must `kill_group` it."""
    try:
        return subprocess.Popen([str(a) for a in argv], cwd=str(cwd), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=subprocess.DEVNULL, start_new_session=True, env=_CHILD_ENV, bufsize=0)
    except OSError as exc:
        raise EngineFailed(f"Could not start {name}: {exc.strerror or exc}. {advice.start}") from None


def kill_group(proc: LongLived) -> None:
    """SIGKILL the process group of a `spawn_long_lived` process and reap it (no zombie), closing its pipes."""
    if proc.returncode is None:
        _kill(proc)
    for stream in (proc.stdin, proc.stdout):
        if stream is not None:
            with contextlib.suppress(OSError):
                stream.close()


def _kill(proc: subprocess.Popen[bytes]) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        proc.kill()
    proc.wait()
