"""Starting a process, the one place that does: ast-grep (through `Engine.run`), the helper tools (git, a C
compiler) through `run_tool`, and the warm engine's long-lived `ast-grep lsp` through `spawn_long_lived`. An
argument list, never a shell; an explicit environment; a deadline and an output cap, past which the process is
killed; stdin fed and both outputs read in one loop. Every child dies with its caller (engine/lifecycle.py): with
this process (the parent-death signal), with the MCP call that started it (cancelled, timed out or answered),
with an exception in the waiting thread (Ctrl-C); ast-grep stays in the caller's process group, so a terminal's
Ctrl-C reaches it too, while a helper tool (git, a C compiler, which start processes of their own) leads its
own group, killed whole.
"""

# No `from __future__ import annotations`: a NamedTuple compiles each string annotation (see core/settings.py).
import contextlib
import functools
import os
import selectors
import subprocess
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import NamedTuple

from sgtools.core.errors import EngineFailed, Timeout, TooLarge
from sgtools.core.settings import get_settings
from sgtools.engine import lifecycle

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
          on_stdout: Callable[[bytes], None] | None = None, own_group: bool = False) -> EngineResult:
    """Run `argv` to completion; `name` (default: the program) is what the errors call it, `on_stderr` and
    `on_stdout` see each stream as it arrives (so a caller can parse output while the process still runs).
    `own_group`: the child leads a process group, killed whole (a tool that starts processes of its own)."""
    label = name or str(argv[0])
    call = lifecycle.current()
    deadline = time.monotonic() + timeout
    bound_by_call = call is not None and call.deadline is not None and call.deadline < deadline
    if bound_by_call:
        assert call is not None and call.deadline is not None
        deadline = call.deadline
    _refuse_when_over(call, label)
    command, preexec = dying_with_us([str(a) for a in argv])
    try:
        proc = subprocess.Popen(
            command,
            cwd=str(cwd) if cwd is not None else None,
            stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=own_group,
            env=_CHILD_ENV if env is None else env,
            preexec_fn=preexec,
        )
    except OSError as exc:
        raise EngineFailed(f"Could not start {label}: {exc.strerror or exc}. {advice.start}") from None
    lifecycle.started(proc, call, own_group)
    try:
        out, err, problem = _collect(proc, deadline, max_output, stdin, on_stderr, on_stdout)
    except BaseException:  # Ctrl-C (KeyboardInterrupt) or a bug in a stream callback: the child goes too
        _kill(proc)
        raise
    finally:
        lifecycle.finished(proc, call)
    _refuse_when_over(call, label)
    not_started = exec_failure(command, proc.returncode, err)
    if not_started:
        raise EngineFailed(f"Could not start {label}: {not_started}. {advice.start}")
    if problem == "timeout" and bound_by_call:
        raise Timeout(f"{label} was stopped at the tool call's deadline. Narrow the input or raise "
                      "SGTOOLS_TOOL_TIMEOUT.")
    if problem == "timeout":
        raise Timeout(f"{label} did not finish within {timeout:g} s and was stopped. {advice.timeout}")
    if problem == "too-large":
        raise TooLarge(f"{label} produced more than {max_output} bytes of output and was stopped. {advice.too_large}")
    return EngineResult(proc.returncode, out, err.decode("utf-8", "replace"))


_SETPRIV_FAILED = b"setpriv: failed to execute "
_SETPRIV_ARGS = ["--pdeathsig", "KILL", "--"]  # then the program's argv


