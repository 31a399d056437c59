"""What ends the processes engine/spawn.py starts, whichever way their caller ends (issue 33).

- The parent dies (SIGKILL included): every child asks the kernel for SIGKILL when its parent goes
  (`PR_SET_PDEATHSIG`, set in the child between fork and exec, `death_signal`). The kernel means the parent
  *thread*: a process that outlives the call that started it (the warm engine's `ast-grep lsp`) is started from
  one thread that lives as long as the process (`on_keeper`); a call's own processes are waited for by the
  thread that started them, so they end first.
- The server or CLI stops in an orderly way (stdin closed, Ctrl-C, an exception): `kill_all` kills every live
  child and refuses new ones, before the interpreter waits for its worker threads.
- One MCP call ends, is cancelled or times out: the runner runs it under a `Call` (`run_in`); every process the
  call starts, on its worker thread or a pool thread it made (`pool_args`), is killed by `Call.end`, and the
  call's deadline bounds each engine deadline, so a path scan never runs past the tool's timeout. A warm
  engine process answering the call's request is lent to it (`lend`): the call's end kills it too.
"""

from __future__ import annotations

import contextvars
import functools
import os
import signal
import sys
import threading
from collections.abc import Callable
from typing import Any, Protocol, TypeVar

T = TypeVar("T")
PR_SET_PDEATHSIG = 1


class Child(Protocol):
    """What this module needs of a started process (engine/spawn.py's `subprocess.Popen`)."""

    @property
    def pid(self) -> int: ...

    @property
    def returncode(self) -> int | None: ...


class Call:
    """One tool call's processes: `end` kills those still running and refuses new ones; `deadline` (monotonic)
    bounds every engine deadline inside the call."""

    __slots__ = ("_lock", "_procs", "deadline", "ended")

    def __init__(self, deadline: float | None = None) -> None:
        self.deadline = deadline
        self.ended = False
        self._procs: set[Child] = set()
        self._lock = threading.Lock()

    def end(self) -> None:
        """The call is over (answered, cancelled or out of time): kill what it still runs, start nothing more."""
        with self._lock:
            self.ended = True
            procs = list(self._procs)
        for proc in procs:
            _signal(proc)


_CALL: contextvars.ContextVar[Call | None] = contextvars.ContextVar("sgtools_call", default=None)


def current() -> Call | None:
    return _CALL.get()


def run_in(call: Call | None, fn: Callable[..., T], *args: Any) -> T:
    """`fn(*args)` with `call` as the current call of this thread (the worker thread of an MCP call)."""
    token = _CALL.set(call)
    try:
        return fn(*args)
    finally:
        _CALL.reset(token)


def _adopt(call: Call | None) -> None:
    _CALL.set(call)


def pool_args() -> dict[str, Any]:
    """`ThreadPoolExecutor(**pool_args())`: the pool's threads belong to the current call, so its end kills the
    processes they start too."""
    return {"initializer": _adopt, "initargs": (_CALL.get(),)}


# ---- every live child --------------------------------------------------------------------------------------

_live: dict[Child, bool] = {}  # process -> leads its own process group
_live_lock = threading.Lock()
_closing = False


def started(proc: Child, call: Call | None, group: bool) -> bool:
    """Record a new child; False (and the child is killed) when its call already ended or the process is
    shutting down."""
    with _live_lock:
        _live[proc] = group
        refused = _closing
    if call is not None:
        with call._lock:
            call._procs.add(proc)
            refused = refused or call.ended
    if refused:
        _signal(proc)
    return not refused


def finished(proc: Child, call: Call | None) -> None:
    with _live_lock:
        _live.pop(proc, None)
    if call is not None:
        with call._lock:
            call._procs.discard(proc)


def lend(call: Call | None, proc: Child) -> None:
    """A long-lived child (a warm `ast-grep lsp`) works for `call` until `give_back`: the call's end kills it
    there and then, so a cancelled or timed-out call's request is abandoned at once, not left to its own
    deadline (the next call starts a fresh process)."""
    if call is None:
        return
    with call._lock:
        call._procs.add(proc)
        ended = call.ended
    if ended:
        _signal(proc)


