"""The fault catalogue: each family of hostile-input and fault probes reports what it tried and what failed.

Run `pytest -s -k catalogue` (or any fault test with `-s`) to see the lines; a family passes only with zero failures.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

# The opening of a child process that SIGKILLs itself at its `kill_at`-th counted step (argv: kill_at, root,
# scenario, ...): the crash-consistency families wrap the calls they count with `counted` after this preamble.
KILL_AT_STEP_CHILD = """\
import os, signal, subprocess, sys
kill_at, root, scenario = int(sys.argv[1]), sys.argv[2], sys.argv[3]
steps = [0]

def counted(fn):
    def step(*args, **kwargs):
        steps[0] += 1
        if steps[0] == kill_at:
            os.kill(os.getpid(), signal.SIGKILL)
        return fn(*args, **kwargs)
    return step

from sgtools.engine.process import Engine
from sgtools.project.workspace import Workspace
ws, engine = Workspace(root), Engine()
engine.version()  # warm up outside the counted steps
"""


def report(family: str, probes: int, failures: Sequence[object]) -> None:
    """Print one catalogue line and fail the test, naming the first failures, unless none failed."""
    print(f"\nFAULT CATALOGUE | {family}: {probes} probes, {len(failures)} failures")
    assert probes > 0, f"{family}: no probe ran"
    assert not failures, f"{family}: {len(failures)} of {probes} probes failed, e.g. {list(failures)[:5]}"


# The families and where they live (run them with `-s -m ''` to see every line, slow ones included):
#   protocol over stdio / HTTP, surrogates in every string argument, text from disk: e2e/test_mcp_faults.py
#   filesystem faults (real tmpfs: read-only, full, no inodes; wrong types, loops): tests/test_fs_faults.py
#   symlink-swap race (1,000 attempts): tests/test_write_race.py
#   skips (minified heuristic on real bundles vs sources; an unreadable file, without root): tests/test_skips.py
#   concurrency: two `sgtools trust` at once, 20 rounds: tests/test_trust_race.py
#   read-side symlink-swap race (1,000 find_code/scan_path calls): tests/test_read_race.py
#   lang add that fails (a sample that cannot parse; SIGKILL at 20 points): tests/test_lang_add_rollback.py
#   edits during a scan (a rule rewritten every few ms: 100 path scans, 25 `scan --fix`): tests/test_rule_race.py
#   crash consistency (SIGKILL at every step of every multi-file write): tests/test_crash_consistency.py
#   SIGKILL at every step of community import, rule add, lang add and trust (half states; a retried import
#   completes): tests/test_kill_every_step.py
#   pathological glob (< 100 ms on a 10 kB path): tests/test_globs.py
#   lifecycle (ast-grep dies with the server / CLI on stdin close, SIGTERM, SIGKILL, Ctrl-C; 40 cancelled and 40
#   timed-out calls): e2e/test_lifecycle.py (unit level: tests/test_lifecycle.py)
#   30,000 fixes in one file: tests/test_fix_scale.py; engine calls per request: tests/test_engine_budget.py



# The process the kill-at-step families fork their children from (argv: the child program, then the modules to
# import once). Each request is one line of JSON, [stdout file, stderr file, timeout, *child argv]; the answer is
# one line: the child's exit status as subprocess gives it (-9: SIGKILL), or null when it ran past the timeout (it
# is SIGKILLed then). A child runs as `python -c PROGRAM ARGV...` would, in a fork of this process: its own pid,
# argv, stdin (/dev/null), stdout and stderr files, exit handlers run on a normal end.
_FORK_SERVER = """\
import atexit, importlib, json, os, select, signal, sys, traceback
program, preload = compile(sys.argv[1], "<child>", "exec"), json.loads(sys.argv[2])
for name in preload:
    importlib.import_module(name)
for line in sys.stdin:
    out, err, timeout, *argv = json.loads(line)
    pid = os.fork()
    if pid == 0:
        code = 0
        try:
            for fd, path, flags in ((0, os.devnull, os.O_RDONLY), (1, out, os.O_WRONLY), (2, err, os.O_WRONLY)):
                os.dup2(os.open(path, flags), fd)
            sys.argv = ["-c", *argv]
            exec(program, {"__name__": "__main__", "__builtins__": __builtins__})
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
        except BaseException:
            traceback.print_exc()
            code = 1
        finally:
            atexit._run_exitfuncs()
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(code)
    pidfd = os.pidfd_open(pid)
    late = not select.select([pidfd], [], [], timeout)[0]
    if late:
        os.kill(pid, signal.SIGKILL)
    os.close(pidfd)
    status = os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
    print(json.dumps(None if late else status), flush=True)
"""


class ForkServer:
    """Runs a `python -c` program many times, each run a fork of one process that imported `preload` once, instead
    of a new interpreter that imports sgtools again (~0.2 s of CPU per child; the kill-at-step families start
    hundreds). A run is what `subprocess.run([sys.executable, "-c", program, *argv], capture_output=True,
    text=True, timeout=..., env=env)` gives: the child's exit status (-9 when it SIGKILLed itself), stdout, stderr,
    and `subprocess.TimeoutExpired` past the timeout. The environment is the server's, fixed when it starts."""

    def __init__(self, program: str, preload: Sequence[str], workdir: Path,
                 env: Mapping[str, str] | None = None) -> None:
        self.program, self.workdir, self.runs = program, workdir, 0
        workdir.mkdir(parents=True, exist_ok=True)
        self.proc = subprocess.Popen([sys.executable, "-c", _FORK_SERVER, program, json.dumps(list(preload))],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                                     env=None if env is None else dict(env))

    def run(self, *argv: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.runs += 1
        out, err = self.workdir / f"run{self.runs}.out", self.workdir / f"run{self.runs}.err"
        out.touch()
        err.touch()
        self.proc.stdin.write(json.dumps([str(out), str(err), timeout, *argv]) + "\n")
        self.proc.stdin.flush()
        answer = self.proc.stdout.readline()
        assert answer, f"the fork server died (exit {self.proc.poll()})"
        status = json.loads(answer)
        command = [sys.executable, "-c", self.program, *argv]
        if status is None:
            raise subprocess.TimeoutExpired(command, timeout)
        return subprocess.CompletedProcess(command, status, out.read_text(), err.read_text())

    def close(self) -> None:
        if self.proc.stdin is not None:
            self.proc.stdin.close()
        self.proc.wait(timeout=60)

    def __enter__(self) -> ForkServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