@functools.lru_cache(maxsize=1)
def _setpriv() -> str | None:
    """util-linux's setpriv, if it can set the parent-death signal (2.33 and later) and exec a program. Asked
    once per setpriv binary and remembered in the user cache, so a CLI run does not pay a probe process."""
    from sgtools.core.cache import JsonCache

    # PATH searched here, not with shutil.which: shutil (with bz2 and lzma) is ~3 ms of a CLI start.
    found = (os.path.join(d, "setpriv") for d in os.environ.get("PATH", os.defpath).split(os.pathsep) if d)
    path = next((p for p in found if os.path.isfile(p) and os.access(p, os.X_OK)), None)
    if path is None:
        return None
    try:
        st = os.stat(path)
    except OSError:
        return None
    cache, key = JsonCache("engine"), f"setpriv\0{path}\0{st.st_mtime_ns}\0{st.st_size}\0{st.st_ino}"
    known = cache.get("setpriv", key)
    if isinstance(known, bool):
        return path if known else None
    try:
        done = subprocess.run([path, *_SETPRIV_ARGS, "/bin/true"], stdin=subprocess.DEVNULL,
                              capture_output=True, timeout=10, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    cache.put("setpriv", key, done.returncode == 0)
    return path if done.returncode == 0 else None


def _program(path: str) -> bool:
    """An ELF binary or a `#!` script: what execve runs itself. setpriv execs with execvp, which hands any other
    executable file to /bin/sh, where Popen's execve refuses it (ENOEXEC): such a file keeps the old path."""
    try:
        with open(path, "rb") as fh:
            head = fh.read(4)
    except OSError:
        return False
    return head == b"\x7fELF" or head.startswith(b"#!")


def dying_with_us(argv: list[str]) -> tuple[list[str], Callable[[], None] | None]:
    """The command and `preexec_fn` that start `argv` so it dies with this process. Where util-linux's setpriv
    can ask for the parent-death signal, the program runs under it (`setpriv --pdeathsig KILL -- argv`, which
    execs it, same pid): no `preexec_fn`, so Python starts it with vfork instead of fork. Only for a program
    named by an absolute path that is an executable program, so a missing or unrunnable one still fails in Popen.
    One difference: a parent killed in the millisecond between the vfork and setpriv's request leaves the
    program running to its end, where `_in_child` ended it (setpriv cannot check the parent)."""
    preexec = lifecycle.death_signal()
    if preexec is None or not os.path.isabs(argv[0]) or not os.access(argv[0], os.X_OK) or not _program(argv[0]):
        return argv, preexec
    setpriv = _setpriv()
    if setpriv is None:
        return argv, preexec
    return [setpriv, *_SETPRIV_ARGS, *argv], None


def exec_failure(command: list[str], returncode: int | None, stderr: bytes) -> str | None:
    """Why setpriv could not exec the program (an executable file that is not a program, say): what Popen's
    OSError said when it started the program itself, e.g. "Exec format error"; None when it started."""
    if returncode not in (126, 127) or not stderr.startswith(_SETPRIV_FAILED) \
            or command[1:1 + len(_SETPRIV_ARGS)] != _SETPRIV_ARGS:
        return None
    line = stderr.splitlines()[0].decode("utf-8", "replace")
    return line.rpartition(": ")[2] or line


def _refuse_when_over(call: lifecycle.Call | None, label: str) -> None:
    """Nothing more starts, and nothing that was killed counts as a result, once the call or the process ends."""
    if call is not None and call.ended:
        raise Timeout(f"{label} was stopped: the tool call it belonged to was cancelled or ran out of time.")
    if lifecycle.closing():
        raise Timeout(f"{label} was stopped: the server is shutting down.")


def run_tool(argv: Sequence[str], cwd: Path, timeout: float, *, max_output: int | None = None) -> EngineResult:
    """Run a helper tool other than ast-grep (git for `scan --changed-since`, a C compiler for a grammar), with
    the engine's deadline, output cap and process-group kill."""
    cap = get_settings().engine_max_output if max_output is None else max_output
    # never wait for credentials on a terminal nobody watches
    return spawn(argv, cwd=cwd, timeout=timeout, max_output=cap, env=child_env(GIT_TERMINAL_PROMPT="0"),
                 own_group=True, advice=Advice("Install it or put it on PATH, then retry.",
                                               "Retry, or raise the limit.", "Narrow the request."))


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
    """Feed stdin and read stdout and stderr until exit, killing the process on timeout or past the
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
    discarded (a full stderr pipe nobody reads would stall it). It is started from the keeper thread, so its
    parent-death signal fires when this process ends, not when the calling thread does; `kill_all` and the
    caller's `kill_group` stop it. The caller owns its deadlines and must `kill_group` it."""
    def start() -> LongLived:
        return subprocess.Popen([str(a) for a in argv], cwd=str(cwd), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=subprocess.DEVNULL, env=_CHILD_ENV, bufsize=0,
                                preexec_fn=lifecycle.death_signal())

    try:
        proc = lifecycle.on_keeper(start)
    except OSError as exc:
        raise EngineFailed(f"Could not start {name}: {exc.strerror or exc}. {advice.start}") from None
    if not lifecycle.started(proc, None, False):
        kill_group(proc)
        raise EngineFailed(f"{name} was not started: the server is shutting down.")
    return proc


def kill_group(proc: LongLived) -> None:
    """SIGKILL a `spawn_long_lived` process and reap it (no zombie), closing its pipes."""
    if proc.returncode is None:
        _kill(proc)
    lifecycle.finished(proc, None)
    for stream in (proc.stdin, proc.stdout):
        if stream is not None:
            with contextlib.suppress(OSError):
                stream.close()


def _kill(proc: subprocess.Popen[bytes]) -> None:
    """SIGKILL the child (its whole group when it leads one) and reap it."""
    lifecycle.kill_now(proc)
    proc.wait()
