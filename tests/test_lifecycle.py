"""engine/lifecycle.py with real processes: a child dies with its parent (SIGKILL included, and when started from
a thread that has ended), with the call that started it (ended from another thread, or before it started), and
under the call's deadline. The whole server and CLI are probed in e2e/test_lifecycle.py."""

from __future__ import annotations

import functools
import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from sgtools.core.errors import EngineFailed, Timeout
from sgtools.engine import lifecycle
from sgtools.engine.spawn import Advice, dying_with_us, kill_group, spawn, spawn_long_lived

ADVICE = Advice("start", "timeout", "too large")
SLEEP = ["sleep", "300"]  # far past every bound below: only a kill ends it in time

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="PR_SET_PDEATHSIG is Linux's")


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            return f.read().rsplit(b")", 1)[1].split()[0] != b"Z"
    except OSError:
        return False


def _gone_within(pid: int, seconds: float) -> bool:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if not _alive(pid):
            return True
        time.sleep(0.02)
    return not _alive(pid)


_PARENT = """
import sys, threading
from pathlib import Path
from sgtools.engine.spawn import Advice, spawn, spawn_long_lived
advice = Advice("a", "b", "c")
def tell(pid):
    print(pid, flush=True)
if sys.argv[1] == "long":  # started from a thread that ends at once: the keeper thread is its parent
    t = threading.Thread(target=lambda: tell(spawn_long_lived(["sleep", "30"], cwd=Path("."), advice=advice,
                                                               name="sleep").pid))
    t.start(); t.join()
    threading.Event().wait()
else:  # "call": a program by name (a fork with the death signal's preexec_fn); "call /bin/sh": by path (setpriv)
    spawn([sys.argv[2] if len(sys.argv) > 2 else "sh", "-c", "echo $$; exec sleep 30"], cwd=None, timeout=60,
          max_output=1000, advice=advice, on_stdout=lambda b: tell(int(b)))
"""


@pytest.mark.parametrize("kind", ["call", "call /bin/sh", "long"])
def test_a_child_dies_when_its_parent_is_sigkilled(kind: str) -> None:
    parent = subprocess.Popen([sys.executable, "-c", _PARENT, *kind.split()], stdout=subprocess.PIPE, text=True)
    try:
        assert parent.stdout is not None
        child = int(parent.stdout.readline())
        assert _alive(child)
        time.sleep(0.3)  # a thread that started it and ended must not have taken it along
        assert _alive(child), "the child died with the thread that started it, not with its parent"
        parent.send_signal(signal.SIGKILL)
        parent.wait()
        assert _gone_within(child, 10), "the child outlived its SIGKILLed parent"  # its sleep 30 ends at 30 s
    finally:
        if parent.poll() is None:
            parent.kill()
            parent.wait()


def _run_in_thread(call: lifecycle.Call, argv: list[str], timeout: float = 60) -> tuple[threading.Thread, list[object]]:
    out: list[object] = []

    def work() -> None:
        try:
            out.append(lifecycle.run_in(call, functools.partial(spawn, argv, cwd=None, timeout=timeout,
                                                                max_output=1000, advice=ADVICE)))
        except Exception as exc:
            out.append(exc)

    thread = threading.Thread(target=work)
    thread.start()
    return thread, out


def test_ending_a_call_kills_its_process_and_refuses_new_ones() -> None:
    call = lifecycle.Call()
    thread, out = _run_in_thread(call, SLEEP)
    deadline = time.monotonic() + 10
    while not call._procs and time.monotonic() < deadline:
        time.sleep(0.01)
    (proc,) = list(call._procs)
    start = time.monotonic()
    call.end()
    thread.join(60)
    assert not thread.is_alive() and time.monotonic() - start < 60  # a hang guard, not a budget
    assert isinstance(out[0], Timeout) and "cancelled or ran out of time" in str(out[0])
    assert not _alive(proc.pid)
    thread, out = _run_in_thread(call, SLEEP)  # after its end, the call starts nothing
    thread.join(30)  # a hang guard (a process it started would run to the 60 s engine timeout), not a budget
    assert not thread.is_alive() and isinstance(out[0], Timeout) and "cancelled or ran out of time" in str(out[0])


def test_the_calls_deadline_bounds_the_engines() -> None:
    call = lifecycle.Call(time.monotonic() + 0.5)
    start = time.monotonic()
    thread, out = _run_in_thread(call, SLEEP, timeout=600)
    thread.join(60)
    assert time.monotonic() - start < 60  # far below the engine's own 600 s: the call's deadline decided
    assert isinstance(out[0], Timeout) and "SGTOOLS_TOOL_TIMEOUT" in str(out[0])


def test_a_pool_made_inside_a_call_belongs_to_it() -> None:
    call = lifecycle.Call()
    seen: list[lifecycle.Call | None] = []

    def inside() -> None:
        with ThreadPoolExecutor(max_workers=2, **lifecycle.pool_args()) as pool:
            seen.extend(pool.map(lambda _: lifecycle.current(), range(4)))

    lifecycle.run_in(call, inside)
    assert seen == [call] * 4
    assert lifecycle.current() is None


def test_a_long_lived_process_is_tracked_and_killed(tmp_path: Path) -> None:
    proc = spawn_long_lived(SLEEP, cwd=tmp_path, advice=ADVICE, name="sleep")
    assert proc in lifecycle._live
    kill_group(proc)
    assert proc not in lifecycle._live and proc.returncode is not None and not _alive(proc.pid)