def give_back(call: Call | None, proc: Child) -> None:
    if call is not None:
        with call._lock:
            call._procs.discard(proc)


def closing() -> bool:
    return _closing


def kill_all() -> None:
    """Kill every live child and refuse new ones: the server or CLI is stopping (call before the interpreter
    waits for worker threads, which wait for their children)."""
    global _closing
    with _live_lock:
        _closing = True
        procs = list(_live)
    for proc in procs:
        _signal(proc)


def kill_now(proc: Child) -> None:
    """SIGKILL a child (its group when it leads one); the caller reaps it."""
    _signal(proc)


def _signal(proc: Child) -> None:
    """SIGKILL a child (its group when it leads one) from any thread; the thread that started it reaps it."""
    if proc.returncode is not None:
        return
    group = _live.get(proc, False)
    try:
        if group:
            os.killpg(proc.pid, signal.SIGKILL)
        else:
            os.kill(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


# ---- the parent-death signal -------------------------------------------------------------------------------


@functools.lru_cache(maxsize=1)
def _prctl() -> Callable[..., int] | None:
    """libc's prctl through `_ctypes` alone (the `ctypes` package costs ~5 ms of every CLI start; this ~0.6 ms)."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        import _ctypes
    except ImportError:
        return None

    class _Int(_ctypes._SimpleCData):  # type: ignore[type-arg]
        _type_ = "i"

    class _ULong(_ctypes._SimpleCData):  # type: ignore[type-arg]
        _type_ = "L"

    class _Fn(_ctypes.CFuncPtr):
        _flags_ = _ctypes.FUNCFLAG_CDECL
        _restype_ = _Int

    try:
        fn = _Fn(_ctypes.dlsym(_ctypes.dlopen(None, os.RTLD_NOW), "prctl"))  # type: ignore[arg-type]  # None: libc
    except (OSError, AttributeError):
        return None
    fn.argtypes = (_Int, _ULong, _ULong, _ULong, _ULong)
    result: Callable[..., int] = fn
    return result


def _in_child(prctl: Callable[..., int], parent: int) -> None:
    """Between fork and exec: die with the parent. If the parent died before the request took effect, the
    child was already handed to another process: it ends itself at once."""
    prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != parent:
        os.kill(os.getpid(), signal.SIGKILL)


def death_signal() -> Callable[[], None] | None:
    """The `preexec_fn` that makes a child die with this process (None where the platform has no such request).
    It costs a fork instead of a vfork: a copy of this process's page tables per spawn, ~4 ms at 30 MB and
    ~33 ms at 300 MB (docs/performance.md), which is why spawn.py's `dying_with_us` prefers setpriv."""
    prctl = _prctl()
    return None if prctl is None else functools.partial(_in_child, prctl, os.getpid())


# ---- one thread that lives as long as the process ----------------------------------------------------------

_keeper_jobs: list[tuple[Callable[[], Any], list[Any], threading.Event]] = []
_keeper_cv = threading.Condition()
_keeper: threading.Thread | None = None


def on_keeper(fn: Callable[[], T]) -> T:
    """`fn()` run on the keeper thread, which never exits before the process: a child it starts is not sent
    its death signal when the calling thread (a call's worker, a warm-engine lane) ends."""
    global _keeper
    box: list[Any] = []
    done = threading.Event()
    with _keeper_cv:
        if _keeper is None:
            _keeper = threading.Thread(target=_keep, name="sgtools-spawn-keeper", daemon=True)
            _keeper.start()
        _keeper_jobs.append((fn, box, done))
        _keeper_cv.notify()
    done.wait()
    ok, value = box[0]
    if not ok:
        raise value
    result: T = value
    return result


def _keep() -> None:
    while True:
        with _keeper_cv:
            while not _keeper_jobs:
                _keeper_cv.wait()
            fn, box, done = _keeper_jobs.pop(0)
        try:
            box.append((True, fn()))
        except BaseException as exc:  # handed to the caller's thread
            box.append((False, exc))
        done.set()