@pytest.mark.skipif(not shutil.which("setpriv"), reason="util-linux's setpriv is not installed")
def test_a_program_by_path_starts_under_setpriv_without_a_preexec_fn() -> None:
    """A preexec_fn makes Python fork, copying the parent's page tables (~33 ms a spawn at 300 MB, against
    ~6 ms through setpriv, docs/performance.md); setpriv asks for the same signal and execs the program."""
    command, preexec = dying_with_us([sys.executable, "-V"])
    assert command[:4] == [shutil.which("setpriv"), "--pdeathsig", "KILL", "--"] and preexec is None
    command, preexec = dying_with_us(["sh", "-c", "true"])
    assert command == ["sh", "-c", "true"] and preexec is not None  # by name: Popen finds it, or says it cannot


@pytest.mark.skipif(not shutil.which("setpriv"), reason="util-linux's setpriv is not installed")
def test_what_setpriv_can_do_is_asked_once_per_machine(tmp_path: Path) -> None:
    """A CLI run is a new process: the answer of the first one's probe is in the user cache for the next."""
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache"),
           "PYTHONPATH": str(Path(__file__).resolve().parent.parent)}
    code = ("import sys\nfrom sgtools.engine.spawn import Advice, spawn\n"
            "spawn([sys.executable, '-V'], cwd=None, timeout=30, max_output=1000, advice=Advice('a', 'b', 'c'))")
    subprocess.run([sys.executable, "-c", code], env=env, check=True, timeout=60)
    entries = list((tmp_path / "cache").rglob("setpriv/*.json"))
    assert len(entries) == 1 and json.loads(entries[0].read_text(encoding="utf-8")) == {"value": True}


def test_an_executable_file_that_is_no_program_is_still_refused(tmp_path: Path) -> None:
    """execvp (setpriv's) hands a file without ELF magic or `#!` to /bin/sh; Popen's execve refuses it."""
    junk = tmp_path / "ast-grep"
    junk.write_bytes(b"echo ran > " + str(tmp_path / "ran").encode() + b"\n")
    junk.chmod(0o755)
    with pytest.raises(EngineFailed, match=r"Could not start .*Exec format error"):
        spawn([str(junk)], cwd=None, timeout=30, max_output=1000, advice=ADVICE)
    assert not (tmp_path / "ran").exists()


def test_the_death_signal_is_set_in_the_child() -> None:
    """The child's own view: PR_GET_PDEATHSIG (2) through the same prctl answers SIGKILL."""
    code = ("import sys; from sgtools.engine.lifecycle import _prctl\n"
            "import _ctypes\n"
            "class L(_ctypes._SimpleCData): _type_ = 'i'\n"
            "v = L(0); p = _prctl()\n"
            "p(2, _ctypes.addressof(v), 0, 0, 0); print(v.value)")
    fork_env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parent.parent)}
    result = spawn([sys.executable, "-c", code], cwd=None, timeout=30, max_output=1000, advice=ADVICE,
                   env=fork_env)
    assert result.stdout.decode().strip() == str(int(signal.SIGKILL)), result.stderr


def test_a_cancelled_call_abandons_its_warm_request_at_once(tmp_path: Path) -> None:
    """Issue 33.1: a call cancelled (or out of time) while its warm-engine request is in flight frees its worker at
    once; before, the request waited for the warm engine's own deadline (5 s by default, 60 s here). The real
    `ast-grep lsp` is made to hang with SIGSTOP (alive and silent) once its session is up."""
    from sgtools.core.settings import Settings
    from sgtools.engine.process import Engine
    from sgtools.engine.warm import WarmEngine, WarmSpec, WarmUnavailable

    rules = tmp_path / "rules.yml"
    rules.write_text("id: no-eval\nlanguage: python\nseverity: error\nmessage: eval\nrule: {pattern: eval($X)}\n")
    spec = WarmSpec(str(Engine().binary), '{"ruleDirs": ["rules"]}', (), rules, ("--custom-languages", "ignore"),
                    "snippet.py", "python")
    warm = WarmEngine(Settings().replace(warm_engine=1, warm_engine_timeout=60.0, warm_engine_lanes=1))
    try:
        assert warm.scan(spec, ["eval(x)\n"])  # the session is up
        (pid,) = warm.pids()
        os.kill(pid, signal.SIGSTOP)
        call = lifecycle.Call()
        out: list[object] = []
        worker = threading.Thread(target=lambda: out.append(_outcome(call, warm, spec)), daemon=True)
        worker.start()
        time.sleep(0.5)  # the request is in flight
        assert worker.is_alive()
        started = time.monotonic()
        call.end()
        worker.join(timeout=30)  # a hang guard, far below the warm engine's 60 s deadline that would free it too
        assert not worker.is_alive(), "the worker still waits for the hung warm engine"
        print(f"\nworker freed {time.monotonic() - started:.2f} s after the call ended")
        assert isinstance(out[0], WarmUnavailable) and "abandoned" in str(out[0])
        assert _gone_within(pid, 10) and warm.pids() == []  # stopped, it would never end on its own
        assert warm.scan(spec, ["eval(y)\n"])  # the next call gets a fresh process
    finally:
        warm.close()


def _outcome(call: lifecycle.Call, warm: object, spec: object) -> object:
    try:
        return lifecycle.run_in(call, warm.scan, spec, ["eval(z)\n"])  # type: ignore[attr-defined]
    except Exception as exc:
        return exc
